"""Three tool rounds over the real SSE wire: approve, deny with a reason, edited arguments and "always".

The request bodies the loopback server received show the denial reason and the edited arguments reaching
the model.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from desktop_app.runtime import events as ev
from desktop_app.runtime.run.approvals import ApprovalPolicy
from desktop_app.runtime.service import Runtime
from desktop_app.runtime.settings import ProviderSettings, Settings
from tests.support.fakes import FakeHost, ModelIds
from tests.support.llm_server import ScriptedLLMServer, text_reply, tool_call_reply

SCRIPT: dict[str, dict[str, Any]] = {
    "r1_ok": {"approved": True},
    "r1_no": {"approved": False, "reason": "do not touch my files"},
    "r2_edit": {"approved": True, "arguments": {"path": "/tmp/safe.txt"}},
    "r3_always": {"approved": True, "scope": "tool"},
}


@pytest.mark.asyncio
async def test_three_rounds_of_mixed_decisions_reach_the_model(llm_server: ScriptedLLMServer) -> None:
    host = FakeHost({"read": lambda a: f"read {a.get('path')}", "write": lambda a: f"wrote {a.get('path')}"})
    llm_server.enqueue(
        tool_call_reply(
            [("r1_ok", "mcp__fake__read", {"path": "/etc/hosts"}), ("r1_no", "mcp__fake__write", {"path": "/etc/x"})]
        ),
        tool_call_reply([("r2_edit", "mcp__fake__write", {"path": "/etc/passwd"})]),
        tool_call_reply(
            [("r3_always", "mcp__fake__read", {"path": "a"}), ("r3_again", "mcp__fake__read", {"path": "b"})]
        ),
        text_reply("All done."),
    )
    settings = Settings(provider=ProviderSettings(base_url=llm_server.url, model="m"))
    runtime = Runtime(settings=settings, host=host, policy=ApprovalPolicy("ask"))
    events: list[ev.Event] = []
    ids = ModelIds()  # SCRIPT is keyed on the model's ids; events carry the runtime's

    def on_event(event: ev.Event) -> None:
        events.append(event)
        ids(event)
        if isinstance(event, ev.ApprovalRequired):
            runtime.answer(event.tool_call_id, **SCRIPT[ids.model(event.tool_call_id)])

    runtime.subscribe(on_event)
    try:
        outcome = await runtime.run(runtime.new_conversation(), "tidy up")
    finally:
        await runtime.aclose()
    assert outcome.status == "finished" and outcome.content == "All done."
    # r3_again was covered by the "always" grant of r3_always: never asked.
    asked = [ids.model(e.tool_call_id) for e in events if isinstance(e, ev.ApprovalRequired)]
    assert asked == ["r1_ok", "r1_no", "r2_edit", "r3_always"]
    decided = {ids.model(e.tool_call_id): e for e in events if isinstance(e, ev.ApprovalDecided)}
    assert decided["r3_again"].source == "grant"
    assert host.log == [
        ("fake", "read", {"path": "/etc/hosts"}),
        ("fake", "write", {"path": "/tmp/safe.txt"}),
        ("fake", "read", {"path": "a"}),
        ("fake", "read", {"path": "b"}),
    ]
    bodies = [r.json for r in llm_server.requests]
    assert len(bodies) == 4
    # Round 1's denial reason reaches the model.
    denial = next(m for m in bodies[1]["messages"] if m.get("tool_call_id") == "r1_no")
    assert "do not touch my files" in denial["content"] and denial["content"].startswith("Error:")
    # Round 2's edited arguments reach the model: in the replayed tool call and in the result.
    replayed = next(
        m
        for m in bodies[2]["messages"]
        if m["role"] == "assistant" and m.get("tool_calls") and m["tool_calls"][0]["id"] == "r2_edit"
    )
    assert json.loads(replayed["tool_calls"][0]["function"]["arguments"]) == {"path": "/tmp/safe.txt"}
    edited = next(m for m in bodies[2]["messages"] if m.get("tool_call_id") == "r2_edit")
    assert "edited the arguments" in edited["content"] and "/tmp/safe.txt" in edited["content"]
    # Round 3's results are both there.
    results = [m for m in bodies[3]["messages"] if m.get("tool_call_id") in {"r3_always", "r3_again"}]
    assert [m["content"] for m in results] == ["read a", "read b"]
