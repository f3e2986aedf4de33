"""The window renders a scripted stream: live reasoning that collapses, the streamed answer, the footer."""

from __future__ import annotations

from PySide6.QtCore import Qt

from desktop_app.ui.chat.blocks import AnswerBlock, NoticeLine, UsageFooter, UserMessageBlock
from desktop_app.ui.chat.controller import ChatController
from desktop_app.ui.window.main_window import MainWindow
from tests.support.fake_runtime import Content, Fail, FakeRuntime, Gate, Reasoning, TokenUsage


def _send(qtbot, win: MainWindow, prompt: str) -> None:
    win.composer.edit.setPlainText(prompt)
    qtbot.mouseClick(win.composer.button, Qt.MouseButton.LeftButton)


def _blocks(win: MainWindow, kind: type) -> list:
    return [b for b in win.view.blocks() if isinstance(b, kind)]


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_reasoning_streams_live_then_collapses_when_the_answer_starts(qtbot, window, fake_runtime):
    clock = window.view.clock = FakeClock()  # the reasoning's time (its timer is driven below, never waited on)
    gate = Gate()
    fake_runtime.script(
        Reasoning("The user greets me. I should greet back.", pieces=5),
        gate,
        Content("Hello **there**!", pieces=4),
        TokenUsage(1200, 34, cache_hit=1000),
    )
    _send(qtbot, window, "hi")

    qtbot.waitUntil(lambda: window.view.reasoning is not None and window.view.reasoning.text.endswith("back."))
    reasoning = window.view.reasoning
    assert reasoning.expanded
    assert reasoning.body.isVisibleTo(reasoning)
    assert reasoning.toggle.text() == "Thinking…"
    clock.now += 4.0
    reasoning.timer.timeout.emit()
    assert reasoning.toggle.text() == "Thinking… 4 s"  # labelled by time, not by characters
    assert window.composer.button.text() == "Stop"
    assert [b.text for b in _blocks(window, UserMessageBlock)] == ["hi"]

    gate.open()
    qtbot.waitUntil(lambda: not window.controller.busy)
    assert not reasoning.expanded
    assert not reasoning.body.isVisibleTo(reasoning)
    assert reasoning.toggle.text() == "Thought for 4 s" and not reasoning.timer.isActive()
    qtbot.mouseClick(reasoning.toggle, Qt.MouseButton.LeftButton)  # expandable again
    assert reasoning.expanded and reasoning.body.isVisibleTo(reasoning)

    [answer] = _blocks(window, AnswerBlock)
    assert answer.text == "Hello **there**!"
    assert answer.finished
    assert answer.toPlainText() == "Hello there!"  # rendered as markdown at message end
    [footer] = _blocks(window, UsageFooter)
    assert footer.text() == "1.2k prompt · 34 completion tokens · cache hit 83 %"  # 1000 of 1200 prompt
    assert window.composer.button.text() == "Send"
    assert window.status.text() == "Ready"


def test_answer_streams_incrementally_before_the_end(qtbot, window, fake_runtime):
    gate = Gate()
    fake_runtime.script(Content("first part, "), gate, Content("second part"))
    _send(qtbot, window, "go")
    qtbot.waitUntil(lambda: window.view.answer is not None and window.view.answer.text == "first part, ")
    assert window.view.answer.toPlainText() == "first part,"  # live Markdown: trailing space shows with the next word
    assert window.status.text() == "Answering…"
    gate.open()
    qtbot.waitUntil(lambda: not window.controller.busy)
    [answer] = _blocks(window, AnswerBlock)
    assert answer.toPlainText() == "first part, second part"


def test_controller_coalesces_deltas_and_keeps_order(qtbot, qloop):
    runtime = FakeRuntime()
    controller = ChatController(runtime)
    seen: list[tuple[str, str]] = []
    controller.reasoning_appended.connect(lambda t: seen.append(("r", t)))
    controller.content_appended.connect(lambda t: seen.append(("c", t)))
    events_for_other_conversation = ChatController(runtime)  # a second conversation: must be ignored here
    runtime.script(Reasoning("abcdef", pieces=6), Content("uvwxyz", pieces=6))
    with qtbot.waitSignal(controller.busy_changed, check_params_cb=lambda busy: not busy, timeout=5000):
        qloop.create_task(controller.send("x"))
    assert seen == [("r", "abcdef"), ("c", "uvwxyz")]
    events_for_other_conversation.close()
    controller.close()


def test_run_error_is_shown_inline_with_what_to_do(qtbot, window, fake_runtime):
    fake_runtime.script(
        Content("partial"),
        Fail("provider_http_error", "HTTP 401 from the model provider — the API key was refused; set it again"),
    )
    _send(qtbot, window, "hello")
    qtbot.waitUntil(lambda: not window.controller.busy)
    [notice] = _blocks(window, NoticeLine)
    assert notice.kind == "error"
    assert notice.objectName() == "errorNotice"
    assert "API key was refused" in notice.text()
    assert _blocks(window, AnswerBlock)[0].toPlainText() == "partial"


def test_exception_from_the_runtime_reaches_the_error_display(qtbot, window, fake_runtime, monkeypatch):
    async def broken_run(conversation_id: str, prompt: str, **_extras: object):  # extras: attachments, context
        raise RuntimeError("socket exploded")

    monkeypatch.setattr(fake_runtime, "run", broken_run)
    _send(qtbot, window, "hello")
    qtbot.waitUntil(lambda: bool(_blocks(window, NoticeLine)))
    [notice] = _blocks(window, NoticeLine)
    assert "socket exploded" in notice.text() and "try again" in notice.text()
    assert window.composer.button.text() == "Send"
