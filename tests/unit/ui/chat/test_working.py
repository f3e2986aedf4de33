"""The in-chat working indicator (#20 item 13): shown from the run's start to the model's first output, through
a stall and its retry, gone when output arrives or the run ends; a stall before any output discards nothing.

The indicator's seconds come from the view's fake clock and the tests emit its ``timer.timeout`` themselves.
The acceptance test runs the real Runtime and MainWindow against the loopback server with a short idle
timeout (the stall) and the runtime's retry sleeper, which "Retry now" wakes.
"""

from __future__ import annotations

from typing import Any

import pytest
from PySide6.QtCore import Qt

from desktop_app.runtime import events as ev
from desktop_app.runtime.providers.openai import OpenAIProvider
from desktop_app.runtime.service import Runtime
from desktop_app.runtime.settings import ProviderSettings, Settings
from desktop_app.ui.chat.blocks import AnswerBlock
from desktop_app.ui.chat.retry import RetryLine
from desktop_app.ui.chat.view import ChatView
from desktop_app.ui.chat.working import DOTS, WorkingLine
from desktop_app.ui.window.main_window import MainWindow
from tests.support.fakes import FakeHost
from tests.support.llm_server import Pause, Reply, text_reply

IDS = {"conversation_id": "c", "run_id": "r"}


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def _working(view: ChatView) -> list[WorkingLine]:
    return [b for b in view.blocks() if isinstance(b, WorkingLine)]


def _stall(**kw: Any) -> ev.RetryScheduled:
    info = {"attempt": 1, "max_attempts": 3, "delay_s": 2.0, "stage": "stream", "stream_reset": True}
    return ev.RetryScheduled(**IDS, retry=ev.RetryInfo(**{**info, "reason": "stream stalled", **kw}))


@pytest.fixture
def view(qtbot) -> tuple[ChatView, FakeClock]:
    chat = ChatView()
    qtbot.addWidget(chat)
    clock = FakeClock()
    chat.clock = clock
    return chat, clock


def test_shown_from_the_start_with_the_seconds_waited_until_the_first_output(view) -> None:
    chat, clock = view
    chat.add_user_message("hi")
    chat._on_run_started(ev.RunStarted(**IDS, model="m", prompt="hi"))
    [line] = _working(chat)
    assert chat.blocks()[-1] is line and line.text == "Working…" and line.timer.isActive()
    clock.now += 6.0
    line.timer.timeout.emit()
    assert line.text == "Working… 6 s"
    chat._on_reasoning_appended("Let me see")
    assert _working(chat) == [] and chat.working is None and not line.timer.isActive()


@pytest.mark.parametrize(
    "end",
    [
        lambda chat: chat._on_run_finished(ev.RunFinished(**IDS, content="", reason="end_turn")),
        lambda chat: chat._on_run_finished(ev.RunFinished(**IDS, content="", reason="cancelled")),
        lambda chat: chat._on_run_failed(ev.Error(**IDS, code="provider_http", message="The provider refused.")),
    ],
    ids=["finished", "stopped", "failed"],
)
def test_the_end_of_the_run_removes_it(view, end) -> None:
    chat, _clock = view
    chat._on_run_started(ev.RunStarted(**IDS, model="m", prompt="hi"))
    assert _working(chat)
    end(chat)
    assert _working(chat) == [] and chat.working is None


def test_a_tool_call_hides_it_and_its_result_shows_it_again(view) -> None:
    chat, _clock = view
    chat._on_run_started(ev.RunStarted(**IDS, model="m", prompt="hi"))
    call = {**IDS, "tool_call_id": "t1", "server": "time", "tool": "now", "arguments": {}}
    chat._on_tool_called(ev.ToolCall(**call, name="mcp__time__now"))
    assert _working(chat) == []
    chat._on_tool_result(ev.ToolResult(**IDS, tool_call_id="t1", server="time", tool="now", text="12:00"))
    [line] = _working(chat)
    assert chat.blocks()[-1] is line  # under the card: the model now works on the result
    chat._on_content_appended("It is noon.")
    assert _working(chat) == []


def test_a_stall_before_any_output_keeps_it_and_says_nothing_was_discarded(view) -> None:
    chat, _clock = view
    chat._on_run_started(ev.RunStarted(**IDS, model="m", prompt="hi"))
    retry = chat._on_retry_scheduled(_stall())
    [line] = _working(chat)
    blocks = chat.blocks()
    assert blocks.index(retry) < blocks.index(line)  # the wait goes on below the retry line
    assert retry.text == "↻ Stream stalled. Retrying in 2 s (1 of 3)"
    chat._on_content_appended("Here it is.")
    assert _working(chat) == []
    assert retry.text == "↻ Retried after stream stalled"


