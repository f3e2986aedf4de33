"""The main window's dialogs: provider (and the welcome screen), approvals, roots, resources, settings and MCP
import, opened non-modally.

A mixin of :class:`~desktop_app.ui.window.main_window.MainWindow` (it uses the window's ``runtime``, ``mcp_host``,
``composer``, ``importer`` and ``tasks``). Each dialog is held by a :class:`~desktop_app.ui.dialogs.slot.DialogSlot`,
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


class WindowDialogs:
    """Opens (or raises) each of the window's dialogs; at most one of each at a time."""

    runtime: Any
    mcp_host: Any
    composer: Any
    importer: Any
    tasks: Any
    mcp_config_path: Any
    # The welcome screen probes loopback for Ollama/LM Studio as it opens; the app turns this on (app.py), so a
    # test window never probes the machine's real ports.
    detect_local_on_welcome: bool = False

    def _slot(self, kind: str) -> DialogSlot[Any]:
        slots: dict[str, DialogSlot[Any]] = self.__dict__.setdefault("_dialog_slots", {})
        return slots.setdefault(kind, DialogSlot())

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
        if self.runtime is None:
            return None

        def build() -> SettingsWindow:
            from desktop_app.ui.settings.window import SettingsWindow  # pydantic forms: not before first paint

            window = SettingsWindow(self.runtime, self, host=self.mcp_host, tasks=self.tasks)  # type: ignore[arg-type]
            window.applied.connect(self.apply_settings)  # type: ignore[attr-defined]
            return window

        window: SettingsWindow = self._slot("settings").open(build)
        if page is not None:
            window.show_page(page)
        return window

    def _on_settings_triggered(self) -> None:
        self.open_settings_window()

    def open_resources_dialog(self) -> ResourcesDialog | None:
        """Attach resource…: the (non-modal) list of the ready servers' resources."""
        if self.runtime is None or self.mcp_host is None:
            return None

        def build() -> ResourcesDialog:
            from desktop_app.ui.dialogs.resources import ResourcesDialog

            return ResourcesDialog(self.runtime, self.mcp_host, self.composer, self)  # type: ignore[arg-type]

        dialog: ResourcesDialog = self._slot("resources").open(build, on_raise=lambda d: d.refresh())
        return dialog

    def open_roots_dialog(self) -> RootsDialog | None:
        """Settings → Folders the servers may see… (non-modal)."""
        if self.runtime is None:
            return None

        def build() -> RootsDialog:
            from desktop_app.ui.dialogs.roots import RootsDialog

            return RootsDialog(self.runtime, self)  # type: ignore[arg-type]

        dialog: RootsDialog = self._slot("roots").open(build)
        return dialog

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
        """Settings → Provider…, the key banner's "Enter key": window-modal, non-blocking, every time."""
        if self.runtime is None:
            return None

        def build() -> ProviderDialog:
            from desktop_app.ui.dialogs.provider import ProviderDialog  # pydantic settings: not before first paint

            dialog = ProviderDialog(self.runtime, self, first_run=first_run)  # type: ignore[arg-type]
            dialog.configured.connect(self._on_provider_configured)  # type: ignore[attr-defined]
            return dialog

        dialog: ProviderDialog = self._slot("provider").open(build, modal=True)
        return dialog

    def open_welcome(self) -> ProviderDialog | None:
        """First run: the welcome screen (provider, key, optional Claude Desktop import), as the provider dialog."""
        if self.runtime is None:
            return None

        def build() -> ProviderDialog:
            from desktop_app.ui.dialogs.welcome import WelcomeDialog

            dialog = WelcomeDialog(
                self.runtime,
                self,  # type: ignore[arg-type]
                mcp_config=lambda: self.mcp_config_path,
                detect_on_open=self.detect_local_on_welcome,
            )
            dialog.configured.connect(self._on_provider_configured)  # type: ignore[attr-defined]
            dialog.servers_imported.connect(self._on_servers_imported)
            return dialog

        dialog: ProviderDialog = self._slot("provider").open(build, modal=True)
        return dialog

    def open_approvals_dialog(self) -> ApprovalsDialog | None:
        if self.runtime is None:
            return None

        def build() -> ApprovalsDialog:
            from desktop_app.ui.dialogs.approvals import ApprovalsDialog  # pydantic grants: not before first paint

            return ApprovalsDialog(self.runtime, self)  # type: ignore[arg-type]

        dialog: ApprovalsDialog = self._slot("approvals").open(build, modal=True, on_raise=lambda d: d.refresh())
        return dialog

    def _on_provider_triggered(self) -> None:
        self.open_provider_dialog()

    def _on_approvals_triggered(self) -> None:
        self.open_approvals_dialog()
