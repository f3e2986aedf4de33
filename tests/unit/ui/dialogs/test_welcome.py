"""The first-run welcome screen: provider and key into the keyring, local detection, Claude Desktop import."""

from __future__ import annotations

import json
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDialogButtonBox

from desktop_app.runtime.providers.presets import Preset
from desktop_app.runtime.service import Runtime
from desktop_app.runtime.settings import ProviderSettings, Settings
from desktop_app.ui.dialogs.welcome import WelcomeDialog
from desktop_app.ui.window.main_window import MainWindow
from tests.support.fake_runtime import FakeRuntime
from tests.support.fakes import FakeHost

GITHUB_TOKEN = "ghp_abcdefghijklmnopqrstuvwxyz0123456789"


def _claude_config(tmp_path: Path) -> Path:
    path = tmp_path / "Claude" / "claude_desktop_config.json"
    path.parent.mkdir()
    servers = {
        "time": {"command": "uvx", "args": ["mcp-server-time"]},
        "github": {
            "command": "npx",
            "args": ["-y", "@modelcontextprotocol/server-github"],
            "env": {"GITHUB_PERSONAL_ACCESS_TOKEN": GITHUB_TOKEN},
        },
    }
    path.write_text(json.dumps({"mcpServers": servers, "globalShortcut": "Ctrl+Space"}), encoding="utf-8")
    return path


def _welcome(runtime, target: Path | None, claude: Path, **kwargs) -> WelcomeDialog:
    return WelcomeDialog(runtime, mcp_config=lambda: target, claude_config=claude, **kwargs)


def _ok(qtbot, dialog: WelcomeDialog) -> None:
    qtbot.mouseClick(dialog.buttons.button(QDialogButtonBox.StandardButton.Ok), Qt.MouseButton.LeftButton)


def test_welcome_saves_the_provider_key_in_the_keyring_and_imports_claude_servers(
    qtbot, qloop, switchboard_home, memory_keyring, tmp_path
):
    settings_path = switchboard_home / "config" / "settings.json"
    runtime = Runtime(settings=Settings(), host=FakeHost(), settings_path=settings_path)
    target = switchboard_home / "config" / "mcp.json"
    dialog = WelcomeDialog(
        runtime, mcp_config=lambda: target, claude_config=_claude_config(tmp_path), detect_on_open=False
    )
    qtbot.addWidget(dialog)
    dialog.show()
    imported: list[list[str]] = []
    dialog.servers_imported.connect(imported.append)
    assert dialog.windowTitle() == "Welcome to Switchboard"
    assert dialog.import_check.isEnabled() and dialog.import_check.isChecked()
    assert "github, time" in dialog.import_detail.text()

    deepseek = next(i for i in range(dialog.preset.count()) if dialog.preset.itemData(i) == "deepseek")
    dialog.preset.setCurrentIndex(deepseek)
    dialog.preset.activated.emit(deepseek)
    dialog.api_key.setText("sk-welcome-secret-1234")
    _ok(qtbot, dialog)

    assert runtime.provider_settings.base_url == "https://api.deepseek.com"
    assert runtime.provider_settings.dialect == "deepseek" and runtime.provider_settings.model
    assert memory_keyring.store[("switchboard", "api-key:https://api.deepseek.com")] == "sk-welcome-secret-1234"
    assert [sorted(names) for names in imported] == [["github", "time"]]
    servers = json.loads(target.read_text(encoding="utf-8"))["mcpServers"]
    assert sorted(servers) == ["github", "time"]
    assert GITHUB_TOKEN in memory_keyring.store.values()
    for path in switchboard_home.rglob("*"):  # neither secret lands in a file
        if path.is_file():
            text = path.read_text(errors="replace")
            assert "sk-welcome-secret" not in text and GITHUB_TOKEN not in text, path
    assert not dialog.isVisible()


