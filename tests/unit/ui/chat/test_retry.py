"""Visible retries: the inline line with its live countdown, "Retry now" and "Stop", and its replacement.

The countdown never waits on the wall clock here: the view's clock is a fake and the tests emit the line's
``timer.timeout`` themselves. The acceptance test runs the real Runtime against the loopback LLM server.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QPushButton, QToolButton

from desktop_app.runtime import events as ev
from desktop_app.runtime.providers.openai import OpenAIProvider
from desktop_app.runtime.service import Runtime
from desktop_app.runtime.settings import ProviderSettings, Settings
from desktop_app.ui.chat.blocks import AnswerBlock, ReasoningBlock
from desktop_app.ui.chat.retry import RetryLine, retry_headline, retry_sentence
from desktop_app.ui.chat.view import ChatView
from desktop_app.ui.window.main_window import MainWindow
from tests.support.fakes import FakeHost
from tests.support.llm_server import error_reply, text_reply

IDS = {"conversation_id": "c", "run_id": "r"}


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def _retry(attempt: int = 1, delay: float = 2.0, **kw: Any) -> ev.RetryScheduled:
    info = {"attempt": attempt, "max_attempts": 3, "delay_s": delay, "stage": "request", "reason": "API rate limited"}
    return ev.RetryScheduled(**IDS, retry=ev.RetryInfo(**{**info, "status_code": 429, **kw}))


def _lines(view: ChatView) -> list[RetryLine]:
    return [b for b in view.blocks() if isinstance(b, RetryLine)]


@pytest.fixture
def view(qtbot) -> tuple[ChatView, FakeClock]:
    chat = ChatView()
    qtbot.addWidget(chat)
    clock = FakeClock()
    chat.clock = clock
    chat._on_run_started(ev.RunStarted(**IDS, model="m", prompt="p"))
    return chat, clock


def test_countdown_ticks_down_from_the_timer_and_the_answer_replaces_it(view) -> None:
    chat, clock = view
    line = chat._on_retry_scheduled(_retry(delay=2.0))
    assert line.text == "↻ Rate limited (HTTP 429). Retrying in 2 s (1 of 3)"
    assert line.timer.isActive() and line.timer.interval() == 1000
    assert line.retry_button.isVisibleTo(line) and line.stop_button.isVisibleTo(line)

    clock.now += 1.0
    line.timer.timeout.emit()
    assert "Retrying in 1 s (1 of 3)" in line.text
    clock.now += 1.0
    line.timer.timeout.emit()
    assert "Retrying now… (1 of 3)" in line.text and not line.timer.isActive()

    chat._on_retry_scheduled(_retry(attempt=2, delay=4.0))  # the same call failed again: the line updates
    assert _lines(chat) == [line] and "Retrying in 4 s (2 of 3)" in line.text and line.timer.isActive()

    chat._on_content_appended("Hello")
    assert chat.retry_line is None and not line.active and not line.timer.isActive()
    assert line.text == "↻ Retried after rate limit (2 retries)"
    assert not line.retry_button.isVisibleTo(line) and not line.stop_button.isVisibleTo(line)
    blocks = chat.blocks()
    assert blocks.index(line) < blocks.index(chat.answer)


def test_stream_reset_drops_the_partial_blocks_and_says_so(view) -> None:
    chat, _clock = view
    chat._on_reasoning_appended("half a thought")
    chat._on_content_appended("half an ans")
    info = {"reason": "API stream disconnected", "stage": "stream", "stream_reset": True, "status_code": None}
    line = chat._on_retry_scheduled(_retry(**info))
    assert chat.answer is None and chat.reasoning is None
    assert not any(isinstance(b, AnswerBlock | ReasoningBlock) for b in chat.blocks() if not b.isHidden())
    assert line.text == "↻ Stream disconnected; the partial output was discarded. Retrying in 2 s (1 of 3)"
    chat._on_content_appended("A whole answer")
    assert "partial output was discarded" in line.text
    assert [b.text for b in chat.blocks() if isinstance(b, AnswerBlock) and not b.isHidden()][-1] == "A whole answer"


def test_headlines() -> None:
    def info(reason: str, status: int | None) -> ev.RetryInfo:
        return ev.RetryInfo(attempt=1, max_attempts=4, delay_s=1, stage="request", reason=reason, status_code=status)

    assert retry_headline(info("API rate limited", 429)) == "Rate limited (HTTP 429)"
    assert retry_headline(info("API temporarily unavailable (HTTP 503)", 503)) == "Temporarily unavailable (HTTP 503)"
    assert retry_headline(info("API request failed", None)) == "Request failed"
    named = info("API rate limited", 429).model_copy(
        update={"provider": "DeepSeek", "message": "Rate limit reached for requests.", "attempt": 2}
    )
    assert retry_sentence(named, "Retrying in 4 s") == (
        "DeepSeek rate limit: Rate limit reached for requests. Retrying in 4 s (2 of 4)"
    )
    busy = info("API temporarily unavailable (HTTP 503)", 503).model_copy(update={"provider": "DeepSeek"})
    assert retry_headline(busy) == "DeepSeek is temporarily unavailable (HTTP 503)"


def test_retry_now_and_stop_buttons_reach_the_runtime(qtbot, window, fake_runtime) -> None:
    calls: list[str] = []
    fake_runtime.retry_now = lambda conversation_id: calls.append(conversation_id) or True
    window.controller._set_busy(True)
    conv = window.controller.conversation_id
    line = window.view._on_retry_scheduled(_retry().model_copy(update={"conversation_id": conv}))
    qtbot.mouseClick(line.retry_button, Qt.MouseButton.LeftButton)
    assert calls == [conv]
    assert "Retrying now…" in line.text and not line.retry_button.isEnabled()
    assert window.status.text() == "Retrying now…"
    stops: list[bool] = []
    window.controller.stop = lambda: stops.append(True)
    qtbot.mouseClick(line.stop_button, Qt.MouseButton.LeftButton)
    assert stops == [True]


@pytest.mark.integration
def test_rate_limited_countdown_then_retry_now_streams_the_answer(qtbot, qloop, llm_server) -> None:
    """Acceptance: 429 + Retry-After 30 → countdown line; "Retry now" → the streamed answer, no 30 s wait."""
    llm_server.enqueue(
        error_reply(429, {"error": {"message": "slow down"}}, headers={"Retry-After": "30"}),
        text_reply("Here is the answer after the retry."),
    )
    settings = Settings(provider=ProviderSettings(base_url=llm_server.url, model="test-model"))

    def factory(s: ProviderSettings, key: str | None) -> OpenAIProvider:
        return OpenAIProvider(base_url=s.base_url, api_key=key, dialect="openai", sleep=runtime.sleeper.sleep)

    runtime = Runtime(settings=settings, host=FakeHost(), api_key_override="k", provider_factory=factory)
    win = MainWindow()
    qtbot.addWidget(win)
    win.attach_runtime(runtime)
    win.show()
    qtbot.waitExposed(win)
    try:
        win.composer.edit.setPlainText("hello?")
        qtbot.mouseClick(win.composer.button, Qt.MouseButton.LeftButton)

        qtbot.waitUntil(lambda: win.view.retry_line is not None, timeout=5000)
        line = win.view.retry_line
        # what happened, in the provider's words, and the request about to be made (the first retry is request 2)
        assert line.text == "↻ 127.0.0.1 rate limit: slow down. Retrying in 30 s (2 of 4)"
        assert line.details.isHidden() and not line.details_button.isHidden()
        qtbot.mouseClick(line.details_button, Qt.MouseButton.LeftButton)  # the raw body behind a toggle
        assert not line.details.isHidden() and json.loads(line.details.text()) == {"error": {"message": "slow down"}}
        # Qt shows a widget added to a shown layout on its next layout pass: wait for that, do not assume it
        qtbot.waitUntil(lambda: line.timer.isActive() and line.retry_button.isVisible(), timeout=5000)
        conv = win.controller.conversation_id
        qtbot.waitUntil(lambda: runtime.sleeper.waiting(conv), timeout=5000)

        qtbot.mouseClick(line.retry_button, Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda: not win.controller.busy, timeout=5000)
        assert win.view.retry_line is None and not line.active and not line.retry_button.isVisible()
        assert line.text == "↻ Retried after rate limit"
        [answer] = [b for b in win.view.blocks() if isinstance(b, AnswerBlock)]
        assert answer.text == "Here is the answer after the retry."
        blocks = win.view.blocks()
        assert blocks.index(line) < blocks.index(answer)
        assert len(llm_server.requests) == 2
    finally:
        task = qloop.create_task(runtime.aclose())
        qtbot.waitUntil(task.done)


@pytest.mark.integration
def test_the_retry_counters_agree_with_the_requests_made(qtbot, qloop, llm_server) -> None:
    """Three 503s, then the answer: the line counted 2, 3 and 4 of 4, says 3 retries, and 4 requests were made."""
    busy = {"error": {"message": "Server busy, please retry"}}
    llm_server.enqueue(
        *(error_reply(503, busy, headers={"Retry-After": "0"}) for _ in range(3)), text_reply("Finally.")
    )
    settings = Settings(provider=ProviderSettings(base_url=llm_server.url, model="test-model"))
    runtime = Runtime(settings=settings, host=FakeHost(), api_key_override="k")
    seen: list[str] = []
    win = MainWindow()
    qtbot.addWidget(win)
    win.attach_runtime(runtime)
    win.controller.retry_scheduled.connect(
        lambda event: seen.append(f"{event.retry.attempt} of {event.retry.max_attempts}")
    )
    try:
        win.composer.edit.setPlainText("hello?")
        qtbot.mouseClick(win.composer.button, Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda: not win.controller.busy, timeout=10_000)
        [line] = [b for b in win.view.blocks() if isinstance(b, RetryLine)]
        assert seen == ["2 of 4", "3 of 4", "4 of 4"]
        assert line.text == "↻ Retried after a temporary outage (HTTP 503) (3 retries)"
        assert len(llm_server.requests) == 4
    finally:
        task = qloop.create_task(runtime.aclose())
        qtbot.waitUntil(task.done)


@pytest.mark.integration
def test_a_refused_request_is_a_sentence_with_the_raw_answer_behind_details(qtbot, qloop, llm_server) -> None:
    body = {"error": {"message": "Authentication Fails (no such user)", "type": "authentication_error"}}
    llm_server.enqueue(error_reply(401, body))
    settings = Settings(provider=ProviderSettings(base_url=llm_server.url, model="test-model"))
    runtime = Runtime(settings=settings, host=FakeHost(), api_key_override="k")
    win = MainWindow()
    qtbot.addWidget(win)
    win.attach_runtime(runtime)
    win.show()
    try:
        win.composer.edit.setPlainText("hello?")
        qtbot.mouseClick(win.composer.button, Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda: not win.controller.busy, timeout=10_000)
        [notice] = [b for b in win.view.blocks() if b.objectName() == "errorNotice"]
        assert notice.text() == (
            "⚠ HTTP 401 from 127.0.0.1 — the API key was refused; set it again in the provider settings: "
            "Authentication Fails (no such user) (authentication_error)"
        )
        [details] = [b for b in win.view.blocks() if b.objectName() == "errorDetails"]
        assert details.text.isHidden()
        qtbot.mouseClick(details.button, Qt.MouseButton.LeftButton)
        assert not details.text.isHidden() and json.loads(details.text.text()) == body
    finally:
        task = qloop.create_task(runtime.aclose())
        qtbot.waitUntil(task.done)


@pytest.mark.integration
def test_retries_that_end_in_an_error_show_one_details_toggle_beside_retry(qtbot, qloop, llm_server) -> None:
    """The design screenshots showed two Details controls (the settled retry note's and the error's) and a
    plain Retry set apart: now one Details toggle, in the error's row, with Retry as its primary action."""
    busy = {"error": {"message": "The server is overloaded"}}
    llm_server.enqueue(*(error_reply(503, busy, headers={"Retry-After": "0"}) for _ in range(4)))
    settings = Settings(provider=ProviderSettings(base_url=llm_server.url, model="test-model"))
    runtime = Runtime(settings=settings, host=FakeHost(), api_key_override="k")
    win = MainWindow()
    qtbot.addWidget(win)
    win.attach_runtime(runtime)
    win.show()
    qtbot.waitExposed(win)
    try:
        win.composer.edit.setPlainText("hello?")
        qtbot.mouseClick(win.composer.button, Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda: not win.controller.busy and win.view.retry_run_row is not None, timeout=10_000)
        toggles = [
            b for b in win.view.findChildren(QToolButton) if b.text().startswith("Details") and b.isVisibleTo(win)
        ]
        assert len(toggles) == 1, [b.objectName() for b in toggles]
        row = win.view.retry_run_row
        retry = row.findChild(QPushButton, "retryRunButton")
        assert retry.property("kind") == "primary"
        assert toggles[0].parentWidget() is row  # Details beside Retry, one component with the error
        qtbot.mouseClick(toggles[0], Qt.MouseButton.LeftButton)
        [details] = [b for b in win.view.blocks() if b.objectName() == "errorDetails"]
        assert details.text.isVisibleTo(win) and json.loads(details.text.text()) == busy
    finally:
        task = qloop.create_task(runtime.aclose())
        qtbot.waitUntil(task.done)
