"""The quick prompt on the real Runtime and the loopback SSE server: chips, Enter, a retry, an inline approval,
a streamed answer, "Open in main window", Esc stopping a run; and where it appears.

Sync tests on the already-running ``qloop``; every wait is a qtbot wait on observable state.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from mcp.server.mcpserver import MCPServer
from PySide6.QtCore import QPoint, QRect, Qt
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QCheckBox, QStyle

from desktop_app.runtime.host import Host
from desktop_app.runtime.service import Runtime
from desktop_app.runtime.settings import ProviderSettings, Settings
from desktop_app.runtime.store import Store, attach_store
from desktop_app.ui.chat.blocks import AnswerBlock
from desktop_app.ui.tray.desktop import DesktopShell
from desktop_app.ui.tray.quick_prompt import MIN_VIEW_HEIGHT, TOP_FRACTION
from desktop_app.ui.window.main_window import MainWindow
from tests.support.fakes import card_for
from tests.support.llm_server import DONE, Gate, Reply, chunk, error_reply, split, text_reply, tool_call_reply

RESOURCES = Path(__file__).resolve().parents[4] / "resources"
ANSWER = "It is **12:00** in Paris.\n\n- sunny\n- 21 °C"
CLIPBOARD = "a private note from the clipboard"


def make_clock_server() -> MCPServer:
    server = MCPServer("clock", log_level="WARNING")

    @server.tool(description="The current time in a city.")
    async def clock(city: str) -> str:
        return f"12:00 in {city}"

    return server


def _await(qtbot, loop, coro: Any, timeout: int = 10_000) -> Any:
    task = loop.create_task(coro)
    qtbot.waitUntil(task.done, timeout=timeout)
    return task.result()


def _included(quick) -> list[Any]:
    """What the user attached as context (the clipboard, the selection), not the automatic date and OS."""
    return [item for item in quick.composer.context_items if item.kind in ("clipboard", "selection")]


class Desk:
    def __init__(self, shell: DesktopShell, runtime: Runtime, store: Store) -> None:
        self.shell, self.runtime, self.store = shell, runtime, store
        self.window = shell.window
        self.quick = shell.quick


@pytest.fixture
def desk(qtbot, qloop, llm_server, tmp_path) -> Iterator[Desk]:
    host = Host()
    host.register_builtin("switchboard.clock", make_clock_server)
    _await(qtbot, qloop, host.ensure_connected("switchboard.clock"))
    settings = Settings(provider=ProviderSettings(base_url=llm_server.url, model="test-model"))
    runtime = Runtime(settings=settings, host=host, api_key_override="test-key")
    store = Store.open(tmp_path / "store.db")
    recorder = attach_store(runtime, store)
    window = MainWindow()
    qtbot.addWidget(window)
    window.attach_runtime(runtime)
    window.attach_store(store)
    shell = DesktopShell(
        window, RESOURCES, tmp_path, quit_app=lambda: None, tray_available=False, home=tmp_path / "sbhome"
    )
    shell.attach(runtime, host, store, recorder)
    qtbot.addWidget(shell.quick)
    yield Desk(shell, runtime, store)
    shell.close()
    _await(qtbot, qloop, runtime.aclose())
    recorder.close()
    store.close()


def test_quick_prompt_answers_with_retry_and_inline_approval_then_continues_in_the_main_window(qtbot, desk, llm_server):
    gate = Gate()  # hold the final answer half-way, to see it streaming live
    pieces = split(ANSWER)
    half = len(pieces) // 2
    answer = Reply(
        steps=[
            *(chunk(content=p) for p in pieces[:half]),
            gate,
            *(chunk(content=p) for p in pieces[half:]),
            chunk(finish_reason="stop"),
            DONE,
        ]
    )
    llm_server.enqueue(
        error_reply(503, {"error": {"message": "overloaded"}}),
        tool_call_reply([("call_clock_1", "clock", {"city": "Paris"})]),
        answer,
    )
    QGuiApplication.clipboard().setText(CLIPBOARD)
    quick, window = desk.quick, desk.window
    window.hide()

    desk.shell.show_quick()
    qtbot.waitExposed(quick)
    assert quick.isVisible() and not window.isVisible()
    flags = quick.windowFlags()
    assert flags & Qt.WindowType.FramelessWindowHint and flags & Qt.WindowType.WindowStaysOnTopHint
    assert _included(quick) == []  # nothing attached unless the user includes it
    assert quick.composer.model_button.text() == "test-model"  # the provider in use, not "No provider"

    qtbot.keyClicks(quick.composer.edit, "What time is it in Paris?")
    qtbot.keyClick(quick.composer.edit, Qt.Key.Key_Return)  # Enter sends

    qtbot.waitUntil(lambda: quick.view.retry_line is not None, timeout=10_000)  # the 503 shows a retry
    qtbot.mouseClick(quick.view.retry_line.retry_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(
        lambda: (
            card_for(quick.view, "call_clock_1") is not None
            and not card_for(quick.view, "call_clock_1").buttons.isHidden()
        ),
        timeout=10_000,
    )
    card = card_for(quick.view, "call_clock_1")  # the main window's tool card, inline in the quick prompt
    assert "clock" in card.title.text()
    assert quick.status.text() == "Waiting for your approval: clock"
    qtbot.mouseClick(card.approve_button, Qt.MouseButton.LeftButton)

    qtbot.waitUntil(lambda: quick.view.answer is not None and quick.view.answer.text == "".join(pieces[:half]))
    assert quick.composer.button.text() == "Stop"
    gate.open()
    qtbot.waitUntil(lambda: not quick.controller.busy, timeout=10_000)
    [block] = [b for b in quick.view.blocks() if isinstance(b, AnswerBlock)]
    assert block.text == ANSWER and "12:00 in Paris." in block.toPlainText() and "**" not in block.toPlainText()
    assert card.result.text() == "12:00 in Paris"
    sent = llm_server.requests[-1].json["messages"]
    assert all(CLIPBOARD not in str(m.get("content")) for m in sent)  # the clipboard was not included

    cid = quick.conversation_id
    info = desk.store.get_conversation(cid)
    assert info is not None and info.quick  # stored like any other, marked quick
    assert cid in window.conversations.conversation_ids()  # and listed in the main window

    qtbot.mouseClick(quick.open_main_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(window.isVisible)
    assert not quick.isVisible()
    assert window.controller.conversation_id == cid
    answers = [b for b in window.view.blocks() if isinstance(b, AnswerBlock)]
    assert [a.text for a in answers] == [ANSWER]
    assert card_for(window.view, "call_clock_1") is not None
    assert quick.conversation_id != cid  # the next quick prompt starts afresh

    llm_server.enqueue(text_reply("Still noon."))  # the same conversation goes on in the main window
    qtbot.keyClicks(window.composer.edit, "And now?")
    qtbot.keyClick(window.composer.edit, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
    qtbot.waitUntil(lambda: not window.controller.busy and len(llm_server.requests) == 4, timeout=10_000)
    history = llm_server.requests[-1].json["messages"]
    assert any(m["role"] == "tool" and m["content"] == "12:00 in Paris" for m in history)


def test_the_clipboard_and_the_selection_come_in_only_when_included(qtbot, desk, llm_server):
    llm_server.enqueue(text_reply("Noted."))
    QGuiApplication.clipboard().setText(CLIPBOARD)
    quick = desk.quick
    desk.shell.show_quick()
    qtbot.waitExposed(quick)
    assert _included(quick) == []
    if quick.selection_button.isVisible():  # X11: nothing selected is taken either, until the button is clicked
        assert "Nothing is included unless you click this" in quick.selection_button.toolTip()
    qtbot.mouseClick(quick.composer.clipboard_button, Qt.MouseButton.LeftButton)  # the user includes it
    [item] = _included(quick)
    assert item.kind == "clipboard" and CLIPBOARD in item.text
    qtbot.keyClicks(quick.composer.edit, "Remember this")
    qtbot.keyClick(quick.composer.edit, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: not quick.controller.busy and len(llm_server.requests) == 1, timeout=10_000)
    assert CLIPBOARD in str(llm_server.requests[-1].json["messages"][-1]["content"])


def test_the_provider_button_follows_the_provider_in_use(qtbot, desk):
    quick = desk.quick
    desk.shell.show_quick()
    assert quick.composer.model_button.text() == "test-model"
    quick.dismiss()
    settings = desk.runtime.provider_settings.model_copy(update={"model": "other-model"})
    desk.runtime.configure_provider(settings, None)  # changed in the main window meanwhile
    desk.shell.show_quick()
    assert quick.composer.model_button.text() == "other-model"


def test_a_tray_click_shows_the_approval_waiting_in_the_main_window(qtbot, desk, llm_server):
    from PySide6.QtWidgets import QSystemTrayIcon

    llm_server.enqueue(tool_call_reply([("call_clock_9", "clock", {"city": "Oslo"})]), text_reply("Noon in Oslo."))
    window, shell, quick = desk.window, desk.shell, desk.quick
    window.show()
    qtbot.waitExposed(window)
    qtbot.keyClicks(window.composer.edit, "Time in Oslo?")
    qtbot.keyClick(window.composer.edit, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
    qtbot.waitUntil(
        lambda: (
            card_for(window.view, "call_clock_9") is not None
            and not card_for(window.view, "call_clock_9").buttons.isHidden()
        ),
        timeout=10_000,
    )
    first = window.controller.conversation_id
    window.new_chat_action.trigger()  # the user moved on (the run stops; its call still waits), closed to the tray
    qtbot.waitUntil(lambda: not desk.runtime.is_running(first))
    window.hide()

    shell.tray.icon.activated.emit(QSystemTrayIcon.ActivationReason.Trigger)  # a left click on the tray icon
    assert window.isVisible() and not quick.isVisible()
    assert window.controller.conversation_id == first
    qtbot.waitUntil(  # the waiting approval is what the user sees
        lambda: (
            card_for(window.view, "call_clock_9") is not None
            and not card_for(window.view, "call_clock_9").buttons.isHidden()
        ),
        timeout=10_000,
    )
    card = card_for(window.view, "call_clock_9")
    qtbot.mouseClick(card.approve_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not window.controller.busy, timeout=10_000)

    shell.tray.icon.activated.emit(QSystemTrayIcon.ActivationReason.Trigger)  # nothing waits: the quick prompt
    assert quick.isVisible()


def test_esc_stops_the_run_first_then_closes(qtbot, desk, llm_server):
    gate = Gate()
    llm_server.enqueue(Reply(steps=[chunk(content="Thinking about"), gate, chunk(content=" it"), DONE]))
    quick = desk.quick
    desk.shell.show_quick()
    qtbot.waitExposed(quick)
    qtbot.keyClicks(quick.composer.edit, "Tell me something")
    qtbot.keyClick(quick.composer.edit, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: quick.view.answer is not None and quick.view.answer.text == "Thinking about")
    cid = quick.conversation_id
    assert desk.runtime.is_running(cid)

    qtbot.keyClick(quick.composer.edit, Qt.Key.Key_Escape)
    assert not quick.isVisible()
    qtbot.waitUntil(lambda: not desk.runtime.is_running(cid))
    gate.open()


def test_shift_enter_is_a_new_line_and_the_box_opens_top_centre(qtbot, desk):
    quick = desk.quick
    desk.shell.show_quick()
    qtbot.waitExposed(quick)
    qtbot.keyClicks(quick.composer.edit, "line one")
    qtbot.keyClick(quick.composer.edit, Qt.Key.Key_Return, Qt.KeyboardModifier.ShiftModifier)
    assert quick.composer.text == "line one\n" and not quick.controller.busy
    screen = QGuiApplication.primaryScreen().availableGeometry()
    pos = quick.position_for(QPoint(screen.center()))
    assert abs(pos.x() + quick.width() // 2 - screen.center().x()) <= 1
    assert pos.y() == screen.y() + int(screen.height() * TOP_FRACTION)


def test_a_conversation_finishing_off_screen_notifies_and_the_click_opens_it(qtbot, qloop, desk, llm_server):
    gate = Gate()
    llm_server.enqueue(Reply(steps=[chunk(content="The report"), gate, chunk(content=" is ready."), DONE]))
    window, shell = desk.window, desk.shell
    window.show()
    qtbot.waitExposed(window)
    qtbot.keyClicks(window.composer.edit, "Write the report")
    qtbot.keyClick(window.composer.edit, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
    qtbot.waitUntil(lambda: window.view.answer is not None)
    first = window.controller.conversation_id
    window.hide()  # closed to the tray while it answers: the conversation is off screen
    assert desk.runtime.is_running(first)
    gate.open()
    qtbot.waitUntil(lambda: bool(shell.notified) and not desk.runtime.is_running(first), timeout=10_000)
    [(cid, heading, body)] = shell.notified
    assert cid == first and heading == "Answered: Write the report" and body == "The report is ready."
    assert shell.tray.last_notification == (first, heading, body)

    window.new_chat_action.trigger()
    assert window.controller.conversation_id != first
    shell.tray.icon.messageClicked.emit()  # the user clicks the notification
    assert window.isVisible() and window.controller.conversation_id == first
    assert [b.text for b in window.view.blocks() if isinstance(b, AnswerBlock)] == ["The report is ready."]

    # With the setting off (Settings → Tray and start-up), a finished conversation off screen stays quiet.
    settings_window = window.open_settings_window("desktop")
    settings_window.findChild(QCheckBox, "settingsNotifications").setChecked(False)
    assert settings_window.save() and desk.runtime.settings.notifications is False
    settings_window.close()
    second = Gate()
    llm_server.enqueue(Reply(steps=[chunk(content="Second"), second, chunk(content="."), DONE]))
    qtbot.keyClicks(window.composer.edit, "Again")
    qtbot.keyClick(window.composer.edit, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
    qtbot.waitUntil(lambda: window.view.answer is not None and window.view.answer.text == "Second")
    window.hide()
    second.open()
    qtbot.waitUntil(lambda: not window.controller.busy, timeout=10_000)
    assert not window.isVisible() and len(shell.notified) == 1


def test_start_at_login_writes_and_removes_the_login_entry(qtbot, desk, tmp_path):
    entry = tmp_path / "sbhome" / "autostart" / "switchboard.desktop"  # under the home override, never ~/.config
    settings_window = desk.window.open_settings_window("desktop")
    box = settings_window.findChild(QCheckBox, "settingsStartAtLogin")
    box.setChecked(True)
    assert settings_window.save() and desk.runtime.settings.start_at_login
    text = entry.read_text(encoding="utf-8")
    assert "[Desktop Entry]" in text and "--background" in text and f"--home {tmp_path / 'sbhome'}" in text
    box.setChecked(False)
    assert settings_window.save() and not entry.exists()
    settings_window.close()


def test_quick_with_files_attaches_them_to_the_quick_prompt(qtbot, tmp_path):
    """``switchboard --quick notes.txt``: the file is a chip in the quick prompt (it raised AttributeError)."""
    import time

    from PySide6.QtWidgets import QApplication

    from desktop_app.app import App, _install_shell, build_parser
    from desktop_app.paths import app_paths

    notes = tmp_path / "notes.txt"
    notes.write_text("buy milk\n", encoding="utf-8")
    paths = app_paths().ensure()
    window = MainWindow()
    qtbot.addWidget(window)
    app = App(QApplication.instance(), window, paths, time.perf_counter(), smoke=False)  # type: ignore[arg-type]
    _install_shell(app, build_parser().parse_args(["--quick", str(notes)]), paths, None)
    assert app.shell is not None
    qtbot.addWidget(app.shell.quick)
    assert [a.name for a in app.shell.quick.composer.attachments] == ["notes.txt"]
    assert app.shell.quick.isVisible() and window.composer.attachments == []


def _ask_in_the_box(qtbot, desk: Desk, llm_server: Any, prompt: str, reply: Any) -> Any:
    """Open the quick prompt from the tray, type ``prompt``, press Enter, and wait for the answered run."""
    llm_server.enqueue(reply)
    quick = desk.quick
    desk.shell.show_quick()
    qtbot.waitExposed(quick)
    qtbot.keyClicks(quick.composer.edit, prompt)
    qtbot.keyClick(quick.composer.edit, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: quick.view.isVisible() and not quick.controller.busy)
    return quick


def test_the_box_with_its_answer_stays_inside_a_short_screen(qtbot, desk, llm_server):
    """At 800×600 the box with its 420 px answer view was taller than the screen, its bottom cut off."""
    quick = _ask_in_the_box(qtbot, desk, llm_server, "What time is it?", text_reply(ANSWER))
    area = QRect(0, 0, 800, 600)  # the available geometry of an 800×600 screen
    quick.move(quick.position_for(area.center()).x(), area.y() + int(area.height() * TOP_FRACTION))
    quick.fit_to(area)
    qtbot.waitUntil(lambda: area.contains(quick.geometry()))
    assert quick.view.height() >= MIN_VIEW_HEIGHT  # the answer keeps a readable height


def test_the_box_fits_again_when_its_contents_change_height(qtbot, desk, llm_server):
    """Fitted while a part of it was taller (here a status line of several lines), the box kept that layout once
    the part shrank: the answer view stayed short, and a box fitted while something taller showed stayed taller
    than the screen (under load the end of a run could be caught so). It is fitted again, in the same area,
    when its contents change height."""
    quick = _ask_in_the_box(qtbot, desk, llm_server, "What time is it?", text_reply(ANSWER))
    short = quick.sizeHint().height()
    quick.status.setWordWrap(True)
    quick.set_status(" ".join(["A long status that wraps onto several lines."] * 12))
    qtbot.waitUntil(lambda: quick.sizeHint().height() > short)
    area = QRect(0, 0, 800, 600)
    quick.move(quick.position_for(area.center()).x(), area.y() + int(area.height() * TOP_FRACTION))
    quick.fit_to(area)
    squeezed = quick.view.height()
    quick.set_status("Ready")
    qtbot.waitUntil(lambda: quick.view.height() > squeezed and area.contains(quick.geometry()))


def test_the_answer_s_column_spans_the_box(qtbot, desk, llm_server):
    """The box was 720 px around a narrower reading column: a wide margin left of the answer and the composer."""
    quick = _ask_in_the_box(qtbot, desk, llm_server, "What time is it?", text_reply(ANSWER))
    column = quick.view.column
    qtbot.waitUntil(lambda: column.width() > 0)
    left = column.mapTo(quick, column.rect().topLeft()).x()
    right = quick.width() - (left + column.width())
    bar = quick.style().pixelMetric(QStyle.PixelMetric.PM_ScrollBarExtent)
    assert left <= 12 + 16 + bar, left  # the frame's and the page's margins (and room for a scroll bar), no more
    assert right <= 12 + 16 + bar, right


def test_a_long_answer_with_reasoning_starts_in_view_under_the_header(qtbot, desk, llm_server):
    """The view followed the stream to its end: the 'Thought for 1 s' header of an answer taller than the view
    was scrolled up under the box's header (the design screenshots). The turn's start stays in view, the
    rest scrolls; the end is reached by scrolling."""
    from desktop_app.ui.chat.blocks import ReasoningBlock

    long_answer = "\n\n".join(f"Step {n}: " + "a line of the answer that goes on " * 4 for n in range(1, 16))
    reply = text_reply(long_answer, reasoning="They want the steps; list them in order.")
    quick = _ask_in_the_box(qtbot, desk, llm_server, "How do I do it?", reply)
    view = quick.view
    bar = view.verticalScrollBar()
    qtbot.waitUntil(lambda: bar.maximum() > 0)  # the answer is taller than the view: it scrolls
    reasoning = next(b for b in view.blocks() if isinstance(b, ReasoningBlock))
    toggle = reasoning.toggle
    viewport = view.viewport()

    def shown(widget) -> bool:
        top_left = widget.mapTo(viewport, widget.rect().topLeft())
        return viewport.rect().contains(QRect(top_left, widget.size()))

    qtbot.waitUntil(lambda: shown(toggle))  # "Thought for …" whole, under the header, not behind it
    assert toggle.text().startswith("Thought for")
    question = view.blocks()[0]
    assert shown(question)  # the question it answers, above it
    bar.setValue(bar.maximum())  # and the rest is a scroll away
    assert view.footer is not None and shown(view.footer)

    # The next answer asks for a tool after a long text: its card waits for approval in view, not below it.
    llm_server.enqueue(tool_call_reply([("call_clock_2", "clock", {"city": "Oslo"})], content=long_answer))
    llm_server.enqueue(text_reply(long_answer))
    bar.setValue(0)
    qtbot.keyClicks(quick.composer.edit, "And the time in Oslo?")
    qtbot.keyClick(quick.composer.edit, Qt.Key.Key_Return)
    qtbot.waitUntil(
        lambda: card_for(view, "call_clock_2") is not None and card_for(view, "call_clock_2").state == "waiting"
    )
    card = card_for(view, "call_clock_2")
    qtbot.waitUntil(lambda: shown(card.approve_button))
    qtbot.mouseClick(card.approve_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not quick.controller.busy, timeout=10_000)
