"""The main window's dialogs: provider (and the welcome screen), approvals, roots, resources, settings and MCP
import, opened non-modally.

:class:`WindowDialogs` is one collaborator of :class:`~desktop_app.ui.window.main_window.MainWindow`
(``window.dialogs``); it reads the window's ``runtime``, ``mcp_host``, ``composer``, ``importer``, ``tasks`` and
``mcp_config_path``. Each dialog is held by a :class:`~desktop_app.ui.dialogs.slot.DialogSlot` this object owns,
which builds it, shows it, and forgets it when Qt deletes it after it closes, so every opening after the first
builds a fresh one (never a deleted one). Dialog modules are imported on first use, so none of them (nor pydantic)
loads before the first paint; none is ever ``exec()``-ed on the qasync loop.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from desktop_app.ui.dialogs.slot import DialogSlot

if TYPE_CHECKING:
    from desktop_app.ui.dialogs.approvals import ApprovalsDialog
    from desktop_app.ui.dialogs.provider import ProviderDialog
    from desktop_app.ui.dialogs.resources import ResourcesDialog
    from desktop_app.ui.dialogs.roots import RootsDialog
    from desktop_app.ui.settings.window import SettingsWindow
    from desktop_app.ui.window.main_window import MainWindow


class WindowDialogs:
    """Opens (or raises) each of the window's dialogs; at most one of each at a time."""

    def __init__(self, window: MainWindow) -> None:
        self.window = window
        self._slots: dict[str, DialogSlot[Any]] = {}
        self.detect_local_on_welcome = False
        """The welcome screen probes loopback for Ollama/LM Studio as it opens; the app turns this on (app.py),
        so a test window never probes the machine's real ports."""

    def _slot(self, kind: str) -> DialogSlot[Any]:
        return self._slots.setdefault(kind, DialogSlot())

    @property
    def provider_dialog(self) -> ProviderDialog | None:
        """The provider dialog or welcome screen while it is open (``None`` once Qt deleted it)."""
        return self._slot("provider").dialog

    @property
    def approvals_dialog(self) -> ApprovalsDialog | None:
        return self._slot("approvals").dialog

    @property
    def resources_dialog(self) -> ResourcesDialog | None:
        return self._slot("resources").dialog

    @property
    def roots_dialog(self) -> RootsDialog | None:
        return self._slot("roots").dialog

    @property
    def settings_window(self) -> SettingsWindow | None:
        return self._slot("settings").dialog

    def open_settings_window(self, page: str | None = None) -> SettingsWindow | None:
        """Settings… (Ctrl+,): the generated settings pages, non-modal; ``page`` picks one by key. A closed window
        is built again from the settings in force now (the provider dialog, the tray menu or a reloaded file may
        have changed them), so Save never writes back stale values."""
        w = self.window
        if w.runtime is None:
            return None

        def build() -> SettingsWindow:
            from desktop_app.ui.settings.window import SettingsWindow  # pydantic forms: not before first paint

            window = SettingsWindow(w.runtime, w, host=w.mcp_host, tasks=w.tasks)
            window.applied.connect(w.provider.apply_settings)
            return window

        window: SettingsWindow = self._slot("settings").open(build)
        if page is not None:
            window.show_page(page)
        return window

    def open_resources_dialog(self) -> ResourcesDialog | None:
        """Attach resource…: the (non-modal) list of the ready servers' resources."""
        w = self.window
        if w.runtime is None or w.mcp_host is None:
            return None

        def build() -> ResourcesDialog:
            from desktop_app.ui.dialogs.resources import ResourcesDialog

            return ResourcesDialog(w.runtime, w.mcp_host, w.composer, w)

        dialog: ResourcesDialog = self._slot("resources").open(build, on_raise=lambda d: d.refresh())
        return dialog

    def open_roots_dialog(self) -> RootsDialog | None:
        """Settings → Folders the servers may see… (non-modal)."""
        w = self.window
        if w.runtime is None:
            return None

        def build() -> RootsDialog:
            from desktop_app.ui.dialogs.roots import RootsDialog

            return RootsDialog(w.runtime, w)

        dialog: RootsDialog = self._slot("roots").open(build)
        return dialog

    def open_importer(self) -> None:
        """File → Import MCP servers… (once the host is attached)."""
        if self.window.importer is not None:
            self.window.importer.choose()

    def on_servers_imported(self, names: list[str]) -> None:
        """Start the imported servers at once (the host applies the re-read mcp.json while running)."""
        w = self.window
        panel = getattr(getattr(w, "servers_dock", None), "panel", None)
        server_actions = getattr(panel, "server_actions", None)
        if server_actions is not None:  # our own write, not an outside edit
            server_actions.note_own_write()
        if getattr(w.mcp_host, "apply_servers", None) is None or w.mcp_config_path is None:
            w.statusBar().showMessage(
                f"Imported MCP server(s) {', '.join(names)} into mcp.json. Restart Switchboard to start them.", 30_000
            )
            return
        w.statusBar().showMessage(f"Imported MCP server(s) {', '.join(names)}; starting them…", 30_000)
        w.tasks.start(self._start_imported(names), name="start-imported-servers")

    async def _start_imported(self, names: list[str]) -> None:
        from desktop_app.runtime.errors import ConfigError
        from desktop_app.runtime.host import load_mcp_config

        w = self.window
        if w.mcp_config_path is None:  # checked before this started; the window has no mcp.json now
            return
        try:
            servers = load_mcp_config(w.mcp_config_path)
        except ConfigError as exc:
            w.statusBar().showMessage(f"Could not start the imported servers: {exc}", 30_000)
            return
        host: Any = w.mcp_host
        started = await host.apply_servers({name: servers[name] for name in names if name in servers})
        w.statusBar().showMessage(
            f"Imported and started MCP server(s) {', '.join(started) or 'none'}; View → Servers shows their state.",
            30_000,
        )

    def open_provider_dialog(self, *, first_run: bool = False) -> ProviderDialog | None:
        """Settings → Provider…, the key banner's "Enter key": window-modal, non-blocking, every time."""
        w = self.window
        runtime = w.runtime
        if runtime is None:
            return None

        def build() -> ProviderDialog:
            from desktop_app.ui.dialogs.provider import ProviderDialog  # pydantic settings: not before first paint

            dialog = ProviderDialog(runtime, w, first_run=first_run)
            dialog.configured.connect(w.provider.on_configured)
            return dialog

        dialog: ProviderDialog = self._slot("provider").open(build, modal=True)
        return dialog

    def open_welcome(self) -> ProviderDialog | None:
        """First run: the welcome screen (provider, key, optional Claude Desktop import), as the provider dialog."""
        w = self.window
        runtime = w.runtime
        if runtime is None:
            return None

        def build() -> ProviderDialog:
            from desktop_app.ui.dialogs.welcome import WelcomeDialog

            dialog = WelcomeDialog(
                runtime,
                w,
                mcp_config=lambda: w.mcp_config_path,
                detect_on_open=self.detect_local_on_welcome,
            )
            dialog.configured.connect(w.provider.on_configured)
            dialog.servers_imported.connect(self.on_servers_imported)
            dialog.finished.connect(lambda _result: w.empty_states.refresh())  # "Later": the chat's own state
            return dialog

        dialog: ProviderDialog = self._slot("provider").open(build, modal=True)
        w.empty_states.refresh()  # hidden while the welcome screen asks the same thing
        return dialog

    def open_approvals_dialog(self) -> ApprovalsDialog | None:
        w = self.window
        runtime = w.runtime
        if runtime is None:
            return None

        def build() -> ApprovalsDialog:
            from desktop_app.ui.dialogs.approvals import ApprovalsDialog  # pydantic grants: not before first paint

            return ApprovalsDialog(runtime, w)

        dialog: ApprovalsDialog = self._slot("approvals").open(build, modal=True, on_raise=lambda d: d.refresh())
        return dialog
