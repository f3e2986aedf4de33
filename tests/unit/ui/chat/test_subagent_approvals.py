"""A sub-agent's approvals reach the window: the controller passes on the events of the agents its conversation
called (``subagent_event``, which the view nests under the parent's card, and the approval requests on the
ordinary signal for the status line), so a run waiting on one never hangs unseen."""

from __future__ import annotations

from desktop_app.runtime import events as ev
from desktop_app.runtime.settings import AgentSettings
from desktop_app.ui.chat.controller import ChatController
from tests.support.fakes import answer, calls
from tests.unit.runtime.agents.test_agents import build, chat


def test_a_subagent_approval_is_shown_and_answered_in_the_parent_view(qtbot, qloop):
    agents = [AgentSettings(name="helper", servers=["switchboard.t"], tools=["ping"])]
    runtime, _provider, _seen = build(
        agents, [chat("1", "helper"), calls(("p", "ping", "{}")), answer("pinged"), answer("ok")], mode="ask"
    )
    controller = ChatController(runtime)
    asked: list[ev.ApprovalRequired] = []
    results: list[ev.ToolResult] = []
    nested: list[ev.Event] = []

    def approve(event: ev.ApprovalRequired) -> None:
        asked.append(event)
        runtime.answer(event.tool_call_id, approved=True)

    controller.approval_required.connect(approve)
    controller.tool_result.connect(results.append)
    controller.subagent_event.connect(nested.append)
    other = ChatController(runtime)  # another conversation's view shows none of it
    seen_elsewhere: list[object] = []
    other.approval_required.connect(seen_elsewhere.append)
    try:
        with qtbot.waitSignal(controller.busy_changed, check_params_cb=lambda busy: not busy, timeout=10000):
            qloop.create_task(controller.send("start"))
        assert [a.tool for a in asked] == ["chat-with-helper", "ping"]
        assert asked[1].conversation_id != controller.conversation_id  # the helper's own conversation
        assert [(r.tool, r.text) for r in results] == [("chat-with-helper", "pinged")]  # the parent's own
        kinds = [e.kind for e in nested]
        assert kinds[0] == "subagent_started" and kinds[-1] == "subagent_finished"
        assert [(e.tool, e.text) for e in nested if isinstance(e, ev.ToolResult)] == [("ping", "pong")]
        assert all(e.conversation_id == asked[1].conversation_id for e in nested[1:-1])
        assert seen_elsewhere == []
    finally:
        other.close()
        controller.close()
        closing = qloop.create_task(runtime.aclose())
        qtbot.waitUntil(closing.done, timeout=5000)
