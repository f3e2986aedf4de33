"""Installing an MCP Bundle from the window: File → Install extension…, or a ``.mcpb`` dropped on the window
(or passed on the command line by the file manager's association). Reads the bundle, shows the install screen
(:class:`~desktop_app.ui.extensions.dialog.InstallExtensionDialog`) and, once installed, starts the server
through the window's usual path for newly added servers. A bundle that is installed already is an update: the
user's values are filled in, and the running server restarts on the new version's files.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject
from PySide6.QtWidgets import QFileDialog, QMessageBox, QWidget

from desktop_app.ui.dialogs.frame import message_box

BUNDLE_SUFFIXES = (".mcpb", ".dxt")


class ExtensionInstaller(QObject):
    def __init__(self, window: QWidget, credentials: Any, on_installed: Callable[[list[str]], None]) -> None:
        super().__init__(window)
        self.window = window
        self.credentials = credentials
        self.on_installed = on_installed
        self.dialog: Any = None
        self.file_dialog: QFileDialog | None = None

    def places(self) -> Any:
        from desktop_app.paths import app_paths
        from desktop_app.runtime.extensions.install import Places

        paths = app_paths().ensure()
        return Places(paths.data_dir, paths.settings_file, paths.mcp_config_file)

    def choose(self) -> QFileDialog:
        dialog = QFileDialog(self.window, "Install extension", "", "MCP Bundles (*.mcpb *.dxt)")
        dialog.setFileMode(QFileDialog.FileMode.ExistingFile)
        dialog.fileSelected.connect(lambda path: self.open_bundle(Path(path)))
        self.file_dialog = dialog
        dialog.open()
        return dialog

    def open_bundle(self, path: Path) -> Any:
        """Show the install screen for ``path`` (a broken bundle: a message saying why, and nothing else)."""
        from desktop_app.runtime.extensions import compat
        from desktop_app.runtime.extensions.archive import BundleError, read_bundle
        from desktop_app.runtime.extensions.install import install
        from desktop_app.ui.extensions.dialog import InstallExtensionDialog

        try:
            bundle = read_bundle(path)
        except BundleError as exc:
            box = message_box(
                self.window,
                "Cannot install this file",
                str(exc),
                icon="error",
                tone="danger",
                secondary=QMessageBox.StandardButton.Close,
            )
            box.setObjectName("bundleErrorBox")
            box.open()
            self.dialog = box
            return box
        from desktop_app.runtime.extensions.install import installed, kept_values, stored_secrets
        from desktop_app.runtime.extensions.review import publisher_warning

        places = self.places()
        previous = installed(places).get(bundle.manifest.name)  # an update: the user's values are filled in
        warning = publisher_warning(previous, bundle.manifest)
        current: dict[str, Any] = {}
        stored: set[str] = set()
        if previous is not None and warning is None:  # another publisher's bundle inherits nothing
            current = kept_values(places, previous, self.credentials)
            stored = stored_secrets(places, previous, self.credentials) & set(bundle.manifest.user_config)
            current = {k: v for k, v in current.items() if k not in stored}

        def do_install(values: dict[str, Any]) -> str:
            return install(bundle, places, self.credentials, values).name

        dialog = InstallExtensionDialog(
            bundle,
            compat.refusals(bundle.manifest),
            do_install,
            self.window,
            mode="update" if previous is not None else "install",
            current=current,
            stored=stored,
            previous_version=previous.version if previous is not None else None,
            folder=places.folder(bundle.manifest.name),
            warning=warning,
        )
        dialog.installed.connect(lambda name: self._installed(name, updated=previous is not None))
        self.dialog = dialog
        dialog.open()
        return dialog

    def _installed(self, name: str, *, updated: bool) -> None:
        from desktop_app.runtime.plugins.live import sync_records

        try:  # the runtime holds the new extensions record, so a later Settings save keeps it
            sync_records(getattr(self.window, "runtime", None), self.places().settings_file)
        except Exception:  # a broken settings file is reported where it is read
            pass
        self.on_installed([name])
        panel = getattr(getattr(self.window, "servers_dock", None), "panel", None)
        info = panel.servers.get(name) if panel is not None else None
        if updated and panel is not None and info is not None and info.state != "disabled":
            panel.restart(name)  # the new version's files: start them


def bundle_paths(urls: list[Any]) -> list[Path]:
    """The local ``.mcpb`` files among dropped URLs."""
    paths = [Path(u.toLocalFile()) for u in urls if u.isLocalFile()]
    return [p for p in paths if p.suffix.lower() in BUNDLE_SUFFIXES]


__all__ = ["BUNDLE_SUFFIXES", "ExtensionInstaller", "bundle_paths"]