def test_a_stall_after_partial_output_says_it_was_discarded(view) -> None:
    chat, _clock = view
    chat._on_run_started(ev.RunStarted(**IDS, model="m", prompt="hi"))
    chat._on_content_appended("half an ans")
    retry = chat._on_retry_scheduled(_stall())
    assert "; the partial output was discarded. Retrying in 2 s" in retry.text
    chat._on_content_appended("A whole answer")
    assert retry.text == "↻ Retried after stream stalled; the interrupted partial output was discarded"


@pytest.mark.integration
def test_a_stalled_first_token_shows_the_indicator_through_the_retry(qtbot, qloop, llm_server) -> None:
    """Acceptance: send → the indicator at once; the stream stalls before any output → the retry line, the
    indicator still below it, no "discarded"; Retry now → the answer replaces the indicator."""
    llm_server.enqueue(Reply(steps=[Pause(30.0)]), text_reply("Sorry for the wait."))
    settings = Settings(provider=ProviderSettings(base_url=llm_server.url, model="test-model"))

    def factory(s: ProviderSettings, key: str | None) -> OpenAIProvider:
        return OpenAIProvider(base_url=s.base_url, api_key=key, idle_timeout=0.3, sleep=runtime.sleeper.sleep)

    runtime = Runtime(settings=settings, host=FakeHost(), api_key_override="k", provider_factory=factory)
    win = MainWindow()
    qtbot.addWidget(win)
    win.attach_runtime(runtime)
    win.show()
    qtbot.waitExposed(win)
    try:
        win.composer.edit.setPlainText("hello?")
        qtbot.mouseClick(win.composer.button, Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda: win.view.working is not None and win.view.working.isVisible(), timeout=5000)
        assert not any(isinstance(b, AnswerBlock) for b in win.view.blocks())

        qtbot.waitUntil(lambda: win.view.retry_line is not None, timeout=5000)
        retry = win.view.retry_line
        assert "discarded" not in retry.text and retry.text.startswith("↻ 127.0.0.1 stream stalled")
        [working] = _working(win.view)
        blocks = win.view.blocks()
        assert blocks.index(retry) < blocks.index(working) and working.isVisibleTo(win.view)

        conv = win.controller.conversation_id
        qtbot.waitUntil(lambda: runtime.sleeper.waiting(conv), timeout=5000)
        qtbot.mouseClick(retry.retry_button, Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda: not win.controller.busy, timeout=5000)
        assert _working(win.view) == [] and win.view.working is None
        assert [b for b in win.view.blocks() if isinstance(b, RetryLine)] == [retry]
        assert retry.text == "↻ Retried after stream stalled"
        [answer] = [b for b in win.view.blocks() if isinstance(b, AnswerBlock)]
        assert answer.text == "Sorry for the wait."
    finally:
        task = qloop.create_task(runtime.aclose())
        qtbot.waitUntil(task.done)


def test_the_dots_step_in_the_accent_colour_and_keep_their_place(view, monkeypatch) -> None:
    """One lit dot steps along (accent, the others muted) in a fixed-size widget: the line never moves."""
    monkeypatch.setenv("SWITCHBOARD_REDUCED_MOTION", "0")  # the suite's default is reduced motion
    chat, _clock = view
    chat._on_run_started(ev.RunStarted(**IDS, model="m", prompt="hi"))
    line = chat.working
    dots = line.dots
    size = dots.size()
    lit = []
    for _ in range(DOTS):
        lit.append([dots.colour_of(i) for i in range(DOTS)].index("accent"))
        line.timer.timeout.emit()
    assert lit == [(lit[0] + i) % DOTS for i in range(DOTS)]  # it steps, one dot at a time
    assert dots.size() == size and dots.minimumSize() == dots.maximumSize()


def test_under_reduced_motion_the_dots_stand_still(view, monkeypatch) -> None:
    monkeypatch.setenv("SWITCHBOARD_REDUCED_MOTION", "1")
    chat, _clock = view
    chat._on_run_started(ev.RunStarted(**IDS, model="m", prompt="hi"))
    dots = chat.working.dots
    for _ in range(DOTS):
        assert [dots.colour_of(i) for i in range(DOTS)] == ["text_muted"] * DOTS
        chat.working.timer.timeout.emit()
