"""The UI tests' ``FakeRuntime`` plays approvals and grants as the real ``Runtime`` does: the same scenarios
run against both (the real one with a scripted provider and an in-memory host) must give the same events.

Compared per event: the kind and what the UI shows (server, tool, arguments, decision, source, scope, reason,
edited arguments, result text and error flag, the end's reason and content). Ids are compared by position
(the real runtime owns its call ids; the fake takes the script's), and model-facing names are left out.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import pytest

from desktop_app.runtime import events as ev
from desktop_app.runtime.run.approvals import ApprovalPolicy, GrantStore
from desktop_app.runtime.service import Runtime
from desktop_app.runtime.settings import ProviderSettings, Settings
from tests.support.fake_runtime import Content, FakeRuntime, Tool
from tests.support.fakes import FakeHost, FakeProvider, answer, calls

FIELDS = ("server", "tool", "arguments", "approved", "source", "scope", "reason", "edited_arguments", "text")
FIELDS += ("is_error", "content", "continued")


@dataclass
class Turn:
    """One user turn: tool calls ``(id, tool, arguments, result)`` and then the answer."""

    calls: Sequence[tuple[str, str, dict[str, Any], str]]
    answer: str
    answers: dict[str, dict[str, Any]] = field(default_factory=dict)  # approval answers by call id
    policy: bool | None = None  # the fake's per-call policy; the real runtime gets ApprovalPolicy


def _shape(events: Sequence[ev.Event]) -> list[tuple[Any, ...]]:
    order: dict[str, int] = {}
    out = []
    for event in events:
        row: list[Any] = [event.kind]
        call_id = getattr(event, "tool_call_id", None)
        if call_id is not None:
            row.append(order.setdefault(call_id, len(order)))
        row += [(name, getattr(event, name)) for name in FIELDS if hasattr(event, name)]
        out.append(tuple(row))
    return out


def _answerer(runtime: Any, turns: Sequence[Turn], model_ids: dict[str, str]) -> Any:
    script = {call_id: a for turn in turns for call_id, a in turn.answers.items()}

    def on_event(event: ev.Event) -> None:
        if isinstance(event, ev.ToolCall):
            model_ids[event.tool_call_id] = event.model_call_id or event.tool_call_id
        if isinstance(event, ev.ApprovalRequired):
            runtime.answer(event.tool_call_id, **script[model_ids[event.tool_call_id]])

    return on_event


async def _real(turns: Sequence[Turn]) -> list[ev.Event]:
    responses = []
    for turn in turns:
        if turn.calls:
            responses.append(calls(*((i, f"mcp__fake__{tool}", _json(args)) for i, tool, args, _r in turn.calls)))
        responses.append(answer(turn.answer))
    results = {tool: result for turn in turns for _i, tool, _a, result in turn.calls}
    host = FakeHost({tool: (lambda _a, r=result: r) for tool, result in results.items()})
    policy = turns[0].policy
    mode = "ask" if policy is None else "always" if policy else "never"
    settings = Settings(provider=ProviderSettings(base_url="http://127.0.0.1:9/v1", model="m"))
    provider = FakeProvider(responses)  # one scripted provider for every turn
    runtime = Runtime(
        settings=settings,
        host=host,
        policy=ApprovalPolicy(mode),
        grants=GrantStore(),
        provider_factory=lambda _s, _k: provider,
        api_key_override="k",
    )
    events: list[ev.Event] = []
    runtime.subscribe(events.append)
    runtime.subscribe(_answerer(runtime, turns, {}))
    conversation = runtime.new_conversation()
    for _turn in turns:
        await runtime.run(conversation, "go")
    await runtime.aclose()
    return events


async def _fake(turns: Sequence[Turn]) -> list[ev.Event]:
    runtime = FakeRuntime()
    for turn in turns:
        steps: list[Any] = [
            Tool(i, "fake", tool, args, result=result, policy=turn.policy) for i, tool, args, result in turn.calls
        ]
        runtime.script(*steps, Content(turn.answer))
    events: list[ev.Event] = []
    runtime.subscribe(events.append)
    runtime.subscribe(_answerer(runtime, turns, {}))
    conversation = runtime.new_conversation()
    for _turn in turns:
        await runtime.run(conversation, "go")
    return events


def _json(arguments: dict[str, Any]) -> str:
    import json

    return json.dumps(arguments)


SCENARIOS = {
    "approve once": [Turn([("a", "echo", {"x": 1}, "echo 1")], "done", {"a": {"approved": True}})],
    "deny with a reason": [
        Turn([("a", "echo", {"x": 1}, "echo 1")], "ok", {"a": {"approved": False, "reason": "not now"}})
    ],
    "edit the arguments": [
        Turn([("a", "echo", {"x": 1}, "echo 2")], "done", {"a": {"approved": True, "arguments": {"x": 2}}})
    ],
    "a tool grant covers the next turn": [
        Turn([("a", "echo", {}, "one")], "first", {"a": {"approved": True, "scope": "tool"}}),
        Turn([("b", "echo", {}, "one")], "second"),
    ],
    "a conversation grant and another tool": [
        Turn(
            [("a", "echo", {}, "e"), ("b", "other", {}, "o")],
            "both",
            {"a": {"approved": True, "scope": "conversation"}, "b": {"approved": True}},
        ),
        Turn([("c", "echo", {}, "e"), ("d", "other", {}, "o")], "again", {"d": {"approved": False}}),
    ],
    "policy approves": [Turn([("a", "echo", {}, "e")], "done", policy=True)],
    "policy denies": [Turn([("a", "echo", {}, "e")], "done", policy=False)],
}


@pytest.mark.parametrize("name", list(SCENARIOS))
def test_the_fake_runtime_gives_the_real_runtimes_events(name: str) -> None:
    turns = SCENARIOS[name]
    real = asyncio.run(_real(turns))
    fake = asyncio.run(_fake(turns))
    assert any(row[0] == "approval_decided" for row in _shape(real))  # the scenario decided something
    assert _shape(fake) == _shape(real)
