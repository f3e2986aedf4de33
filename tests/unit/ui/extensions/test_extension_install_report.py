"""The bundle install screen shows the compatibility report (issue 22): a real MainWindow opens a bundle packed
by the official mcpb CLI, shaped like the hello-world-node reference example, and the screen lists each manifest
part as works / translated / not available; its optional sensitive key left empty, Install goes through even
with no keyring."""

from __future__ import annotations

import json
from pathlib import Path

import keyring
import keyring.backends.fail
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QPlainTextEdit
from pytestqt.qtbot import QtBot

from desktop_app.paths import app_paths
from desktop_app.runtime.credentials import Credentials
from desktop_app.ui.extensions.dialog import InstallExtensionDialog
from desktop_app.ui.window.main_window import MainWindow
from tests.unit.ui.extensions.test_import_dialog import NoHost


def test_the_install_screen_lists_how_each_part_carries_over(
    qtbot: QtBot, window: MainWindow, packed_bundles: dict[str, Path]
) -> None:
    keyring.set_keyring(keyring.backends.fail.Keyring())  # no keyring; the conftest puts its own back
    paths = app_paths().ensure()
    window.attach_host(NoHost(), credentials=Credentials(), mcp_config=paths.mcp_config_file)
    dialog = window.extensions.open_bundle(packed_bundles["hello-node"])
    assert isinstance(dialog, InstallExtensionDialog)
    qtbot.waitExposed(dialog)
    report = dialog.findChild(QPlainTextEdit, "compatibilityReport")
    assert report is not None and report.isVisible()
    lines = report.toPlainText().splitlines()
    for expected in (
        "[works] server.type node — run with node from your PATH",
        "[translated] user_config.api_key — string; kept in the keyring; when not set, the env entry or argument "
        "using it is left out",
        "[not available] compatibility.claude_desktop — >=0.10.0: a Claude Desktop version; not checked here",
        "[translated] icons — the single icon is shown; size and theme variants are not used",
        "[works] privacy_policies — read them: https://example.com/privacy",
    ):
        assert expected in lines, lines
    assert any(line.startswith("[translated] prompts — ") for line in lines)
    assert dialog.install_button.isEnabled()  # every setting is optional: nothing to fill in
    with qtbot.waitSignal(dialog.installed):
        qtbot.mouseClick(dialog.install_button, Qt.MouseButton.LeftButton)
    assert json.loads(paths.mcp_config_file.read_text())["mcpServers"]["hello-node"]["extension"] == "hello-node"
