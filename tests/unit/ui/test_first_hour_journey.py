"""The first hour, walked as a new user walks it (#20): the real app in-process (``App`` started as ``main()``
starts it: the theme, ``MainWindow(defer_rest=True)``, geometry, first paint, ``build_rest``, the dock layout,
the desktop shell, ``App.run`` on the qasync loop, so the real assembly: settings, mcp.json, hooks, keyring,
Host, Runtime, store), the loopback SSE server for the model, real stdio MCP servers (``mcp-server-time``,
``tests/support/crm_server.py`` and, added through the Servers dock's Add… form, a 60-tool server), a command
hook from settings.json, and the in-memory keyring (and, for the welcome's copy, no working keyring at all).

Each step asserts what a person sees (which widgets are visible, their texts and states), and is driven with
mouse clicks and key presses on the real widgets:

fresh home → welcome → provider (loopback URL, fetched model, a WRONG key) → a prompt → 401 → the key banner
→ "Enter key" opens the provider dialog (a second dialog this session: #20 item 1) → the right key → Retry → a
streamed answer with reasoning (labelled by time) and rendered Markdown → a tool call → Approve on its card →
a PreToolUse hook narrowed the arguments: the card shows the ones that ran with the hook's diff → a 60-tool
server added by Add… → a new chat's request still names every server's tools → Tools panel word search and
its "no match" text → Regenerate (‹ 2/2 ›) → Edit → Ctrl+Q → restart on the same home: geometry, docks and
both kinds of versions back → the quick prompt answers and names its provider.
"""

from __future__ import annotations

import gc
import json
import logging
import re
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import keyring
import keyring.backends.fail
import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QLabel, QWidget

from desktop_app.app import App, _install_shell, build_parser
from desktop_app.paths import AppPaths, app_paths
from desktop_app.ui.chat.answer_versions import AnswerVersions
from desktop_app.ui.chat.blocks import AnswerBlock, NoticeLine, ReasoningBlock, UserMessageBlock
from desktop_app.ui.chat.tool_card import ToolCard
from desktop_app.ui.dialogs.provider import ProviderDialog
from desktop_app.ui.dialogs.welcome import WelcomeDialog
from desktop_app.ui.theme import themes as theme
from desktop_app.ui.window.key_banner import REFUSED, SESSION_ONLY_KEY
from desktop_app.ui.window.main_window import MainWindow
from tests.support.llm_server import ScriptedLLMServer, error_reply, text_reply, tool_call_reply

pytestmark = pytest.mark.integration

SUPPORT = Path(__file__).resolve().parents[2] / "support"
TIME_SERVER = Path(sys.executable).with_name("mcp-server-time")
WRONG_KEY = "sk-wrong-0000000000000000"
RIGHT_KEY = "sk-right-1111111111111111"
BULK_DESCRIPTION = "Bulk operation number {n}: exports, imports and reconciles records in the warehouse."
NARROWED = {"updated_input": {"name": "Ada", "fields": "public"}, "reason": "public fields only"}
MARKDOWN = "## Tokyo\n\nIt is **09:30** in Tokyo.\n\n```python\nprint('09:30')\n```\n"
REASONING = "The user wants the time in Tokyo. Tokyo is UTC+9."
SIZE = (796, 580)  # inside the offscreen screen (800 × 800): Qt fits a restored window to the screen
START_S = 30_000  # ms: the runtime's import and the stdio servers' start on a busy 2-core machine


# ---- the app, started as main() starts it --------------------------------------------------------------


