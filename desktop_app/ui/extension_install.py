"""Installing an MCP Bundle from the window: File → Install extension…, or a ``.mcpb`` dropped on the window
(or passed on the command line by the file manager's association). Reads the bundle, shows the install screen
(:class:`~desktop_app.ui.extension_dialog.InstallExtensionDialog`) and, once installed, starts the server
through the window's usual path for newly added servers.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject
from PySide6.QtWidgets import QFileDialog, QMessageBox, QWidget

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
        from desktop_app.ui.extension_dialog import InstallExtensionDialog

        try:
            bundle = read_bundle(path)
        except BundleError as exc:
            box = QMessageBox(QMessageBox.Icon.Warning, "Cannot install this file", str(exc), parent=self.window)
            box.setObjectName("bundleErrorBox")
            box.open()
            self.dialog = box
            return box
        places = self.places()

        def do_install(values: dict[str, Any]) -> str:
            return install(bundle, places, self.credentials, values).name

        dialog = InstallExtensionDialog(bundle, compat.refusals(bundle.manifest), do_install, self.window)
        dialog.installed.connect(lambda name: self.on_installed([name]))
        self.dialog = dialog
        dialog.open()
        return dialog


def bundle_paths(urls: list[Any]) -> list[Path]:
    """The local ``.mcpb`` files among dropped URLs."""
    paths = [Path(u.toLocalFile()) for u in urls if u.isLocalFile()]
    return [p for p in paths if p.suffix.lower() in BUNDLE_SUFFIXES]


__all__ = ["BUNDLE_SUFFIXES", "ExtensionInstaller", "bundle_paths"]
