"""A ``.mcpb`` opened from the file manager while Switchboard runs: the second launch forwards the file through
the single-instance socket (the real QLocalServer and the stdlib client a second launch uses), and the running
instance opens the install screen; macOS's QFileOpenEvent takes the same path."""

from __future__ import annotations

import sys
from pathlib import Path

from PySide6.QtCore import QCoreApplication
from PySide6.QtGui import QFileOpenEvent

from desktop_app.instance import request, server_address
from desktop_app.paths import app_paths
from desktop_app.runtime.credentials import Credentials
from desktop_app.ui.extensions.dialog import InstallExtensionDialog
from desktop_app.ui.tray.desktop import DesktopShell
from desktop_app.ui.tray.single_instance import InstanceServer
from desktop_app.ui.window.main_window import MainWindow
from tests.unit.ui.extensions.test_import_dialog import NoHost

RESOURCES = Path(__file__).resolve().parents[4] / "resources"


def _shell(qtbot, tmp_path: Path) -> tuple[MainWindow, DesktopShell]:
    window = MainWindow()
    qtbot.addWidget(window)
    shell = DesktopShell(window, RESOURCES, tmp_path, quit_app=lambda: None, tray_available=False)
    shell.start()
    window.attach_host(NoHost(), credentials=Credentials(), mcp_config=app_paths().ensure().mcp_config_file)
    return window, shell


def test_a_bundle_forwarded_by_a_second_launch_opens_the_install_screen(
    qtbot, qloop, switchboard_home, tmp_path: Path, packed_bundles: dict[str, Path]
) -> None:
    window, shell = _shell(qtbot, tmp_path)
    address = server_address(str(switchboard_home))
    server = InstanceServer(address, shell.handle_request)
    try:
        assert server.claim() == "claimed"
        bundle = packed_bundles["node-probe"]
        # What `switchboard FILE.mcpb` sends when the .desktop entry's Exec (switchboard %F) runs a second time.
        message = {"action": "forward", "argv": [bundle.name], "cwd": str(bundle.parent)}
        task = qloop.run_in_executor(None, request, message, address)
        qtbot.waitUntil(task.done, timeout=10_000)
        assert task.result()["ok"] is True
    finally:
        server.close()
    dialog = window.extensions.dialog
    assert isinstance(dialog, InstallExtensionDialog) and dialog.bundle.path == bundle
    assert window.isVisible() and shell.forwarded == 1
    assert not window.composer.attachments  # a bundle is installed, never attached to the prompt


def test_a_file_open_event_opens_the_install_screen(qtbot, tmp_path: Path, packed_bundles: dict[str, Path]) -> None:
    window, shell = _shell(qtbot, tmp_path)
    event = QFileOpenEvent(str(packed_bundles["python-probe"]))
    app = QCoreApplication.instance()
    if sys.platform == "darwin":  # the filter is installed only where Finder sends FileOpen
        QCoreApplication.sendEvent(app, event)
    else:
        assert shell.file_open.eventFilter(app, event)
    dialog = window.extensions.dialog
    assert isinstance(dialog, InstallExtensionDialog) and dialog.bundle.manifest.name == "python-probe"
