"""The main window's dialogs: provider, approvals, roots, resources and MCP import, opened non-modally.

A mixin of :class:`~desktop_app.ui.main_window.MainWindow` (it uses the window's ``runtime``, ``mcp_host``,
``composer``, ``importer`` and dialog attributes). Dialog modules are imported on first use, so none of
them (nor pydantic) loads before the first paint; none is ever ``exec()``-ed on the qasync loop.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Qt

if TYPE_CHECKING:
    from desktop_app.ui.approvals_dialog import ApprovalsDialog
    from desktop_app.ui.provider_dialog import ProviderDialog
    from desktop_app.ui.resources_dialog import ResourcesDialog
    from desktop_app.ui.roots_dialog import RootsDialog
    from desktop_app.ui.settings.window import SettingsWindow


class WindowDialogs:
    """Opens (or raises) each of the window's dialogs; at most one of each at a time."""

    runtime: Any
    mcp_host: Any
    composer: Any
    importer: Any
    tasks: Any
    mcp_config_path: Any
    provider_dialog: ProviderDialog | None
    approvals_dialog: ApprovalsDialog | None
    resources_dialog: ResourcesDialog | None
    roots_dialog: RootsDialog | None
    # The welcome screen probes loopback for Ollama/LM Studio as it opens; the app turns this on (app.py), so a
    # test window never probes the machine's real ports.
    detect_local_on_welcome: bool = False
    settings_window: SettingsWindow | None

    def open_settings_window(self, page: str | None = None) -> SettingsWindow | None:
        """Settings… (Ctrl+,): the generated settings pages, non-modal; ``page`` picks one by key."""
        if self.runtime is None:
            return None
        if self.settings_window is not None and not self.settings_window.isVisible():
            # closed: build it again from the settings in force now (the provider dialog, the tray menu or
            # a reloaded file may have changed them), so Save never writes back stale values
            self.settings_window.deleteLater()
            self.settings_window = None
        if self.settings_window is None:
            from desktop_app.ui.settings.window import SettingsWindow  # pydantic forms: not before first paint

            window = SettingsWindow(self.runtime, self, host=self.mcp_host, tasks=self.tasks)
            window.applied.connect(self.apply_settings)  # type: ignore[attr-defined]
            self.settings_window = window
        if page is not None:
            self.settings_window.show_page(page)
        self.settings_window.show()
        self.settings_window.raise_()
        self.settings_window.activateWindow()
        return self.settings_window

    def _on_settings_triggered(self) -> None:
        self.open_settings_window()

    def open_resources_dialog(self) -> ResourcesDialog | None:
        """Attach resource…: the (non-modal) list of the ready servers' resources."""
        if self.runtime is None or self.mcp_host is None:
            return None
        if self.resources_dialog is None:
            from desktop_app.ui.resources_dialog import ResourcesDialog

            self.resources_dialog = ResourcesDialog(self.runtime, self.mcp_host, self.composer, self)
        else:
            self.resources_dialog.refresh()
        self.resources_dialog.show()
        self.resources_dialog.raise_()
        return self.resources_dialog

    def open_roots_dialog(self) -> RootsDialog | None:
        """Settings → Folders the servers may see… (non-modal)."""
        if self.runtime is None:
            return None
        if self.roots_dialog is None:
            from desktop_app.ui.roots_dialog import RootsDialog

            self.roots_dialog = RootsDialog(self.runtime, self)
        self.roots_dialog.show()
        self.roots_dialog.raise_()
        return self.roots_dialog

    def _on_roots_triggered(self) -> None:
        self.open_roots_dialog()

    def _on_import_triggered(self) -> None:
        if self.importer is not None:
            self.importer.choose()

    def _on_servers_imported(self, names: list[str]) -> None:
        """Start the imported servers at once (the host applies the re-read mcp.json while running)."""
        actions = getattr(getattr(self, "servers_dock", None), "panel", None)
        if getattr(actions, "actions", None) is not None:  # our own write, not an outside edit
            actions.actions.note_own_write()
        if getattr(self.mcp_host, "apply_servers", None) is None or self.mcp_config_path is None:
            self.statusBar().showMessage(
                f"Imported MCP server(s) {', '.join(names)} into mcp.json. Restart Switchboard to start them.", 30_000
            )
            return
        self.statusBar().showMessage(f"Imported MCP server(s) {', '.join(names)}; starting them…", 30_000)
        self.tasks.start(self._start_imported(names), name="start-imported-servers")

    async def _start_imported(self, names: list[str]) -> None:
        from desktop_app.runtime.errors import ConfigError
        from desktop_app.runtime.host import load_mcp_config

        try:
            servers = load_mcp_config(self.mcp_config_path)
        except ConfigError as exc:
            self.statusBar().showMessage(f"Could not start the imported servers: {exc}", 30_000)
            return
        started = await self.mcp_host.apply_servers({name: servers[name] for name in names if name in servers})
        self.statusBar().showMessage(
            f"Imported and started MCP server(s) {', '.join(started) or 'none'}; View → Servers shows their state.",
            30_000,
        )

    def open_provider_dialog(self, *, first_run: bool = False) -> ProviderDialog | None:
        if self.runtime is None:
            return None
        if self.provider_dialog is not None and self.provider_dialog.isVisible():
            self.provider_dialog.raise_()
            return self.provider_dialog
        from desktop_app.ui.provider_dialog import ProviderDialog  # pydantic settings: not before first paint

        dialog = ProviderDialog(self.runtime, self, first_run=first_run)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.configured.connect(self._on_provider_configured)
        self.provider_dialog = dialog
        dialog.open()  # window-modal, non-blocking: never exec() on the qasync loop
        return dialog

    def open_welcome(self) -> ProviderDialog | None:
        """First run: the welcome screen (provider, key, optional Claude Desktop import), as the provider dialog."""
        if self.runtime is None:
            return None
        if self.provider_dialog is not None and self.provider_dialog.isVisible():
            self.provider_dialog.raise_()
            return self.provider_dialog
        from desktop_app.ui.welcome import WelcomeDialog

        dialog = WelcomeDialog(
            self.runtime, self, mcp_config=lambda: self.mcp_config_path, detect_on_open=self.detect_local_on_welcome
        )
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.configured.connect(self._on_provider_configured)
        dialog.servers_imported.connect(self._on_servers_imported)
        self.provider_dialog = dialog
        dialog.open()
        return dialog

    def open_approvals_dialog(self) -> ApprovalsDialog | None:
        if self.runtime is None:
            return None
        if self.approvals_dialog is not None and self.approvals_dialog.isVisible():
            self.approvals_dialog.refresh()
            self.approvals_dialog.raise_()
            return self.approvals_dialog
        from desktop_app.ui.approvals_dialog import ApprovalsDialog  # pydantic grants: not before first paint

        dialog = ApprovalsDialog(self.runtime, self)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.destroyed.connect(self._on_approvals_dialog_destroyed)
        self.approvals_dialog = dialog
        dialog.open()
        return dialog

    def _on_provider_triggered(self) -> None:
        self.open_provider_dialog()

    def _on_approvals_triggered(self) -> None:
        self.open_approvals_dialog()

    def _on_approvals_dialog_destroyed(self) -> None:
        self.approvals_dialog = None
