"""An installed MCP Bundle in the Servers panel: a strip above the selected server's tabs with its version and
author, **Reconfigure…** and **Update…** (Disable/Enable and Remove — which uninstalls it: files, mcp.json,
settings, keyring — are the panel's own buttons).

Reconfigure… opens the bundle's ``user_config`` form (:class:`~desktop_app.ui.extensions.dialog.
InstallExtensionDialog` in ``reconfigure`` mode) with the current values; a sensitive value shows as
"stored in keyring" and is kept when left empty. Saving writes through
:func:`~desktop_app.runtime.extensions.install.reconfigure` and restarts the server, which reads the new
values as it starts. Update… picks a newer ``.mcpb`` and opens its install screen, the user's values filled
in. A plugin's server gets a line saying which plugin it comes from. Built lazily (when the panel gets its
server manager), never at start-up.
"""

from __future__ import annotations

from html import escape
from pathlib import Path
from typing import Any

from PySide6.QtWidgets import QFileDialog, QLabel, QPushButton, QVBoxLayout, QWidget

from desktop_app.ui.chat.common import MUTED_COLOR
from desktop_app.ui.flow import ButtonFlow
from desktop_app.ui.wrap_row import WrapRow


class ExtensionBar(QWidget):
    """Reconfigure… and Update… for the extension selected in ``panel`` (a ``ServersPanel``)."""

    def __init__(self, panel: Any, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("extensionBar")
        self.panel = panel
        self.name: str | None = None
        self.dialog: Any = None
        self.file_dialog: QFileDialog | None = None
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 2, 0, 2)
        self.label = QLabel("")
        self.label.setObjectName("extensionBarLabel")
        self.label.setWordWrap(True)
        self.reconfigure_button = QPushButton("Reconfigure…")
        self.reconfigure_button.setObjectName("reconfigureExtensionButton")
        self.reconfigure_button.setToolTip("Change this extension's settings; the server restarts with them")
        self.reconfigure_button.clicked.connect(self.open_reconfigure)
        self.update_button = QPushButton("Update…")
        self.update_button.setObjectName("updateExtensionButton")
        self.update_button.setToolTip("Install a newer .mcpb of this extension; your settings are kept")
        self.update_button.clicked.connect(self.choose_update)
        # the buttons under the label, wrapped, in a narrow panel (never wider than the panel's dock)
        self.row = WrapRow(self.label, ButtonFlow([self.reconfigure_button, self.update_button]))
        layout.addWidget(self.row)
        self.hide()

    def places(self) -> Any:
        from desktop_app.paths import app_paths
        from desktop_app.runtime.extensions.install import Places

        paths = app_paths().ensure()
        manager = getattr(self.panel.server_actions, "manager", None)
        mcp_file = manager.path if manager is not None else paths.mcp_config_file
        return Places(paths.data_dir, paths.settings_file, mcp_file)

    @property
    def credentials(self) -> Any:
        manager = getattr(self.panel.server_actions, "manager", None)
        return getattr(manager, "credentials", None) or self.panel.secret_prompt.credentials

    def show_for(self, name: str | None, entry: Any) -> None:
        """Show the strip for server ``name`` with its mcp.json ``entry`` (hidden unless it is an extension or
        a plugin's server)."""
        self.name = None
        if not isinstance(entry, dict) or name is None:
            self.hide()
            return
        if entry.get("plugin"):
            self.label.setText(
                f"<span style='color:{MUTED_COLOR}'>From the plugin <b>{escape(str(entry['plugin']))}</b>: "
                "enable, disable or remove it under Settings → Plugins.</span>"
            )
            self.reconfigure_button.hide()
            self.update_button.hide()
            self.show()
            return
        bundle = entry.get("extension")
        manifest = None
        if bundle:  # the bundle reader and its manifest models load for an extension's server only (~1 MB)
            from desktop_app.runtime.extensions.install import installed

            manifest = installed(self.places()).get(str(bundle))
        if manifest is None:
            self.hide()
            return
        self.name = str(bundle)
        self.label.setText(
            f"Extension <b>{escape(manifest.title)}</b> {escape(manifest.version)} "
            f"<span style='color:{MUTED_COLOR}'>by {escape(manifest.author.name)}</span>"
        )
        self.reconfigure_button.setVisible(bool(manifest.user_config))
        self.update_button.show()
        for button, verb in ((self.reconfigure_button, "Reconfigure"), (self.update_button, "Update")):
            button.setAccessibleName(f"{verb} extension {manifest.title}")
        self.show()

    def open_reconfigure(self) -> Any:
        """The bundle's settings form with the current values; saving restarts the server."""
        from desktop_app.runtime.extensions.archive import Bundle
        from desktop_app.runtime.extensions.install import installed, kept_values, reconfigure, stored_secrets
        from desktop_app.ui.extensions.dialog import InstallExtensionDialog

        name = self.name
        if name is None:
            return None
        places = self.places()
        manifest = installed(places).get(name)
        if manifest is None:
            return None
        credentials = self.credentials
        stored = stored_secrets(places, manifest, credentials)
        current = {k: v for k, v in kept_values(places, manifest, credentials).items() if k not in stored}
        folder = places.folder(name)
        icon = (folder / manifest.icon) if manifest.icon else None
        icon_bytes = icon.read_bytes() if icon is not None and icon.is_file() else None

        def save(values: dict[str, Any]) -> str:
            return reconfigure(name, places, credentials, values).name

        dialog = InstallExtensionDialog(
            Bundle(folder, manifest, b"", None, b""),
            [],
            save,
            self.window(),
            mode="reconfigure",
            current=current,
            stored=stored,
            icon_bytes=icon_bytes,
        )
        dialog.installed.connect(self._saved)
        self.dialog = dialog
        dialog.open()
        return dialog

    def sync(self) -> None:
        """The runtime adopts the extension and plugin records on disk (after an install, reconfigure or an
        uninstall through Remove), so a later Settings save keeps them as they are."""
        from desktop_app.runtime.plugins.live import sync_records

        try:
            sync_records(getattr(self.window(), "runtime", None), self.places().settings_file)
        except Exception:  # a broken settings file is reported where it is read
            return

    def _saved(self, name: str) -> None:
        self.sync()
        info = self.panel.servers.get(name)
        if info is not None and info.state != "disabled":
            self.panel.notice.emit(f"Saved the settings of '{name}'; restarting it with them.")
            self.panel.restart(name)
        else:
            self.panel.notice.emit(f"Saved the settings of '{name}'; they apply when it is enabled.")

    def choose_update(self) -> QFileDialog:
        """Pick the newer .mcpb; its install screen (with the current values) does the rest."""
        dialog = QFileDialog(self.window(), "Update extension", "", "MCP Bundles (*.mcpb *.dxt)")
        dialog.setFileMode(QFileDialog.FileMode.ExistingFile)
        dialog.fileSelected.connect(lambda path: self._open_update(Path(path)))
        self.file_dialog = dialog
        dialog.open()
        return dialog

    def _open_update(self, path: Path) -> None:
        from desktop_app.runtime.extensions.archive import BundleError, read_bundle

        other: str | None
        try:
            other = read_bundle(path).manifest.name
        except BundleError:
            other = self.name  # the install screen says what is wrong with the file
        if other != self.name:
            self.panel.notice.emit(f"{path.name} is the extension '{other}', not an update of '{self.name}'.")
            return
        installer = getattr(self.window(), "extensions", None)
        if installer is not None:
            self.dialog = installer.open_bundle(path)


__all__ = ["ExtensionBar"]
