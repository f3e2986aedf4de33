"""Continue: a run paused after the tool-round limit (or stopped while a call waits) goes on from the view;
a continued run that asks again for a call re-arms the card already shown instead of adding another."""

from __future__ import annotations

import asyncio

from PySide6.QtCore import Qt

from desktop_app.runtime.run.approvals import ApprovalPolicy
from desktop_app.runtime.service import Runtime
from desktop_app.runtime.settings import ProviderSettings, Settings
from desktop_app.ui.chat.blocks import AnswerBlock, ToolCard
from desktop_app.ui.chat.paused import PausedLine
from desktop_app.ui.window.main_window import MainWindow
from tests.support.fake_runtime import Content, FakeRuntime, Gate, RoundLimit, Tool
from tests.support.fakes import FakeHost, FakeProvider, answer, calls, only_card


def _send(qtbot, win: MainWindow, text: str) -> None:
    win.composer.edit.setPlainText(text)
    qtbot.mouseClick(win.composer.button, Qt.MouseButton.LeftButton)


def _of(win: MainWindow, cls: type) -> list:
    return [b for b in win.view.blocks() if isinstance(b, cls)]


def _window(qtbot, runtime) -> MainWindow:
    win = MainWindow()
    qtbot.addWidget(win)
    win.attach_runtime(runtime)
    win.show()
    qtbot.waitExposed(win)
    return win


def _close(qtbot, loop, runtime: Runtime) -> None:
    task = loop.create_task(runtime.aclose())
    qtbot.waitUntil(task.done)


def test_round_limit_shows_continue_and_continue_runs_again_with_stop_while_running(qtbot, qloop):
    runtime = FakeRuntime(max_tool_rounds=3)
    gate = Gate()
    runtime.script(Tool("t1", "fs", "list", {}, policy=True), RoundLimit())
    runtime.script(gate, Content("Finished the listing."))
    win = _window(qtbot, runtime)
    _send(qtbot, win, "list everything")
    qtbot.waitUntil(lambda: not win.controller.busy)
    line = win.view.paused_line
    assert line is not None and line.text == "Paused after 3 tool rounds. Continue to let the model go on."
    assert win.composer.button.text() == "Send"

    qtbot.mouseClick(line.continue_button, Qt.MouseButton.LeftButton)
    assert not line.continue_button.isEnabled()  # a double click cannot start two runs
    assert win.controller.busy and win.composer.button.text() == "Stop"  # at once, before the task runs
    qtbot.waitUntil(lambda: runtime.continued == [win.controller.conversation_id])
    run_started = [e for e in runtime.emitted if e.kind == "run_started"]
    assert [e.continued for e in run_started] == [False, True]
    assert not line.active and line.continue_button.isHidden() and line.text == "Continued"
    gate.open()
    qtbot.waitUntil(lambda: not win.controller.busy)
    assert win.composer.button.text() == "Send"
    assert _of(win, AnswerBlock)[-1].text == "Finished the listing."
    assert win.view.paused_line is None


def test_stopped_while_waiting_then_continue_reuses_the_card(qtbot, window, fake_runtime):
    fake_runtime.script(Content("Checking."), Tool("t1", "time", "now", {"tz": "UTC"}, result="noon"))
    fake_runtime.script(Tool("t1", "time", "now", {"tz": "UTC"}, result="noon"), Content("It is noon."))
    _send(qtbot, window, "time?")
    qtbot.waitUntil(lambda: "t1" in window.view.cards and window.view.cards["t1"].pending)
    card = window.view.cards["t1"]
    assert fake_runtime.pending_approvals(window.controller.conversation_id) == ["t1"]
    qtbot.mouseClick(window.composer.button, Qt.MouseButton.LeftButton)  # Stop
    qtbot.waitUntil(lambda: not window.controller.busy)
    assert card.buttons.isHidden() and not card.pending
    line = window.view.paused_line
    assert line is not None and line.text == "A tool call waits for your approval. Continue to answer."

    qtbot.mouseClick(line.continue_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: card.pending)
    assert window.view.cards["t1"] is card and len(_of(window, ToolCard)) == 1
    assert card.status.text() == "Waiting for approval" and card.approve_button.isEnabled()
    qtbot.mouseClick(card.approve_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not window.controller.busy)
    assert card.result.text() == "noon" and card.status.text() == "Approved"
    assert _of(window, AnswerBlock)[-1].text == "It is noon."


