"""Tool cards: target and pretty arguments; Approve (once or wider), Deny with a reason, edited arguments;
the decision (who and how) and the result."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from desktop_app.runtime import events as ev
from desktop_app.runtime.run.approvals import Grant
from desktop_app.ui.chat.blocks import AnswerBlock, ToolCard
from desktop_app.ui.chat.view import ChatView
from tests.support.fake_runtime import Content, Tool

ARGS = {"timezone": "UTC", "options": {"verbose": True}}
IDS = {"conversation_id": "c", "run_id": "r"}


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
    assert card.approve_button.objectName() == "approveButton" and card.approve_button.isDefault()
    assert card.deny_button.accessibleName() == "Deny get_current_time"
    assert [a.text() for a in card.approve_menu.actions()] == [
        "Approve for this conversation",
        "Always approve this tool",
        "Trust this server (all its tools)",
    ]

    qtbot.mouseClick(card.approve_button, Qt.MouseButton.LeftButton)
    assert fake_runtime.answers == [("call_1", True, None)]
    assert fake_runtime.answer_log[0]["scope"] == "once" and fake_runtime.answer_log[0]["arguments"] is None
    qtbot.waitUntil(lambda: not window.controller.busy)
    assert card.buttons.isHidden()
    assert card.status.text() == "Approved"
    assert card.result.text() == "2026-11-30T12:00:00Z"
    assert not card.is_error
    answers = [b for b in window.view.blocks() if isinstance(b, AnswerBlock)]
    assert [a.toPlainText() for a in answers] == ["Let me check.", "Done."]  # one before, one after the card
    blocks = window.view.blocks()
    assert blocks.index(answers[0]) < blocks.index(card) < blocks.index(answers[1])
    assert fake_runtime.grants.list() == []


@pytest.mark.parametrize(
    ("scope", "status", "grant_tool"),
    [
        ("conversation", "Approved · for this conversation", "now"),
        ("tool", "Approved · always for this tool", "now"),
        ("server", "Approved · trusted server", None),
    ],
)
def test_each_scope_answers_with_that_scope(qtbot, window, fake_runtime, scope, status, grant_tool):
    card = _start(qtbot, window, fake_runtime, Tool("call_s", "clock", "now", {}))
    card.scope_actions[scope].trigger()
    assert fake_runtime.answer_log == [
        {"tool_call_id": "call_s", "approved": True, "reason": None, "scope": scope, "arguments": None}
    ]
    qtbot.waitUntil(lambda: not window.controller.busy)
    assert card.status.text() == status
    [grant] = fake_runtime.grants.list()
    assert (grant.scope, grant.server, grant.tool) == (scope, "clock", grant_tool)


def test_deny_asks_for_an_optional_reason_and_enter_confirms(qtbot, window, fake_runtime):
    card = _start(qtbot, window, fake_runtime, Tool("call_2", "fs", "delete_everything", {"path": "/"}))
    qtbot.mouseClick(card.deny_button, Qt.MouseButton.LeftButton)
    assert fake_runtime.answers == []  # Deny opens the reason field first
    assert card.buttons.isHidden() and not card.deny_row.isHidden()
    qtbot.keyClicks(card.reason_edit, "never touch /")
    qtbot.keyClick(card.reason_edit, Qt.Key.Key_Return)
    assert fake_runtime.answers == [("call_2", False, "never touch /")]
    qtbot.waitUntil(lambda: not window.controller.busy)
    assert card.deny_row.isHidden() and card.buttons.isHidden()
    assert card.status.text() == "Denied: never touch /"
    assert card.result.text() == "The user denied this tool call. Reason: never touch /"  # as the model sees it
    assert card.is_error
    assert card.result.property("error") is True


def test_deny_with_an_empty_reason_and_back_returns_to_the_buttons(qtbot, window, fake_runtime):
    card = _start(qtbot, window, fake_runtime, Tool("call_3", "fs", "rm", {"path": "/tmp/x"}))
    qtbot.mouseClick(card.deny_button, Qt.MouseButton.LeftButton)
    qtbot.mouseClick(card.deny_cancel_button, Qt.MouseButton.LeftButton)
    assert not card.buttons.isHidden() and card.deny_row.isHidden() and fake_runtime.answers == []
    qtbot.mouseClick(card.deny_button, Qt.MouseButton.LeftButton)
    qtbot.mouseClick(card.deny_confirm_button, Qt.MouseButton.LeftButton)
    assert fake_runtime.answers == [("call_3", False, None)]
    qtbot.waitUntil(lambda: not window.controller.busy)
    assert card.status.text() == "Denied"


def test_edited_arguments_are_sent_and_shown_before_and_after(qtbot, window, fake_runtime):
    card = _start(qtbot, window, fake_runtime, Tool("call_4", "time", "get_current_time", ARGS))
    qtbot.mouseClick(card.edit_button, Qt.MouseButton.LeftButton)
    assert card.args.editing and card.arguments.isHidden()
    assert card.args.editor.toPlainText() == card.args.label.text()  # starts from the pretty JSON
    card.args.editor.setPlainText('{"timezone": "Europe/Paris", "options": {"verbose": true}, "format": "iso"}')
    qtbot.mouseClick(card.approve_button, Qt.MouseButton.LeftButton)
    edited = {"timezone": "Europe/Paris", "options": {"verbose": True}, "format": "iso"}
    assert fake_runtime.answer_log[0]["arguments"] == edited
    qtbot.waitUntil(lambda: not window.controller.busy)
    assert fake_runtime.ran_with["call_4"] == edited
    assert card.status.text() == "Approved"
    assert not card.args.editing and not card.arguments.isHidden()
    assert '"Europe/Paris"' in card.arguments.text()  # what ran
    changes = card.args.changes
    assert not changes.isHidden()
    plain = changes.text().replace("&nbsp;", " ")
    assert '− "timezone": "UTC"' in plain and '+ "timezone": "Europe/Paris"' in plain
    assert '+ "format": "iso"' in plain and '"options"' not in plain  # unchanged keys are left out


def test_invalid_edit_shows_an_error_and_blocks_approve(qtbot, window, fake_runtime):
    card = _start(qtbot, window, fake_runtime, Tool("call_5", "time", "now", {"tz": "UTC"}))
    qtbot.mouseClick(card.edit_button, Qt.MouseButton.LeftButton)
    card.args.editor.setPlainText('{"tz": ')
    assert not card.args.error.isHidden() and card.args.error.text().startswith("Invalid JSON at line 1")
    assert not card.approve_button.isEnabled() and not card.approve_menu_button.isEnabled()
    qtbot.mouseClick(card.approve_button, Qt.MouseButton.LeftButton)
    card.scope_actions["tool"].trigger()
    qtbot.keyClick(card, Qt.Key.Key_Return)
    assert fake_runtime.answers == []
    card.args.editor.setPlainText("[1, 2]")
    assert "must be a JSON object" in card.args.error.text() and not card.approve_button.isEnabled()
    card.args.editor.setPlainText('{"tz": "CET"}')
    assert card.args.error.isHidden() and card.approve_button.isEnabled()
    qtbot.mouseClick(card.edit_button, Qt.MouseButton.LeftButton)  # "Undo edits": back to the original
    assert not card.args.editing and card.approve_button.isEnabled()
    qtbot.mouseClick(card.approve_button, Qt.MouseButton.LeftButton)
    assert fake_runtime.answer_log[0]["arguments"] is None


def test_enter_approves_when_the_card_has_focus_and_clicks_a_focused_deny(qtbot, window, fake_runtime):
    card = _start(qtbot, window, fake_runtime, Tool("call_6", "time", "now", {}))
    window.activateWindow()
    qtbot.waitUntil(lambda: window.isActiveWindow())
    card.deny_button.setFocus()
    qtbot.keyClick(card.deny_button, Qt.Key.Key_Return)
    assert fake_runtime.answers == [] and not card.deny_row.isHidden()  # Enter on Deny opens the reason field
    qtbot.mouseClick(card.deny_cancel_button, Qt.MouseButton.LeftButton)
    card.setFocus()
    qtbot.keyClick(card, Qt.Key.Key_Return)
    assert fake_runtime.answers == [("call_6", True, None)]
    qtbot.waitUntil(lambda: not window.controller.busy)


def test_escape_in_the_reason_field_still_stops_the_run(qtbot, window, fake_runtime):
    card = _start(qtbot, window, fake_runtime, Tool("call_7", "time", "now", {}))
    window.activateWindow()
    qtbot.mouseClick(card.deny_button, Qt.MouseButton.LeftButton)
    qtbot.keyClick(card.reason_edit, Qt.Key.Key_Escape)
    qtbot.waitUntil(lambda: not window.controller.busy)
    assert fake_runtime.cancelled == [window.controller.conversation_id] and fake_runtime.answers == []
    assert card.status.text() == "Not answered — the run was stopped" and card.deny_row.isHidden()


def test_a_call_decided_by_a_grant_shows_a_card_without_buttons(qtbot, window, fake_runtime):
    fake_runtime.grants.add(Grant(scope="tool", server="time", tool="now", origin="test"))
    fake_runtime.script(Tool("call_8", "time", "now", {}, result="noon"), Content("It is noon."))
    window.composer.edit.setPlainText("time?")
    qtbot.keyClick(window.composer.edit, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
    qtbot.waitUntil(lambda: not window.controller.busy)
    assert "approval_required" not in [e.kind for e in fake_runtime.emitted]
    card = window.view.cards["call_8"]
    assert card.buttons.isHidden() and card.deny_row.isHidden()
    assert card.status.text() == "Approved by grant (tool)"
    assert card.status.toolTip() == "granted earlier (tool)"
    assert card.result.text() == "noon"


def test_policy_decision_and_a_decision_without_a_card(qtbot):
    view = ChatView()
    qtbot.addWidget(view)
    view._on_run_started(ev.RunStarted(**IDS, model="m", prompt="p"))
    view._on_tool_called(ev.ToolCall(**IDS, tool_call_id="t1", name="search", server="s", tool="search", arguments={}))
    view._on_approval_decided(ev.ApprovalDecided(**IDS, tool_call_id="t1", approved=True, source="policy"))
    assert view.cards["t1"].status.text() == "Approved by policy" and view.cards["t1"].buttons.isHidden()
    card = view._on_approval_decided(
        ev.ApprovalDecided(**IDS, tool_call_id="t2", approved=True, source="grant", scope="server")
    )
    assert view.cards["t2"] is card and card.status.text() == "Approved by grant (server)"
    assert card.buttons.isHidden()


def test_failed_tool_result_is_shown_as_error(qtbot, window, fake_runtime):
    tool = Tool("call_9", "web", "fetch", {"url": "http://x"}, result="connection refused", is_error=True)
    card = _start(qtbot, window, fake_runtime, tool)
    qtbot.mouseClick(card.approve_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not window.controller.busy)
    assert card.result.text() == "connection refused"
    assert card.is_error
    assert card.status.text() == "Failed"


def test_stop_while_waiting_for_approval_cancels_the_run(qtbot, window, fake_runtime):
    card = _start(qtbot, window, fake_runtime, Tool("call_10", "time", "now", {}))
    assert window.composer.button.text() == "Stop"
    qtbot.keyClick(window.composer.edit, Qt.Key.Key_Escape)
    qtbot.waitUntil(lambda: not window.controller.busy)
    assert fake_runtime.cancelled == [window.controller.conversation_id]
    assert window.composer.button.text() == "Send"
    assert any("Stopped" in getattr(b, "text", lambda: "")() for b in window.view.blocks() if hasattr(b, "kind"))
    assert card.buttons.isHidden() and card.status.text() == "Not answered — the run was stopped"
    assert window.view.paused_line is not None and window.view.paused_line.continue_button.isVisibleTo(card.window())


def test_an_edit_then_a_hook_change_show_both_diffs_and_what_ran(qtbot):
    from desktop_app.ui.chat.tool_card import ToolCard

    card = ToolCard("call_9", "crm", "lookup", {"name": "Ada", "fields": "all"})
    qtbot.addWidget(card)
    card.show_decision(True, edited_arguments={"name": "Ada Lovelace", "fields": "all"})
    card.show_result("ok", is_error=False)
    before, after = {"name": "Ada Lovelace", "fields": "all"}, {"name": "Ada Lovelace", "fields": "public"}
    notice = {"kind": "mutated", "event": "PreToolUse", "hooks": ["privacy"], "target": "arguments"}
    notice |= {"before": before, "after": after}
    card.show_hook_notices([notice])
    assert '"fields": "public"' in card.arguments.text() and '"Ada Lovelace"' in card.arguments.text()
    plain = card.args.changes.text().replace("&nbsp;", " ")
    edit, hook = plain.split("Changed by hook privacy:")
    assert "Edited before approval" in edit and '− "name": "Ada"' in edit and '+ "name": "Ada Lovelace"' in edit
    assert '− "fields": "all"' in hook and '+ "fields": "public"' in hook and '"name"' not in hook
