"""Tool-call ids from the wire are not trusted: every call gets the runtime's own id (run + position).

A model that reuses ``call_0`` in a later turn, or twice in one response, still gets one approval, one
progress stream and one result per call; the wire keeps the model's ids; the store keeps the calls apart
and a reopened conversation pairs every result with its own call.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from desktop_app.runtime import events as ev
from desktop_app.runtime.conversation import internal_call_id, wire_messages
from desktop_app.runtime.messages import AssistantMessage, ToolCallRequest, ToolMessage
from desktop_app.runtime.run.approvals import ApprovalPolicy
from desktop_app.runtime.service import Runtime
from desktop_app.runtime.settings import ProviderSettings, Settings
from desktop_app.runtime.store import Store, attach_store
from tests.support.fakes import FakeHost, FakeProvider, answer, calls


def _runtime(provider: FakeProvider, host: FakeHost, mode: str = "ask") -> Runtime:
    settings = Settings(provider=ProviderSettings(base_url="http://127.0.0.1:9/v1", model="m"))
    return Runtime(
        settings=settings,
        host=host,
        policy=ApprovalPolicy(mode),  # type: ignore[arg-type]
        provider_factory=lambda _s, _k: provider,
        api_key_override="k",
    )


class _Approver:
    """Approves every call as it is asked, recording the events."""

    def __init__(self, runtime: Runtime) -> None:
        self.runtime = runtime
        self.events: list[ev.Event] = []
        runtime.subscribe(self)

    def __call__(self, event: ev.Event) -> None:
        self.events.append(event)
        if isinstance(event, ev.ApprovalRequired):
            self.runtime.answer(event.tool_call_id, approved=True)

    def of(self, kind: type) -> list:  # type: ignore[type-arg]
        return [e for e in self.events if isinstance(e, kind)]


def _script() -> FakeProvider:
    return FakeProvider(
        [
            calls(("call_0", "mcp__fake__echo", '{"x": 1}')),
            answer("First."),
            calls(("call_0", "mcp__fake__echo", '{"x": 2}'), ("call_0", "mcp__fake__echo", '{"x": 3}')),
            answer("Second."),
        ]
    )


@pytest.mark.asyncio
async def test_a_reused_call_id_gets_its_own_approval_and_result_in_every_turn(tmp_path: Path) -> None:
    provider = _script()
    host = FakeHost({"echo": lambda a: f"echo {a['x']}"})
    runtime = _runtime(provider, host)
    store = Store.open(tmp_path / "switchboard.db")
    recorder = attach_store(runtime, store)
    approver = _Approver(runtime)
    try:
        conversation = runtime.new_conversation()
        first = await runtime.run(conversation, "one")
        second = await runtime.run(conversation, "two and three")
    finally:
        await runtime.aclose()
        recorder.close()

    assert (first.content, second.content) == ("First.", "Second.")
    called = approver.of(ev.ToolCall)
    ids = [e.tool_call_id for e in called]
    assert len(set(ids)) == 3, ids
    assert [e.model_call_id for e in called] == ["call_0"] * 3
    assert ids == [
        internal_call_id(first.run_id, 0),
        internal_call_id(second.run_id, 0),
        internal_call_id(second.run_id, 1),
    ]
    # each call was asked, decided and answered under its own id, with its own arguments and result
    assert [e.tool_call_id for e in approver.of(ev.ApprovalRequired)] == ids
    assert [e.tool_call_id for e in approver.of(ev.ApprovalDecided)] == ids
    results = {e.tool_call_id: e.text for e in approver.of(ev.ToolResult)}
    assert results == {ids[0]: "echo 1", ids[1]: "echo 2", ids[2]: "echo 3"}
    assert host.log == [("fake", "echo", {"x": 1}), ("fake", "echo", {"x": 2}), ("fake", "echo", {"x": 3})]

    # the wire: the model's ids come back; the repeat within one response gets an id of its own
    last = provider.requests[-1].messages
    wire_calls = [c.id for m in last if isinstance(m, AssistantMessage) for c in m.tool_calls]
    wire_results = [(m.tool_call_id, m.content) for m in last if isinstance(m, ToolMessage)]
    assert wire_calls == ["call_0", "call_0", ids[2]]
    assert wire_results == [("call_0", "echo 1"), ("call_0", "echo 2"), (ids[2], "echo 3")]

    # the store: three calls, three results, three approvals, and a reopened history pairs them right
    parts = [p for m in store.messages(conversation) for p in m.parts if p.kind in ("tool_call", "tool_result")]
    assert [(p.kind, p.tool_call_id) for p in parts] == [
        ("tool_call", ids[0]),
        ("tool_result", ids[0]),
        ("tool_call", ids[1]),
        ("tool_call", ids[2]),
        ("tool_result", ids[1]),
        ("tool_result", ids[2]),
    ]
    assert [row["tool_call_id"] for row in store.approvals(conversation)] == ids
    reopened = store.load_messages(conversation)
    texts = [m.text_of("text") for m in store.messages(conversation) if m.role == "assistant" and m.text_of("text")]
    assert texts == ["First.", "Second."]  # the second turn's text is its own message, not glued to the first
    calls_back = [c for m in reopened if isinstance(m, AssistantMessage) for c in m.tool_calls]
    assert [(c.id, c.model_id) for c in calls_back] == [(i, "call_0") for i in ids]
    assert [m.tool_call_id for m in wire_messages(reopened) if isinstance(m, ToolMessage)] == [
        "call_0",
        "call_0",
        ids[2],
    ]
    store.close()


def test_wire_messages_leave_a_history_without_internal_ids_alone() -> None:
    history = [
        AssistantMessage(tool_calls=(ToolCallRequest(id="a", name="t"),)),
        ToolMessage(tool_call_id="a", content="ok"),
    ]
    assert list(wire_messages(history)) == history
