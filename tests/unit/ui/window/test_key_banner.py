"""No keyring, no silent loss (UI side): the missing-key banner at start and after a 401, the provider
dialog's and the import's session-only warnings, and "Enter secret…" for a missing ${keyring:…} entry."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import keyring
import keyring.backends.fail
import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDialogButtonBox, QLineEdit, QListWidget

from desktop_app.runtime.credentials import Credentials
from desktop_app.runtime.host import Host, ServerConfig
from desktop_app.runtime.service import Runtime
from desktop_app.runtime.settings import ProviderSettings, Settings
from desktop_app.ui.dialogs.provider import ProviderDialog
from desktop_app.ui.extensions.import_dialog import SESSION_ONLY_SECRETS, McpImporter
from desktop_app.ui.servers.panel import ServersPanel
from desktop_app.ui.window.key_banner import REFUSED, SESSION_ONLY_KEY
from desktop_app.ui.window.main_window import MainWindow
from tests.support.fakes import FakeHost
from tests.support.llm_server import error_reply

DEEPSEEK = ProviderSettings(base_url="https://api.deepseek.com", model="deepseek-chat", dialect="deepseek")


def _window(qtbot, runtime: Runtime) -> MainWindow:
    win = MainWindow()
    qtbot.addWidget(win)
    win.attach_runtime(runtime)
    win.show()
    qtbot.waitExposed(win)
    return win


def test_a_missing_key_at_start_shows_the_banner_and_enter_key_fixes_it(qtbot, qloop, tmp_path: Path) -> None:
    runtime = Runtime(settings=Settings(provider=DEEPSEEK), host=FakeHost(), settings_path=tmp_path / "s.json")
    win = _window(qtbot, runtime)
    banner = win.key_banner.banner
    assert banner.isVisible() and banner.text == "DeepSeek needs an API key and none is set. Enter it to start."
    assert win.provider_dialog is None  # a banner, not a dialog
    qtbot.mouseClick(banner.enter_button, Qt.MouseButton.LeftButton)
    dialog = win.provider_dialog
    assert dialog is not None and dialog.isVisible()
    dialog.api_key.setText("  sk-entered-key-123456\r\n")
    qtbot.mouseClick(dialog.buttons.button(QDialogButtonBox.StandardButton.Ok), Qt.MouseButton.LeftButton)
    assert not banner.isVisible()
    assert runtime.api_key() == "sk-entered-key-123456"  # trimmed before it is stored


def test_a_run_without_a_key_says_what_to_do_in_the_window_not_at_the_command_line(qtbot, qloop) -> None:
    from desktop_app.ui.chat.blocks import NoticeLine

    runtime = Runtime(settings=Settings(provider=DEEPSEEK), host=FakeHost())
    win = _window(qtbot, runtime)
    try:
        win.key_banner.banner.hide()  # dismissed at start: the run itself must say it again
        win.composer.edit.setPlainText("hi")
        qtbot.mouseClick(win.composer.button, Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda: not win.controller.busy, timeout=5000)
        [error] = [b.text() for b in win.view.blocks() if isinstance(b, NoticeLine) and b.kind == "error"]
        assert "No API key is set for https://api.deepseek.com, so nothing was sent." in error
        assert "--api-key-env" not in error and "Enter key button or in Settings → Provider…" in error
        banner = win.key_banner.banner
        assert banner.isVisible() and "--api-key-env" not in banner.text and "Enter key" in banner.text
    finally:
        task = qloop.create_task(runtime.aclose())
        qtbot.waitUntil(task.done)


def test_a_configured_key_shows_no_banner(qtbot, qloop) -> None:
    runtime = Runtime(settings=Settings(provider=DEEPSEEK), host=FakeHost(), api_key_override="sk-present-1234")
    win = _window(qtbot, runtime)
    assert not win.key_banner.banner.isVisible()


def test_a_401_offers_enter_key(qtbot, qloop, llm_server) -> None:
    llm_server.enqueue(error_reply(401, {"error": {"message": "Incorrect API key provided"}}))
    settings = Settings(provider=ProviderSettings(base_url=llm_server.url, model="m"))
    runtime = Runtime(settings=settings, host=FakeHost(), api_key_override="sk-wrong-key-1234")
    win = _window(qtbot, runtime)
    try:
        assert not win.key_banner.banner.isVisible()
        win.composer.edit.setPlainText("hi")
        qtbot.mouseClick(win.composer.button, Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda: not win.controller.busy, timeout=5000)
        assert win.key_banner.banner.isVisible() and win.key_banner.banner.text == REFUSED
        qtbot.mouseClick(win.key_banner.banner.enter_button, Qt.MouseButton.LeftButton)
        assert win.provider_dialog is not None and win.provider_dialog.isVisible()
    finally:
        task = qloop.create_task(runtime.aclose())
        qtbot.waitUntil(task.done)


def test_the_provider_dialog_says_session_only_before_a_key_is_typed(qtbot, qloop) -> None:
    runtime = Runtime(settings=Settings(provider=DEEPSEEK), host=FakeHost())
    dialog = ProviderDialog(runtime)
    qtbot.addWidget(dialog)
    dialog.show()
    assert dialog.keyring_warning.isHidden()  # the test keyring works
    keyring.set_keyring(keyring.backends.fail.Keyring())
    broken = Runtime(settings=Settings(provider=DEEPSEEK), host=FakeHost())
    dialog = ProviderDialog(broken)
    qtbot.addWidget(dialog)
    dialog.show()
    assert dialog.keyring_warning.isVisible() and dialog.keyring_warning.text() == SESSION_ONLY_KEY


def test_the_import_result_says_session_only_first(qtbot, tmp_path: Path) -> None:
    keyring.set_keyring(keyring.backends.fail.Keyring())
    source = tmp_path / "claude.json"
    token = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
    source.write_text(json.dumps({"mcpServers": {"gh": {"command": "x", "env": {"GITHUB_TOKEN": token}}}}))
    parent = MainWindow()
    qtbot.addWidget(parent)
    importer = McpImporter(parent, target=tmp_path / "mcp.json", credentials=Credentials())
    dialog = importer.import_file(source)
    html = dialog.text.toPlainText()
    assert html.startswith(SESSION_ONLY_SECRETS)
    assert token not in html


@pytest.mark.integration
def test_a_missing_keyring_entry_names_it_and_offers_to_enter_it(qtbot, qloop, tmp_path: Path) -> None:
    script = tmp_path / "needs_token.py"
    script.write_text(
        "import os, sys\n"
        "from mcp.server.mcpserver import MCPServer\n"
        "assert os.environ['API_TOKEN'] == 'tok-entered-123456', 'wrong token'\n"
        "server = MCPServer('needs-token', log_level='WARNING')\n"
        "@server.tool()\n"
        "def ping() -> str:\n"
        "    return 'pong'\n"
        "server.run()\n",
        encoding="utf-8",
    )
    config = ServerConfig(command=sys.executable, args=[str(script)], env={"API_TOKEN": "${keyring:mcp:tok:API_TOKEN}"})
    credentials = Credentials()
    host = Host({"tok": config}, credentials=credentials, startup_timeout=30, call_timeout=30)
    panel = ServersPanel()
    qtbot.addWidget(panel)
    panel.secret_prompt.credentials = credentials
    panel.attach(host)
    panel.show()
    start = qloop.create_task(host.start())
    try:
        qtbot.waitUntil(start.done, timeout=30_000)
        prompt = panel.secret_prompt
        assert prompt.isVisible()
        assert prompt.label.text() == "MCP server 'tok' cannot start: the keyring entry 'mcp:tok:API_TOKEN' is not set."
        dialog = prompt.open_dialog()
        assert dialog is not None and dialog.textEchoMode() == dialog.textEchoMode().Password
        dialog.setTextValue("tok-entered-123456")
        dialog.accept()
        assert credentials.get("mcp:tok:API_TOKEN") == "tok-entered-123456"
        qtbot.waitUntil(lambda: panel.servers["tok"].state == "ready", timeout=30_000)
        assert not prompt.isVisible()
    finally:
        close = qloop.create_task(host.aclose())
        qtbot.waitUntil(close.done, timeout=30_000)


def test_the_settings_providers_page_says_session_only_too(qtbot, qloop) -> None:
    from desktop_app.ui.asyncqt import TaskRunner
    from desktop_app.ui.settings.providers_page import ProviderEditor

    keyring.set_keyring(keyring.backends.fail.Keyring())
    runtime = Runtime(settings=Settings(provider=DEEPSEEK), host=FakeHost())
    editor = ProviderEditor("provider", DEEPSEEK, runtime, TaskRunner())
    qtbot.addWidget(editor)
    editor.show()
    assert editor.keyring_warning.isVisible() and editor.keyring_warning.text() == SESSION_ONLY_KEY


def test_without_a_keyring_no_page_says_the_key_is_in_the_keyring(qtbot, qloop, tmp_path: Path) -> None:
    keyring.set_keyring(keyring.backends.fail.Keyring())
    runtime = Runtime(settings=Settings(provider=DEEPSEEK), host=FakeHost(), settings_path=tmp_path / "s.json")
    runtime.configure_provider(DEEPSEEK, "sk-session-only-123456")  # kept in memory for this session
    win = _window(qtbot, runtime)
    settings_window = win.open_settings_window("providers")
    page = settings_window.pages["providers"]
    key = page.findChild(QLineEdit, "providerApiKey")
    assert "keyring" not in key.placeholderText() and "this session only" in key.placeholderText()
    assert "key for this session" in page.findChild(QListWidget).item(0).text()
    win.provider_action.trigger()
    dialog = win.provider_dialog
    assert "keyring" not in dialog.api_key.placeholderText() and "for this session" in dialog.api_key.placeholderText()
