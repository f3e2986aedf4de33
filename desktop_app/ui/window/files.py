"""The main window's files and MCP features: launch files and dropped ``.mcpb`` bundles, server requests and
prompts (``/`` commands), and the composer's attachment limits and default context.

:class:`FileIntake` is one collaborator of :class:`~desktop_app.ui.window.main_window.MainWindow`
(``window.files``). It owns the bundles given before the host was attached, the attached MCP host and the
``/`` commands; it reads the window's ``runtime``, ``composer``, ``view``, ``extensions``, ``server_requests``
and ``tasks``. The window's drag-and-drop handlers ask it (``drop_target``).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from desktop_app.runtime import events as ev
    from desktop_app.ui.chat.controller import ChatController, RuntimeLike
    from desktop_app.ui.chat.slash import SlashCommands
    from desktop_app.ui.window.main_window import MainWindow


class FileIntake:
    """Files given to the window and the MCP features the attached host offers."""

    def __init__(self, window: MainWindow) -> None:
        self.window = window
        self.pending_bundles: list[Path] = []  # .mcpb files given at launch, before the host is attached
        self.mcp_host: object = None
        self.slash: SlashCommands | None = None

    def add_launch_files(self, files: list[str]) -> None:
        """Files from the command line or the file manager: ``.mcpb`` bundles open the install screen (once the
        host is there), other files are attached to the next prompt."""
        from desktop_app.ui.extensions.install import BUNDLE_SUFFIXES

        w = self.window
        bundles = [Path(f) for f in files if Path(f).suffix.lower() in BUNDLE_SUFFIXES]
        others = [f for f in files if Path(f).suffix.lower() not in BUNDLE_SUFFIXES]
        for bundle in bundles:
            if w.extensions is not None:
                w.extensions.open_bundle(bundle)
            else:
                self.pending_bundles.append(bundle)
        if others:
            w.composer.add_files(others)

    def open_pending_bundles(self) -> None:
        """The install screen for each bundle given before the host was attached."""
        for bundle in self.pending_bundles:
            self.window.extensions.open_bundle(bundle)
        self.pending_bundles.clear()

    def drop_target(self, event: Any) -> Path | None:
        """The ``.mcpb`` bundle a drag carries, if the window can install extensions; else None."""
        from desktop_app.ui.extensions.install import bundle_paths

        if self.window.extensions is None or not event.mimeData().hasUrls():
            return None
        found = bundle_paths(event.mimeData().urls())
        return found[0] if found else None

    def attach_mcp_features(self, host: object) -> None:
        """Server requests as cards in the chat, prompts as ``/`` commands, Attach resource… and Folders…."""
        from desktop_app.ui.chat.slash import PromptCatalog, SlashCommands

        w = self.window
        self.mcp_host = host
        w.server_requests.attach(host, w.runtime if hasattr(w.runtime, "answer_sampling") else host)
        catalog = PromptCatalog(w.tasks, w)
        catalog.attach(host)
        self.slash = SlashCommands(w.composer, catalog, w.tasks, w)
        self.slash.error.connect(w.view.show_error)
        w.composer.resource_button.setEnabled(hasattr(host, "list_resources"))
        w.composer.resource_requested.connect(w.dialogs.open_resources_dialog)
        w.menus.roots_action.setEnabled(hasattr(w.runtime, "set_roots"))

    def attach_composer(self, runtime: RuntimeLike, controller: ChatController) -> None:
        """The composer's size caps and default context chips come from the runtime's settings."""
        from desktop_app.runtime.attachments import AttachmentLimits
        from desktop_app.runtime.context import default_context

        composer = self.window.composer
        settings = runtime.settings
        composer.limits = AttachmentLimits.from_settings(settings)
        defaults = getattr(runtime, "default_context", None)
        composer.default_context = defaults if callable(defaults) else default_context
        composer.reset_context()
        composer.attachment_refused.connect(self._on_attachment_refused)
        controller.images_described.connect(self._on_images_described)

    def _on_attachment_refused(self, message: str) -> None:
        self.window.view.show_error(message)
        self.window.set_status("Attachment refused — see the conversation")

    def _on_images_described(self, event: ev.ImagesDescribed) -> None:
        w = self.window
        text = event.text if len(event.text) <= 600 else event.text[:600] + "…"
        w.view.add_notice(f"{event.model} cannot be asked directly; described {', '.join(event.images)}: {text}")
        w.set_status(f"Images described by {event.model}; asking {w.runtime_model()}…")