class Launched:
    """One start of the app on the current SWITCHBOARD_HOME, as ``desktop_app.app.main`` does it."""

    def __init__(self, qtbot: Any, qloop: Any) -> None:
        self.qtbot = qtbot
        self.paths: AppPaths = app_paths().ensure()
        theme.install()
        window = MainWindow(defer_rest=True)
        qtbot.addWidget(window)
        self.state_file = self.paths.config_dir / "window.ini"
        window.restore_geometry(self.state_file)
        window.show()
        qtbot.waitExposed(window)  # main(): the first paint, on Qt's own loop
        window.wait_for_ready = True  # main(): the docks, their layout and the welcome screen after ready
        window.build_rest()
        self.window = window
        self.app = App(QApplication.instance(), window, self.paths, time.perf_counter(), smoke=False)  # type: ignore[arg-type]
        self.app.state_file = self.state_file
        _install_shell(self.app, build_parser().parse_args([]), self.paths, None)
        self.run = qloop.create_task(self.app.run())
        qtbot.waitUntil(lambda: window.controller is not None, timeout=START_S)
        qtbot.waitUntil(lambda: window.mcp_config_path is not None, timeout=START_S)  # and what follows ready

    def quit(self) -> None:
        """Quit if the test did not (a failed step): the ordered shutdown, then forget the app's signal."""
        if not self.run.done():
            self.app.request_quit()
            self.qtbot.waitUntil(self.run.done, timeout=START_S)
        QApplication.instance().lastWindowClosed.disconnect(self.app.request_quit)


@pytest.fixture
def look() -> Iterator[None]:
    """The theme ``main()`` installs, taken back afterwards (the palette and stylesheet are process-wide)."""
    qapp = QApplication.instance()
    palette, sheet = QApplication.palette(), qapp.styleSheet()
    yield
    theme.uninstall()
    qapp.setStyleSheet(sheet)
    QApplication.setPalette(palette)


