"""Empty states in the real MainWindow with the real Runtime and Host: no provider, no keyring, no
conversations, no servers, no tools. Each appears when its condition holds, and its one action does what
it says."""

from __future__ import annotations

from pathlib import Path

import keyring
import pytest
from keyring.backends import fail
from PySide6.QtCore import Qt

from desktop_app.runtime.credentials import Credentials
from desktop_app.runtime.host import Host, load_mcp_config
from desktop_app.runtime.service import Runtime
from desktop_app.runtime.settings import ProviderSettings, Settings
from desktop_app.runtime.store import Store
from desktop_app.ui.widget_lists import top_level_widgets
from desktop_app.ui.window.main_window import MainWindow

LOCAL = ProviderSettings(base_url="http://127.0.0.1:9/v1", model="m")


def _window(qtbot, tmp_path: Path, settings: Settings, credentials: Credentials | None = None):
    mcp_json = tmp_path / "mcp.json"
    mcp_json.write_text('{"mcpServers": {}}\n', encoding="utf-8")
    credentials = credentials or Credentials()
    host = Host(load_mcp_config(mcp_json), credentials=credentials)
    runtime = Runtime(settings=settings, host=host, credentials=credentials)
    win = MainWindow()
    qtbot.addWidget(win)
    win.resize(1000, 700)
    win.attach_runtime(runtime)
    win.attach_host(host, credentials=credentials, mcp_config=mcp_json)
    win.show()
    qtbot.waitExposed(win)
    return win, runtime


def _close_dialogs() -> None:
    for widget in top_level_widgets():
        if widget.isWindow() and widget.isVisible() and not isinstance(widget, MainWindow):
            widget.close()


def test_no_provider_shows_set_up_a_provider_which_opens_the_provider_dialog(qtbot, qloop, tmp_path, memory_keyring):
    win, runtime = _window(qtbot, tmp_path, Settings())
    state = win.empty_states.chat
    welcome = win.provider_dialog
    assert welcome is not None and welcome.objectName() == "welcomeDialog" and welcome.isVisible()
    assert win.empty_states.chat_reason == "provider" and not state.isVisible()  # one call to action at a time
    assert not win.view.empty_hint.text()
    welcome.reject()  # "Later": the window's own empty state says what to do next
    assert state.isVisible()
    assert state.button.text() == "Set up a provider" and not win.view.empty_hint.text()
    qtbot.mouseClick(state.button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: win.provider_dialog is not None and win.provider_dialog.isVisible())
    runtime.configure_provider(LOCAL, None)  # what the dialog's Save does, then it says so
    win.provider_dialog.configured.emit()
    assert win.empty_states.chat_reason is None and not state.isVisible()
    assert win.view.empty_hint.isVisible() and win.view.empty_hint.text()
    _close_dialogs()


def test_no_keyring_and_no_key_shows_enter_the_key(qtbot, qloop, tmp_path, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    old = keyring.get_keyring()
    keyring.set_keyring(fail.Keyring())
    try:
        credentials = Credentials()
        monkeypatch.setattr(credentials, "check", lambda: False)  # the probe's answer with no keyring backend
        settings = Settings(provider=ProviderSettings(base_url="https://api.openai.com/v1", model="gpt-4o"))
        win, _runtime = _window(qtbot, tmp_path, settings, credentials)
        state = win.empty_states.chat
        assert win.empty_states.chat_reason == "keyring" and state.isVisible()
        assert state.button.text() == "Enter the key" and "keyring" in state.text.text()
        qtbot.mouseClick(state.button, Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda: win.provider_dialog is not None and win.provider_dialog.isVisible())
        _close_dialogs()
    finally:
        keyring.set_keyring(old)


def test_a_configured_provider_shows_the_ordinary_hint(qtbot, qloop, tmp_path, memory_keyring):
    win, _runtime = _window(qtbot, tmp_path, Settings(provider=LOCAL))
    assert win.empty_states.chat_reason is None and not win.empty_states.chat.isVisible()
    assert win.view.empty_hint.isVisible() and win.view.empty_hint.text().startswith("Ask anything")


def test_no_conversations_shows_new_chat_in_the_list(qtbot, qloop, tmp_path, memory_keyring):
    win, _runtime = _window(qtbot, tmp_path, Settings(provider=LOCAL))
    store = Store.open(tmp_path / "switchboard.db")
    try:
        win.attach_store(store)
        state = win.empty_states.conversations
        assert state.isVisible() and not win.conversations.list.isVisible()
        win.conversations.search.setFocus()
        qtbot.mouseClick(state.button, Qt.MouseButton.LeftButton)
        qtbot.waitUntil(win.composer.edit.hasFocus)
        store.create_conversation(title="Trip plans", base_url="http://x/v1", model="m")
        win.conversations.refresh()
        assert not state.isVisible() and win.conversations.list.isVisible()
        win.conversations.search.setText("nothing like this")  # no match is the search's note, not this state
        qtbot.waitUntil(lambda: not win.conversations.conversation_ids())
        assert not state.isVisible()
    finally:
        store.close()


def test_no_servers_of_ones_own_shows_add_a_server_which_opens_the_form(qtbot, qloop, tmp_path, memory_keyring):
    win, _runtime = _window(qtbot, tmp_path, Settings(provider=LOCAL))
    win.servers_dock.show()
    state = win.empty_states.servers
    qtbot.waitUntil(state.isVisible)
    assert state.button.isEnabled() and not win.servers_dock.panel.placeholder.isVisible()
    qtbot.mouseClick(state.button, Qt.MouseButton.LeftButton)
    dialog = win.servers_dock.panel.server_actions.dialog
    assert dialog is not None and dialog.isVisible()
    dialog.close()


def test_no_tools_shows_add_a_server_which_opens_the_servers_panel_and_form(qtbot, qloop, tmp_path, memory_keyring):
    win, _runtime = _window(qtbot, tmp_path, Settings(provider=LOCAL))
    win.tools_dock.show()
    win.tools_dock.panel.refresh()
    state = win.empty_states.tools
    qtbot.waitUntil(state.isVisible)
    assert not win.empty_states.tools_splitter.isVisible() and not win.tools_dock.panel.summary.isVisible()
    qtbot.mouseClick(state.button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(win.servers_dock.isVisible)
    dialog = win.servers_dock.panel.server_actions.dialog
    assert dialog is not None and dialog.isVisible()
    dialog.close()


@pytest.fixture(autouse=True)
def _no_dialogs_left():
    yield
    _close_dialogs()