def test_a_new_message_settles_the_paused_line(qtbot, window, fake_runtime):
    fake_runtime.script(Tool("t1", "fs", "list", {}, policy=True), RoundLimit())
    fake_runtime.script(Content("ok"))
    _send(qtbot, window, "go")
    qtbot.waitUntil(lambda: not window.controller.busy)
    line = window.view.paused_line
    assert line is not None
    _send(qtbot, window, "something else")
    qtbot.waitUntil(lambda: not window.controller.busy)
    assert line.continue_button.isHidden() and line.text == "Not continued: a new message was sent"
    assert fake_runtime.continued == []


def test_real_runtime_pauses_at_the_round_limit_and_continue_goes_on(qtbot, qloop):
    provider = FakeProvider(
        [calls(("c1", "mcp__fake__echo", '{"x": 1}')), [*answer("All done.")]],
    )
    host = FakeHost(handlers={"echo": lambda a: f"echo {a['x']}"})
    settings = Settings(provider=ProviderSettings(base_url="http://127.0.0.1:9/v1", model="m"), max_tool_rounds=1)
    runtime = Runtime(
        settings=settings,
        host=host,
        policy=ApprovalPolicy("always"),
        provider_factory=lambda _settings, _key: provider,
        api_key_override="k",
    )
    win = _window(qtbot, runtime)
    try:
        _send(qtbot, win, "echo 1")
        qtbot.waitUntil(lambda: not win.controller.busy)
        [line] = _of(win, PausedLine)
        assert line.text == "Paused after 1 tool round. Continue to let the model go on."
        assert only_card(win.view).status.text() == "Approved by policy"
        assert only_card(win.view).result.text() == "echo 1"

        provider.gate = asyncio.Event()  # hold the next answer to see the run as running
        qtbot.mouseClick(line.continue_button, Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda: win.controller.busy and len(provider.requests) == 2)
        assert win.composer.button.text() == "Stop"
        provider.gate.set()
        qtbot.waitUntil(lambda: not win.controller.busy)
        assert _of(win, AnswerBlock)[-1].text == "All done."
        assert line.text == "Continued" and win.composer.button.text() == "Send"
        assert host.log == [("fake", "echo", {"x": 1})]
    finally:
        _close(qtbot, qloop, runtime)


def test_real_runtime_resume_reasks_the_pending_call_on_the_same_card(qtbot, qloop):
    provider = FakeProvider([calls(("c1", "mcp__fake__echo", '{"x": 1}')), [*answer("Echoed.")]])
    host = FakeHost(handlers={"echo": lambda a: f"echo {a['x']}"})
    settings = Settings(provider=ProviderSettings(base_url="http://127.0.0.1:9/v1", model="m"))
    runtime = Runtime(
        settings=settings, host=host, provider_factory=lambda _settings, _key: provider, api_key_override="k"
    )
    win = _window(qtbot, runtime)
    try:
        _send(qtbot, win, "echo 1")
        qtbot.waitUntil(lambda: only_card(win.view) is not None and only_card(win.view).pending)
        card = only_card(win.view)
        conversation = win.controller.conversation_id
        assert runtime.pending_approvals(conversation) == [card.tool_call_id]
        qtbot.mouseClick(win.composer.button, Qt.MouseButton.LeftButton)  # Stop while it waits
        qtbot.waitUntil(lambda: not win.controller.busy)
        assert not card.pending and [c.model_id for c in runtime.pending_tool_calls(conversation)] == ["c1"]
        assert [c.id for c in runtime.pending_tool_calls(conversation)] == [card.tool_call_id]

        qtbot.mouseClick(win.view.paused_line.continue_button, Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda: card.pending)
        assert len(_of(win, ToolCard)) == 1 and only_card(win.view) is card
        qtbot.mouseClick(card.edit_button, Qt.MouseButton.LeftButton)
        card.args.editor.setPlainText('{"x": 2}')
        qtbot.mouseClick(card.approve_button, Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda: not win.controller.busy)
        assert host.log == [("fake", "echo", {"x": 2})]
        assert card.status.text() == "Approved" and not card.args.changes.isHidden()
        assert _of(win, AnswerBlock)[-1].text == "Echoed."
    finally:
        _close(qtbot, qloop, runtime)
