"""Guards of the Runtime that only slow integration or UI tests defended (issue 21, guard 10), each as a fast unit test
through the real Runtime: run events carry no known secret, a runtime built as the app builds it asks before a tool
runs, and the system prompt carries no timestamp (the prompt cache's stable prefix)."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from pathlib import Path

import pytest

from desktop_app.paths import app_paths
from desktop_app.runtime import events as ev
from desktop_app.runtime.messages import SystemMessage, UserMessage
from desktop_app.runtime.redaction import MASK, remember
from desktop_app.runtime.run.approvals import ApprovalPolicy
from desktop_app.runtime.service import Runtime
from desktop_app.runtime.settings import ProviderSettings, Settings
from tests.support.fakes import FakeHost, FakeProvider, answer, calls

SECRET = "correct-horse-battery-staple-42"
"""A known secret that is not key-shaped: only remembering it masks it."""


def settings(**extra: object) -> Settings:
    return Settings(provider=ProviderSettings(base_url="http://127.0.0.1:9/v1", model="m"), **extra)  # type: ignore[arg-type]


@pytest.mark.asyncio
async def test_run_events_carry_no_known_secret() -> None:
    remember(SECRET)  # e.g. a keyring value a server was given, which it echoes back
    host = FakeHost({"whoami": lambda _a: f"logged in with {SECRET}"})
    provider = FakeProvider(
        [calls(("c1", "mcp__fake__whoami", "{}")), answer(f"Your token is {SECRET}.", reasoning=f"It said {SECRET}")]
    )
    runtime = Runtime(
        settings=settings(), host=host, policy=ApprovalPolicy("always"), provider_factory=lambda _s, _k: provider
    )
    events: list[ev.Event] = []
    runtime.subscribe(events.append)
    outcome = await runtime.run(runtime.new_conversation(), "who am I?")
    await runtime.aclose()
    assert outcome.status == "finished"
    [result] = [e for e in events if isinstance(e, ev.ToolResult)]
    assert result.text == f"logged in with {MASK}"
    assert "".join(e.text for e in events if isinstance(e, ev.ContentDelta)) == f"Your token is {MASK}."
    assert "".join(e.text for e in events if isinstance(e, ev.ReasoningDelta)) == f"It said {MASK}"
    [finished] = [e for e in events if isinstance(e, ev.RunFinished)]
    assert finished.content == f"Your token is {MASK}."
    assert not [e.kind for e in events if SECRET in e.model_dump_json()]


@pytest.mark.asyncio
async def test_a_runtime_without_a_policy_asks_before_a_tool_runs() -> None:
    """The window builds its runtime without a policy (App._start_runtime → assemble): it must ask."""
    host = FakeHost({"wipe": lambda _a: "wiped"})
    provider = FakeProvider([calls(("c1", "mcp__fake__wipe", "{}")), answer("done")])
    runtime = Runtime(settings=settings(), host=host, provider_factory=lambda _s, _k: provider)
    asked = asyncio.Event()
    events: list[ev.Event] = []

    def on_event(event: ev.Event) -> None:
        events.append(event)
        if isinstance(event, ev.ApprovalRequired):
            asked.set()

    runtime.subscribe(on_event)
    run = asyncio.create_task(runtime.run(runtime.new_conversation(), "clean up"))
    async with asyncio.timeout(10):
        await asked.wait()
    assert host.log == []  # waiting for the user: nothing ran
    [request] = [e for e in events if isinstance(e, ev.ApprovalRequired)]
    runtime.answer(request.tool_call_id, approved=False, reason="no")
    outcome = await run
    await runtime.aclose()
    assert outcome.status == "finished" and host.log == []


def test_the_app_assembles_its_runtime_with_the_ask_policy(tmp_path: Path) -> None:
    from desktop_app.assembly import assemble

    built = assemble(app_paths(tmp_path / "sb").ensure(), strict=False)  # as App._start_runtime does
    try:
        assert built.runtime.policy == ApprovalPolicy("ask", auto_approve_read_only=False)
    finally:
        asyncio.run(built.aclose())


@pytest.mark.asyncio
async def test_the_system_prompt_has_no_timestamp_and_is_the_same_bytes_every_turn() -> None:
    clock = [datetime(2025, 3, 4, 12, 5, tzinfo=UTC)]
    provider = FakeProvider([answer("one"), answer("two")])
    runtime = Runtime(
        settings=settings(system_prompt="You are terse."),
        host=FakeHost(),
        provider_factory=lambda _s, _k: provider,
        now=lambda: clock[0],
    )
    runtime.system_blocks.append(lambda: "Available skills:\n- notes: Take notes")
    conversation = runtime.new_conversation()
    await runtime.run(conversation, "first", context=runtime.default_context())
    clock[0] = datetime(2026, 11, 30, 23, 59, tzinfo=UTC)  # a later turn, another day
    await runtime.run(conversation, "second", context=runtime.default_context())
    await runtime.aclose()
    first, second = (request.messages for request in provider.requests)
    expected = SystemMessage(content="You are terse.\n\nAvailable skills:\n- notes: Take notes")
    assert first[0] == expected and second[0] == expected  # byte for byte, no date or time in it
    assert second[: len(first)] == first  # the second request only appends to the first
    for messages, date in ((first, "2025-03-04"), (second, "2026-11-30")):
        last = messages[-1]
        assert isinstance(last, UserMessage) and date in last.context  # the time goes with the user's message
        assert all(date not in str(m.content) for m in messages if isinstance(m, SystemMessage))
