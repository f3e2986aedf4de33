"""The install screen of an MCP Bundle, driven with pytest-qt: bundles packed and signed by the official mcpb
CLI; the signature state (signed and valid, signed but invalid, unsigned), the declared tools and prompts,
the generated user_config form, and Install through a .mcpb dropped on the window."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from PySide6.QtCore import QMimeData, QPoint, Qt, QUrl
from PySide6.QtGui import QDropEvent
from PySide6.QtWidgets import QApplication, QCheckBox, QLineEdit, QMessageBox
from pytestqt.qtbot import QtBot

from desktop_app.paths import app_paths
from desktop_app.runtime.credentials import Credentials
from desktop_app.runtime.extensions.archive import read_bundle
from desktop_app.ui.extensions.dialog import InstallExtensionDialog
from desktop_app.ui.window.main_window import MainWindow
from tests.conftest import MemoryKeyring
from tests.support.bundles import sign_self_signed
from tests.unit.ui.extensions.test_import_dialog import NoHost


def test_signed_tampered_and_unsigned_bundles_show_their_state(
    qtbot: QtBot, packed_bundles: dict[str, Path], tmp_path: Path
) -> None:
    plain = packed_bundles["node-probe"]
    signed = sign_self_signed(plain, tmp_path)
    tampered = tmp_path / "tampered.mcpb"
    shutil.copyfile(signed, tampered)
    raw = bytearray(tampered.read_bytes())
    raw[10] ^= 1
    tampered.write_bytes(bytes(raw))
    states = {}
    for path in (plain, signed, tampered):
        dialog = InstallExtensionDialog(read_bundle(path), [], lambda values: "x")
        qtbot.addWidget(dialog)
        states[path.name] = (dialog.signature_label.property("state"), dialog.signature_label.text())
    assert states[plain.name][0] == "unsigned"
    assert states[signed.name][0] == "self-signed" and states[signed.name][1].startswith("Signed and valid")
    assert states[tampered.name][0] == "invalid" and "Signed but INVALID" in states[tampered.name][1]
    assert "changed after it was signed" in states[tampered.name][1]
    # What the official CLI says on this computer, under each (the self-signed certificate is not trusted here).
    for name in (plain.name, signed.name, tampered.name):
        assert "mcpb verify: Extension is not signed" in states[name][1]
    assert "no authority vouches for the publisher" in states[signed.name][1]


def test_form_from_user_config_and_refusal(qtbot: QtBot, packed_bundles: dict[str, Path]) -> None:
    bundle = read_bundle(packed_bundles["node-probe"])
    dialog = InstallExtensionDialog(bundle, [], lambda values: "node-probe")
    qtbot.addWidget(dialog)
    assert dialog.tools_label.text() == "probe" and dialog.prompts_label.text() == "summarise"
    assert not dialog.icon.pixmap().isNull()  # the manifest's icon.png, read from the bundle
    token = dialog.findChild(QLineEdit, "field_token")
    assert token is not None and token.echoMode() == QLineEdit.EchoMode.Password
    assert isinstance(dialog.findChild(QCheckBox, "field_verbose"), QCheckBox)
    assert not dialog.install_button.isEnabled() and "Token" in dialog.problem.text()
    refused = InstallExtensionDialog(bundle, ["Node Probe supports darwin only"], lambda values: "x")
    qtbot.addWidget(refused)
    assert "darwin only" in refused.compat_label.text() and not refused.install_button.isEnabled()


def test_dropping_a_bundle_on_the_window_installs_it(
    qtbot: QtBot, window: MainWindow, packed_bundles: dict[str, Path], tmp_path: Path, memory_keyring: MemoryKeyring
) -> None:
    paths = app_paths().ensure()
    window.attach_host(NoHost(), credentials=Credentials(), mcp_config=paths.mcp_config_file)
    assert window.install_extension_action.isEnabled()
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(packed_bundles["python-probe"]))])
    drop = QDropEvent(
        QPoint(10, 10), Qt.DropAction.CopyAction, mime, Qt.MouseButton.NoButton, Qt.KeyboardModifier.NoModifier
    )
    window.dropEvent(drop)
    dialog = window.extensions.dialog
    assert isinstance(dialog, InstallExtensionDialog)
    qtbot.waitExposed(dialog)
    assert dialog.findChild(QLineEdit, "field_api_key") is not None
    qtbot.keyClicks(dialog.findChild(QLineEdit, "field_api_key"), "sk-typed-in-the-form")
    dialog.fields["workspace"].set_value(str(tmp_path))
    assert dialog.install_button.isEnabled()
    with qtbot.waitSignal(dialog.installed):
        qtbot.mouseClick(dialog.install_button, Qt.MouseButton.LeftButton)
    assert memory_keyring.store[("switchboard", "mcpb:python-probe:api_key")] == "sk-typed-in-the-form"
    entry = json.loads(paths.mcp_config_file.read_text())["mcpServers"]["python-probe"]
    assert entry["extension"] == "python-probe"
    assert "sk-typed-in-the-form" not in paths.settings_file.read_text()


def test_a_broken_bundle_says_why(qtbot: QtBot, window: MainWindow, tmp_path: Path) -> None:
    paths = app_paths().ensure()
    window.attach_host(NoHost(), credentials=Credentials(), mcp_config=paths.mcp_config_file)
    bad = tmp_path / "bad.mcpb"
    bad.write_bytes(b"not a zip")
    box = window.extensions.open_bundle(bad)
    assert isinstance(box, QMessageBox) and "not a zip archive" in box.text()
    QApplication.processEvents()


def test_a_bundle_opened_from_the_file_manager_waits_for_the_host(
    qtbot: QtBot, window: MainWindow, packed_bundles: dict[str, Path]
) -> None:
    window.add_launch_files([str(packed_bundles["node-probe"])])  # `switchboard FILE.mcpb`, as the .desktop runs it
    assert window.extensions is None and window._pending_bundles  # kept until the host is attached
    paths = app_paths().ensure()
    window.attach_host(NoHost(), credentials=Credentials(), mcp_config=paths.mcp_config_file)
    dialog = window.extensions.dialog
    assert isinstance(dialog, InstallExtensionDialog) and dialog.bundle.manifest.name == "node-probe"