def test_import_can_be_declined_and_a_broken_config_is_explained(qtbot, qloop, switchboard_home, tmp_path):
    runtime = FakeRuntime(ProviderSettings())
    target = switchboard_home / "config" / "mcp.json"
    dialog = WelcomeDialog(
        runtime, mcp_config=lambda: target, claude_config=_claude_config(tmp_path), detect_on_open=False
    )
    qtbot.addWidget(dialog)
    dialog.import_check.setChecked(False)
    dialog.base_url.setText("http://127.0.0.1:1234/v1")
    dialog.model.setCurrentText("local-model")
    _ok(qtbot, dialog)
    assert runtime.configured and not target.exists()

    broken = tmp_path / "broken.json"
    broken.write_text('{"mcpServers": {"x": ', encoding="utf-8")
    other = _welcome(runtime, target, broken, detect_on_open=False)
    qtbot.addWidget(other)
    assert not other.import_check.isEnabled()
    assert "could not be read" in other.import_detail.text() and str(broken) in other.import_detail.text()
    missing = WelcomeDialog(
        runtime, mcp_config=lambda: target, claude_config=tmp_path / "none.json", detect_on_open=False
    )
    qtbot.addWidget(missing)
    assert not missing.import_check.isEnabled() and "No Claude Desktop configuration" in missing.import_detail.text()


def test_welcome_detects_a_local_server_when_it_opens(qtbot, qloop, llm_server, tmp_path):
    dialog = WelcomeDialog(FakeRuntime(ProviderSettings()), mcp_config=lambda: None, claude_config=tmp_path / "x.json")
    qtbot.addWidget(dialog)
    running = Preset("loop", "Loopback", llm_server.url, "openai", local=True, needs_key=False)
    dialog.local_candidates = (Preset("gone", "Gone", "http://127.0.0.1:9/v1", "openai", local=True), running)
    dialog.show()
    qtbot.waitUntil(lambda: dialog.detect_status.text().startswith("Found"), timeout=5000)
    assert "selected it" in dialog.detect_status.text()
    assert dialog.base_url.text() == llm_server.url and dialog.model.currentText() == "test-model"


def test_detection_leaves_a_form_the_user_already_changed(qtbot, qloop, llm_server, tmp_path):
    dialog = _welcome(FakeRuntime(ProviderSettings()), None, tmp_path / "x.json", detect_on_open=False)
    qtbot.addWidget(dialog)
    dialog.local_candidates = (Preset("loop", "Loopback", llm_server.url, "openai", local=True, needs_key=False),)
    dialog.show()
    dialog.base_url.clear()
    qtbot.keyClicks(dialog.base_url, "https://api.deepseek.com")  # typed while the probe was under way
    dialog.auto_detect()
    qtbot.waitUntil(lambda: dialog.detect_status.text().startswith("Found"), timeout=5000)
    assert "pick it under Provider" in dialog.detect_status.text()
    assert dialog.base_url.text() == "https://api.deepseek.com"


def test_first_run_in_the_window_opens_the_welcome_screen(qtbot, qloop):
    win = MainWindow()
    qtbot.addWidget(win)
    win.attach_runtime(FakeRuntime(ProviderSettings()))
    assert isinstance(win.provider_dialog, WelcomeDialog) and win.provider_dialog.isVisible()


def test_the_welcome_screen_has_a_visible_edge_against_the_window(qtbot, qloop, tmp_path):
    """Without a window manager's frame (and in a window of the same colour) the dialog had no edge: its
    border, the tokens' control boundary, is painted on all four sides."""
    from PySide6.QtGui import QColor

    from desktop_app.ui.theme.stylesheet import stylesheet
    from desktop_app.ui.theme.tokens import THEMES

    dialog = _welcome(FakeRuntime(ProviderSettings()), None, _claude_config(tmp_path))
    qtbot.addWidget(dialog)
    dialog.setStyleSheet(stylesheet("light", 10.0))
    dialog.resize(700, 560)
    image = dialog.grab().toImage()
    edge = QColor(THEMES["light"].border)
    w, h = image.width(), image.height()
    ratio = dialog.devicePixelRatioF()
    for x, y in ((0, h // 2), (w - 1, h // 2), (w // 2, 0), (w // 2, h - 1)):
        assert image.pixelColor(x, y).name() == edge.name(), (x, y, image.pixelColor(x, y).name(), ratio)
