"""The main window's files and MCP features: launch files and dropped ``.mcpb`` bundles, server requests and
prompts (``/`` commands), and the composer's attachment limits and default context.

A mixin of :class:`~desktop_app.ui.window.main_window.MainWindow` (it uses the window's ``runtime``, ``composer``,
``view``, ``extensions``, ``server_requests`` and ``tasks``).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from desktop_app.runtime import events as ev
    from desktop_app.ui.chat.controller import ChatController, RuntimeLike


class WindowFiles:
    """Files given to the window and the MCP features the attached host offers."""

    runtime: Any
    composer: Any
    view: Any
    extensions: Any
    server_requests: Any
    tasks: Any
    slash: Any
    mcp_host: object
    roots_action: Any
    _pending_bundles: list[Path]

    def add_launch_files(self, files: list[str]) -> None:
        """Files from the command line or the file manager: ``.mcpb`` bundles open the install screen (once the
        host is there), other files are attached to the next prompt."""
        from desktop_app.ui.extensions.install import BUNDLE_SUFFIXES

        bundles = [Path(f) for f in files if Path(f).suffix.lower() in BUNDLE_SUFFIXES]
        others = [f for f in files if Path(f).suffix.lower() not in BUNDLE_SUFFIXES]
        for bundle in bundles:
            if self.extensions is not None:
                self.extensions.open_bundle(bundle)
            else:
                self._pending_bundles.append(bundle)
        if others:
            self.composer.add_files(others)

    def dragEnterEvent(self, event: Any) -> None:
        from desktop_app.ui.extensions.install import bundle_paths

        if self.extensions is not None and event.mimeData().hasUrls() and bundle_paths(event.mimeData().urls()):
            event.acceptProposedAction()
        else:
            super().dragEnterEvent(event)

    def dropEvent(self, event: Any) -> None:
        from desktop_app.ui.extensions.install import bundle_paths

        found = bundle_paths(event.mimeData().urls()) if event.mimeData().hasUrls() else []
        if self.extensions is not None and found:
            event.acceptProposedAction()
            self.extensions.open_bundle(found[0])
        else:
            super().dropEvent(event)

    def _attach_mcp_features(self, host: object) -> None:
        """Server requests as cards in the chat, prompts as ``/`` commands, Attach resource… and Folders…."""
        from desktop_app.ui.chat.slash import PromptCatalog, SlashCommands

        self.mcp_host = host
        self.server_requests.attach(host, self.runtime if hasattr(self.runtime, "answer_sampling") else host)
        catalog = PromptCatalog(self.tasks, self)
        catalog.attach(host)
        self.slash = SlashCommands(self.composer, catalog, self.tasks, self)
        self.slash.error.connect(self.view.show_error)
        self.composer.resource_button.setEnabled(hasattr(host, "list_resources"))
        self.composer.resource_requested.connect(self.open_resources_dialog)
        self.roots_action.setEnabled(hasattr(self.runtime, "set_roots"))

    def _attach_composer(self, runtime: RuntimeLike, controller: ChatController) -> None:
        """The composer's size caps and default context chips come from the runtime's settings."""
        from desktop_app.runtime.attachments import AttachmentLimits
        from desktop_app.runtime.context import default_context

        settings = runtime.settings
        self.composer.limits = AttachmentLimits.from_settings(settings)
        defaults = getattr(runtime, "default_context", None)
        self.composer.default_context = defaults if callable(defaults) else default_context
        self.composer.reset_context()
        self.composer.attachment_refused.connect(self._on_attachment_refused)
        controller.images_described.connect(self._on_images_described)

    def _on_attachment_refused(self, message: str) -> None:
        self.view.show_error(message)
        self.set_status("Attachment refused — see the conversation")

    def _on_images_described(self, event: ev.ImagesDescribed) -> None:
        text = event.text if len(event.text) <= 600 else event.text[:600] + "…"
        self.view.add_notice(f"{event.model} cannot be asked directly; described {', '.join(event.images)}: {text}")
        self.set_status(f"Images described by {event.model}; asking {self.runtime_model()}…")