@pytest.fixture
def fresh_user(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A new user's account: an empty home folder (no Claude Desktop config to import from)."""
    home = tmp_path / "user"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    return home


# ---- what a person does -----------------------------------------------------------------------------------


def _click(qtbot: Any, widget: QWidget) -> None:
    """Click ``widget`` where the user would: scrolled into view in the transcript, on top at its centre."""
    window = widget.window()

    def on_screen() -> bool:
        if isinstance(window, MainWindow) and window.view.isAncestorOf(widget):
            window.view.ensureWidgetVisible(widget, 0, 0)
        if not (widget.isVisible() and widget.isEnabled()):
            return False
        return window.childAt(widget.mapTo(window, widget.rect().center())) is widget

    qtbot.waitUntil(on_screen, timeout=5000)
    qtbot.mouseClick(widget, Qt.MouseButton.LeftButton)


def _hover(qtbot: Any, block: QWidget, actions: Any) -> None:
    """Move the pointer over a message: its actions show."""
    window = block.window()
    assert isinstance(window, MainWindow)
    window.view.ensureWidgetVisible(block, 0, 0)
    QTest.mouseMove(block, QPoint(block.width() // 2, 4))
    qtbot.waitUntil(lambda: actions.revealed, timeout=3000)


def _type(qtbot: Any, field: QWidget, text: str, *, replace: bool = False) -> None:
    field.setFocus()
    if replace:
        qtbot.keyClick(field, Qt.Key.Key_A, Qt.KeyboardModifier.ControlModifier)
        qtbot.keyClick(field, Qt.Key.Key_Backspace)
    qtbot.keyClicks(field, text)


def _shortcut(qtbot: Any, window: MainWindow, key: Qt.Key) -> None:
    """Ctrl+<key> pressed on the keyboard: it goes to the focused widget of the active window."""
    window.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is window, timeout=3000)
    target = QApplication.focusWidget() or window
    qtbot.keyClick(target, key, Qt.KeyboardModifier.ControlModifier)


def _wait_for(qtbot: Any, read: Callable[[], object], expected: object, timeout: int = 5000) -> None:
    """Wait until ``read()`` shows ``expected``; on a timeout, say what it showed instead."""
    try:
        qtbot.waitUntil(lambda: read() == expected, timeout=timeout)
    except Exception:
        raise AssertionError(f"expected {expected!r}, the app shows {read()!r}") from None


def _servers(window: MainWindow) -> str:
    """The status bar's MCP indicator, for the user's own servers ("MCP: 2 ready", the built-ins left out)."""
    return re.sub(r" · \d+ built-in$", "", window.servers_dock.indicator.text())


def _send(qtbot: Any, window: MainWindow, prompt: str) -> None:
    _type(qtbot, window.composer.edit, prompt)
    _click(qtbot, window.composer.button)


def _idle(window: MainWindow) -> Callable[[], bool]:
    return lambda: window.controller is not None and not window.controller.busy


def _shown(window: MainWindow, kind: type) -> list[Any]:
    return [b for b in window.view.blocks() if isinstance(b, kind) and not b.isHidden()]


def _system(body: dict[str, Any]) -> str:
    return "\n".join(m["content"] for m in body["messages"] if m["role"] == "system")


def _tool_names(body: dict[str, Any]) -> set[str]:
    return {t["function"]["name"] for t in body.get("tools") or []}


def _mcp_json(paths: AppPaths) -> None:
    servers = {
        "time": {"command": str(TIME_SERVER), "args": ["--local-timezone", "Asia/Tokyo"]},
        "crm": {"command": sys.executable, "args": [str(SUPPORT / "crm_server.py")]},
    }
    paths.mcp_config_file.write_text(json.dumps({"mcpServers": servers}), encoding="utf-8")


def _settings_with_hook(paths: AppPaths) -> None:
    """Only the hooks: the provider is still unset (the welcome screen comes), as after copying a hooks file."""
    hook = {
        "type": "command",
        "command": f"echo '{json.dumps(NARROWED)}'",
        "match": "mcp__crm__lookup",
        "description": "privacy",
    }
    paths.settings_file.write_text(json.dumps({"hooks": {"PreToolUse": [hook]}}), encoding="utf-8")


# ---- the journey ------------------------------------------------------------------------------------------


def test_the_first_hour(qtbot, qloop, llm_server: ScriptedLLMServer, look, fresh_user, caplog) -> None:
    caplog.set_level(logging.WARNING, logger="asyncio")
    paths = app_paths().ensure()
    _mcp_json(paths)
    _settings_with_hook(paths)
    first = Launched(qtbot, qloop)
    try:
        window = first.window
        conversation = _first_session(qtbot, first, llm_server)
    finally:
        first.quit()
    second = Launched(qtbot, qloop)  # the restart: a new App, window and runtime on the same home
    try:
        _second_session(qtbot, second, llm_server, conversation, window_before=window)
    finally:
        second.quit()
    for launched in (first, second):  # every stdio server stopped with its app
        assert launched.app.assembly is not None
        assert all(s.state != "ready" for s in launched.app.assembly.host.states().values())
    gc.collect()
    assert not [r.getMessage() for r in caplog.records if r.name == "asyncio"]  # no task destroyed pending


def _first_session(qtbot: Any, launched: Launched, llm: ScriptedLLMServer) -> str:
    window = launched.window

    # Fresh home: the welcome screen, saying truthfully where the key goes.
    qtbot.waitUntil(lambda: isinstance(window.provider_dialog, WelcomeDialog), timeout=START_S)
    welcome = window.provider_dialog
    assert isinstance(welcome, WelcomeDialog)
    qtbot.waitUntil(welcome.isVisible, timeout=5000)
    assert welcome.windowTitle() == "Welcome to Switchboard"
    intro = welcome.findChild(QLabel, "providerIntro")
    assert intro is not None and "The API key is stored in the system keyring, never in a file." in intro.text()
    assert welcome.keyring_warning.isHidden()  # a keyring works: no red warning under the key
    assert welcome.preset.currentText() != "Custom" and welcome.base_url.text().startswith("https://")
    assert not welcome.import_check.isEnabled() and "No Claude Desktop configuration" in welcome.import_detail.text()
    assert window.status.text() == "Choose a model provider to start (Settings → Provider…)"

    # The provider: the loopback URL typed, the model fetched from it, a wrong key.
    _type(qtbot, welcome.base_url, llm.url, replace=True)
    assert welcome.preset.currentText() == "Custom"
    _click(qtbot, welcome.fetch_button)
    qtbot.waitUntil(lambda: welcome.fetch_status.text() == "1 model available.", timeout=10_000)
    assert welcome.model.currentText() == "test-model" and welcome.fetch_status.isVisible()
    _type(qtbot, welcome.api_key, WRONG_KEY)
    start = welcome.buttons.button(welcome.buttons.StandardButton.Ok)
    assert start.text() == "&Start using Switchboard"
    _click(qtbot, start)
    qtbot.waitUntil(lambda: window.provider_dialog is None, timeout=5000)  # closed, and deleted by Qt
    assert not window.key_banner.banner.isVisible()
    _wait_for(qtbot, lambda: _servers(window), "MCP: 2 ready", START_S)

    # A prompt with the wrong key: the server answers 401, the banner asks for the key.
    llm.enqueue(error_reply(401, {"error": {"message": "Incorrect API key provided"}}))
    _send(qtbot, window, "What time is it in Tokyo?")
    banner = window.key_banner.banner
    qtbot.waitUntil(banner.isVisible, timeout=10_000)
    assert banner.text == REFUSED and banner.enter_button.isVisible()
    qtbot.waitUntil(_idle(window), timeout=5000)
    [error] = [n for n in _shown(window, NoticeLine) if n.kind == "error"]
    assert "401" in error.text() and WRONG_KEY not in error.text()
    assert llm.requests[0].headers["authorization"] == f"Bearer {WRONG_KEY}"

    # Enter key: the provider dialog opens (the second provider dialog of the session: #20 item 1).
    _click(qtbot, banner.enter_button)
    qtbot.waitUntil(lambda: window.provider_dialog is not None and window.provider_dialog.isVisible(), timeout=5000)
    dialog = window.provider_dialog
    assert type(dialog) is ProviderDialog and dialog.windowTitle() == "Model provider"
    assert dialog.base_url.text() == llm.url and dialog.model.currentText() == "test-model"
    assert dialog.api_key.placeholderText() == "A key is stored in the keyring for this URL — leave empty to keep it"
    _type(qtbot, dialog.api_key, RIGHT_KEY)
    _click(qtbot, dialog.buttons.button(dialog.buttons.StandardButton.Ok))
    qtbot.waitUntil(lambda: window.provider_dialog is None, timeout=5000)
    assert not banner.isVisible()

    # Retry: the first streamed answer, with reasoning (labelled by time) and Markdown rendered.
    llm.enqueue(text_reply(MARKDOWN, reasoning=REASONING))
    retry = window.view.retry_run_row
    assert retry is not None
    _click(qtbot, retry.findChild(QWidget, "retryRunButton"))
    qtbot.waitUntil(lambda: len(_shown(window, AnswerBlock)) == 1, timeout=10_000)
    qtbot.waitUntil(_idle(window), timeout=10_000)
    assert llm.requests[1].headers["authorization"] == f"Bearer {RIGHT_KEY}"
    [reasoning] = _shown(window, ReasoningBlock)
    assert re.fullmatch(r"Thought for \d+ s", reasoning.toggle.text()), reasoning.toggle.text()
    assert "characters" not in reasoning.toggle.text() and not reasoning.expanded
    assert reasoning.text == REASONING
    [answer] = _shown(window, AnswerBlock)
    shown_text = answer.toPlainText()
    assert "Tokyo" in shown_text and "It is 09:30 in Tokyo." in shown_text
    assert "##" not in shown_text and "**" not in shown_text and "```" not in shown_text  # rendered, not raw
    [prose] = answer.prose_views()[:1]
    heading = prose.document().firstBlock()
    assert heading.text() == "Tokyo" and heading.blockFormat().headingLevel() == 2
    [code] = answer.code_blocks()
    assert code.language == "python" and code.code.strip() == "print('09:30')"
    assert window.status.text() == "Ready"

    # A tool call: an approval card; Approve by mouse; a PreToolUse hook narrowed the arguments.
    llm.enqueue(
        tool_call_reply([("call_1", "mcp__crm__lookup", {"name": "Ada", "fields": "all"})]),
        text_reply("Ada Lovelace has been a customer since 1843."),
    )
    _send(qtbot, window, "Look up Ada in the CRM, all fields.")
    qtbot.waitUntil(lambda: any(c.state == "waiting" for c in _shown(window, ToolCard)), timeout=10_000)
    [card] = _shown(window, ToolCard)
    assert card.status.text() == "Waiting for approval" and card.approve_button.isVisible()
    assert '"fields": "all"' in card.arguments.text()  # what the model asked for, before the hook
    assert window.status.text() == "Waiting for your approval: lookup"
    _click(qtbot, card.approve_button)
    qtbot.waitUntil(lambda: card.has_result, timeout=15_000)
    qtbot.waitUntil(_idle(window), timeout=10_000)
    assert not card.approve_button.isVisible() and not card.expanded  # answered, folded to its summary
    _click(qtbot, card.toggle)  # unfold it to read what ran
    assert card.expanded and card.result.isVisible()
    assert card.result.text() == "Ada Lovelace, customer since 1843 (fields=public)"
    assert '"fields": "public"' in card.arguments.text() and '"all"' not in card.arguments.text()
    changes = card.args.changes
    assert changes.isVisible()
    plain = changes.text().replace("&nbsp;", " ")
    assert "Changed by hook privacy" in plain and '− "fields": "all"' in plain and '+ "fields": "public"' in plain
    [chip] = card.hook_notices.chips
    assert chip.isVisible() and chip.full_text.startswith("Changed by privacy")
    sent = next(m for m in llm.requests[3].json["messages"] if m.get("tool_call_id") == "call_1")
    assert "fields=public" in sent["content"]
    assert _shown(window, AnswerBlock)[-1].text == "Ada Lovelace has been a customer since 1843."

    # A 60-tool server, added through View → Servers (the status bar's MCP indicator) → Add…
    _click(qtbot, window.servers_dock.indicator)
    qtbot.waitUntil(window.servers_dock.isVisible, timeout=3000)
    panel = window.servers_dock.panel
    _click(qtbot, panel.add_button)
    qtbot.waitUntil(
        lambda: panel.server_actions.dialog is not None and panel.server_actions.dialog.isVisible(), timeout=3000
    )
    form = panel.server_actions.dialog
    assert form.windowTitle() == "Add an MCP server" and form.save_button.text() == "Add and start"
    _type(qtbot, form.name, "bulk")
    _type(qtbot, form.command, sys.executable)
    form.args.setFocus()
    for index, line in enumerate([str(SUPPORT / "many_tools_server.py"), "bulk", "60", BULK_DESCRIPTION]):
        if index:
            qtbot.keyClick(form.args, Qt.Key.Key_Return)
        qtbot.keyClicks(form.args, line)
    _click(qtbot, form.save_button)
    _wait_for(qtbot, lambda: _servers(window), "MCP: 3 ready", START_S)
    qtbot.waitUntil(lambda: panel.server_actions.dialog is None, timeout=5000)
    assert "bulk" in json.loads(launched.paths.mcp_config_file.read_text())["mcpServers"]

    # A new chat (Ctrl+N): its request still names every server's tools.
    _shortcut(qtbot, window, Qt.Key.Key_N)
    qtbot.waitUntil(lambda: not _shown(window, AnswerBlock), timeout=3000)
    llm.enqueue(text_reply("It is 09:30 in Tokyo."))
    _send(qtbot, window, "What time is it in Tokyo now?")
    qtbot.waitUntil(lambda: len(_shown(window, AnswerBlock)) == 1, timeout=10_000)
    qtbot.waitUntil(_idle(window), timeout=10_000)
    request = llm.requests[-1].json
    index, names = _system(request), _tool_names(request)
    assert "<available-deferred-tools>" in index  # 60 more tools: deferral is on
    for tool in ("mcp__time__get_current_time", "mcp__time__convert_time", "mcp__crm__lookup", "mcp__crm__deals"):
        assert tool in index or tool in names, tool
    assert "[server: bulk] 60 tools" in index and "tool_search" in names
    conversation = window.controller.conversation_id
    assert conversation is not None

    # The user closes View → Servers and makes the window smaller (it fits the offscreen 800 × 800 screen,
    # where Qt would fit a restored window); then the Tools panel (Ctrl+K) opens inside it: the window keeps
    # its size and the conversation list its minimum (#20 item 6).
    _click(qtbot, window.servers_dock.indicator)
    qtbot.waitUntil(lambda: window.servers_dock.isHidden() and window.minimumWidth() <= SIZE[0], timeout=3000)
    window.resize(*SIZE)  # the user drags the window's corner
    _wait_for(qtbot, lambda: (window.width(), window.height()), SIZE, 3000)
    _shortcut(qtbot, window, Qt.Key.Key_K)
    tools = window.tools_dock.panel
    qtbot.waitUntil(lambda: window.tools_dock.isVisible() and tools.search.hasFocus(), timeout=3000)
    _wait_for(qtbot, lambda: (window.width(), window.height()), SIZE, 3000)
    assert window.conversations_dock.width() >= 200

    # Tools panel: words find tools; nonsense says so.
    _type(qtbot, tools.search, "warehouse 07")
    qtbot.waitUntil(lambda: tools.count_label.text().startswith("1 of "), timeout=5000)
    item = tools.find_item("mcp__bulk__tool_007")
    assert item is not None and tools.tree.isVisible() and item.text(0) == "tool_007"
    assert item.text(1) in ("in index", "hidden")  # what the model sees of it this turn
    _type(qtbot, tools.search, "current time", replace=True)
    qtbot.waitUntil(lambda: tools.find_item("mcp__time__get_current_time") is not None, timeout=5000)
    assert tools.find_item("mcp__time__get_current_time").text(1) == "in index"
    _type(qtbot, tools.search, "zebra quantum", replace=True)
    qtbot.waitUntil(tools.empty.isVisible, timeout=5000)
    assert tools.empty.text().startswith("No tools match “zebra quantum”.") and not tools.tree.isVisible()
    _type(qtbot, tools.search, "", replace=True)
    qtbot.waitUntil(tools.tree.isVisible, timeout=5000)

    # Regenerate (the answer's own action, under the pointer): ‹ 2/2 ›.
    llm.enqueue(text_reply("It is half past nine in the morning in Tokyo."))
    [answer] = _shown(window, AnswerBlock)
    _hover(qtbot, answer, answer.actions_row)
    _click(qtbot, answer.actions_row.regenerate_button)
    qtbot.waitUntil(
        lambda: [a.text for a in _shown(window, AnswerBlock)] == ["It is half past nine in the morning in Tokyo."],
        timeout=10_000,
    )
    qtbot.waitUntil(_idle(window), timeout=10_000)
    qtbot.waitUntil(lambda: _switchers(window) == ["2/2"], timeout=5000)

    # Edit the prompt (inline, Send): the prompt gets ‹ 2/2 ›.
    llm.enqueue(text_reply("In Kyoto it is 09:30 too."))
    [prompt] = _shown(window, UserMessageBlock)
    _hover(qtbot, prompt, prompt.actions_row)
    _click(qtbot, prompt.actions_row.edit_button)
    assert prompt.editor.isVisible() and prompt.editor.toPlainText() == "What time is it in Tokyo now?"
    _type(qtbot, prompt.editor, "What time is it in Kyoto now?", replace=True)
    _click(qtbot, prompt.edit_send_button)
    qtbot.waitUntil(
        lambda: [a.text for a in _shown(window, AnswerBlock)] == ["In Kyoto it is 09:30 too."], timeout=10_000
    )
    qtbot.waitUntil(_idle(window), timeout=10_000)
    [prompt] = _shown(window, UserMessageBlock)
    qtbot.waitUntil(lambda: prompt.versions.isVisible(), timeout=5000)
    assert prompt.text == "What time is it in Kyoto now?" and prompt.version_label.text() == "2/2"

    # The layout the user made (the Tools dock open, the Servers dock closed, the smaller window), then Ctrl+Q.
    assert window.tools_dock.isVisible() and window.servers_dock.isHidden()
    assert (window.width(), window.height()) == SIZE
    assert not launched.state_file.exists()
    _shortcut(qtbot, window, Qt.Key.Key_Q)
    assert window.isHidden()  # at once, before the servers close
    assert launched.state_file.is_file()
    qtbot.waitUntil(launched.run.done, timeout=START_S)
    assert launched.run.result() == 0
    return conversation


def _switchers(window: MainWindow) -> list[str]:
    rows = [row for row in window.view.findChildren(AnswerVersions) if row.isVisibleTo(window)]
    return [row.version_label.text() for row in rows]


def _second_session(
    qtbot: Any, launched: Launched, llm: ScriptedLLMServer, conversation: str, *, window_before: MainWindow
) -> None:
    window, shell = launched.window, launched.app.shell
    assert window is not window_before
    # Restored: the docks, and the size it was quit at (the Tools dock gives way when the runtime's composer
    # buttons widen the chat column, instead of the window growing past it).
    _wait_for(qtbot, lambda: (window.width(), window.height()), SIZE, 3000)
    assert window.tools_dock.isVisible() and window.servers_dock.isHidden()
    assert window.provider_dialog is None and not window.key_banner.banner.isVisible()  # no welcome, no banner
    _wait_for(qtbot, lambda: _servers(window), "MCP: 3 ready", START_S)

    # The conversation from the list: the edited prompt (2/2); ‹ brings back the first one with its two answers.
    conversations = window.conversations
    qtbot.waitUntil(lambda: conversations.item_for(conversation) is not None, timeout=5000)
    item = conversations.item_for(conversation)
    qtbot.mouseClick(
        conversations.list.viewport(), Qt.MouseButton.LeftButton, pos=conversations.list.visualItemRect(item).center()
    )
    qtbot.waitUntil(lambda: window.controller.conversation_id == conversation, timeout=5000)
    [prompt] = _shown(window, UserMessageBlock)
    assert prompt.text == "What time is it in Kyoto now?" and prompt.version_label.text() == "2/2"
    assert [a.text for a in _shown(window, AnswerBlock)] == ["In Kyoto it is 09:30 too."]
    _hover(qtbot, prompt, prompt.actions_row)
    _click(qtbot, prompt.previous_version_button)
    qtbot.waitUntil(lambda: _shown(window, UserMessageBlock)[0].text == "What time is it in Tokyo now?", timeout=5000)
    assert _shown(window, UserMessageBlock)[0].version_label.text() == "1/2"
    assert [a.text for a in _shown(window, AnswerBlock)] == ["It is half past nine in the morning in Tokyo."]
    qtbot.waitUntil(lambda: _switchers(window) == ["2/2"], timeout=5000)

    # The quick prompt: typed, Enter; it answers and names its provider.
    assert shell is not None
    llm.enqueue(text_reply("Quick: 09:30."))
    shell.show_quick()
    quick = shell.quick
    qtbot.waitUntil(lambda: quick.isVisible() and quick.controller is not None, timeout=5000)
    assert quick.composer.model_button.text() == "test-model"
    assert "No provider" not in quick.composer.model_button.text()
    _type(qtbot, quick.composer.edit, "Time in Tokyo, quickly?")
    qtbot.keyClick(quick.composer.edit, Qt.Key.Key_Return)
    qtbot.waitUntil(
        lambda: [b.text for b in quick.view.blocks() if isinstance(b, AnswerBlock)] == ["Quick: 09:30."],
        timeout=10_000,
    )
    qtbot.waitUntil(lambda: not quick.controller.busy, timeout=10_000)
    assert quick.composer.model_button.text() == "test-model"
    assert llm.requests[-1].headers["authorization"] == f"Bearer {RIGHT_KEY}"  # the key outlived the restart
    assert llm.requests[-1].json["messages"][-1]["content"].startswith("Time in Tokyo, quickly?")
    assert (window.width(), window.height()) == SIZE  # and it stays so


def test_the_welcome_without_a_keyring_promises_no_keyring(qtbot, qloop, look, fresh_user) -> None:
    """No keyring works on this computer: the welcome says the key is never written to a file and that it is
    kept for this session only, not that it goes to the keyring."""
    keyring.set_keyring(keyring.backends.fail.Keyring())  # the autouse fixture puts the memory keyring back
    launched = Launched(qtbot, qloop)
    try:
        window = launched.window
        qtbot.waitUntil(lambda: isinstance(window.provider_dialog, WelcomeDialog), timeout=START_S)
        welcome = window.provider_dialog
        qtbot.waitUntil(welcome.isVisible, timeout=5000)
        intro = welcome.findChild(QLabel, "providerIntro")
        assert intro is not None and "The API key is never written to a file." in intro.text()
        assert "keyring" not in intro.text()
        assert welcome.keyring_warning.isVisible() and welcome.keyring_warning.text() == SESSION_ONLY_KEY
        _click(qtbot, welcome.buttons.button(welcome.buttons.StandardButton.Cancel))  # "Later"
        qtbot.waitUntil(lambda: window.provider_dialog is None, timeout=5000)
        assert window.composer.isEnabled()
    finally:
        launched.quit()
