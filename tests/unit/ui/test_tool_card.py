"""Tool cards: server, tool and pretty arguments; Approve/Deny answer the runtime; decision and result."""

from __future__ import annotations

from PySide6.QtCore import Qt

from desktop_app.ui.chat.blocks import AnswerBlock, ToolCard
from tests.support.fake_runtime import Content, Tool

ARGS = {"timezone": "UTC", "options": {"verbose": True}}


def _start(qtbot, window, fake_runtime, tool: Tool) -> ToolCard:
    fake_runtime.script(Content("Let me check."), tool, Content("Done."))
    window.composer.edit.setPlainText("what time is it?")
    qtbot.keyClick(window.composer.edit, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
    qtbot.waitUntil(lambda: tool.tool_call_id in window.view.cards)
    card = window.view.cards[tool.tool_call_id]
    qtbot.waitUntil(lambda: not card.buttons.isHidden())
    return card


def test_card_shows_target_and_pretty_arguments_and_approve_answers_true(qtbot, window, fake_runtime):
    tool = Tool("call_1", "time", "get_current_time", ARGS, result="2026-11-30T12:00:00Z")
    card = _start(qtbot, window, fake_runtime, tool)
    assert "get_current_time" in card.title.text() and "time" in card.title.text()
    assert card.arguments.text() == '{\n  "timezone": "UTC",\n  "options": {\n    "verbose": true\n  }\n}'
    assert card.status.text() == "Waiting for approval"
    assert window.status.text() == "Waiting for your approval: get_current_time"
    assert card.approve_button.objectName() == "approveButton"
    assert card.deny_button.accessibleName() == "Deny get_current_time"

    qtbot.mouseClick(card.approve_button, Qt.MouseButton.LeftButton)
    assert fake_runtime.answers == [("call_1", True, None)]
    qtbot.waitUntil(lambda: not window.controller.busy)
    assert card.buttons.isHidden()
    assert card.status.text() == "Approved"
    assert card.result.text() == "2026-11-30T12:00:00Z"
    assert not card.is_error
    answers = [b for b in window.view.blocks() if isinstance(b, AnswerBlock)]
    assert [a.toPlainText() for a in answers] == ["Let me check.", "Done."]  # one before, one after the card
    blocks = window.view.blocks()
    assert blocks.index(answers[0]) < blocks.index(card) < blocks.index(answers[1])


def test_deny_answers_false_and_the_error_result_is_styled_as_error(qtbot, window, fake_runtime):
    card = _start(qtbot, window, fake_runtime, Tool("call_2", "fs", "delete_everything", {"path": "/"}))
    qtbot.mouseClick(card.deny_button, Qt.MouseButton.LeftButton)
    assert fake_runtime.answers == [("call_2", False, None)]
    qtbot.waitUntil(lambda: not window.controller.busy)
    assert card.buttons.isHidden()
    assert card.status.text() == "Denied"
    assert card.result.text() == "The user denied this tool call."
    assert card.is_error
    assert card.result.property("error") is True


def test_failed_tool_result_is_shown_as_error(qtbot, window, fake_runtime):
    tool = Tool("call_3", "web", "fetch", {"url": "http://x"}, result="connection refused", is_error=True)
    card = _start(qtbot, window, fake_runtime, tool)
    qtbot.mouseClick(card.approve_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not window.controller.busy)
    assert card.result.text() == "connection refused"
    assert card.is_error
    assert card.status.text() == "Failed"


def test_stop_while_waiting_for_approval_cancels_the_run(qtbot, window, fake_runtime):
    _start(qtbot, window, fake_runtime, Tool("call_4", "time", "now", {}))
    assert window.composer.button.text() == "Stop"
    qtbot.keyClick(window.composer.edit, Qt.Key.Key_Escape)
    qtbot.waitUntil(lambda: not window.controller.busy)
    assert fake_runtime.cancelled == [window.controller.conversation_id]
    assert window.composer.button.text() == "Send"
    assert any("Stopped" in getattr(b, "text", lambda: "")() for b in window.view.blocks() if hasattr(b, "kind"))
