"""The agent picked for a conversation drives its runs: its instructions (also when picked mid-conversation or
on a reopened, lazily loaded history), its model, its tool allowlist and its approval default; a defined
default agent gives new conversations its instructions."""

from __future__ import annotations

import pytest

from desktop_app.runtime import events as ev
from desktop_app.runtime.messages import AssistantMessage, SystemMessage, UserMessage
from desktop_app.runtime.settings import AgentSettings
from tests.support.fakes import answer, calls
from tests.unit.runtime.agents.test_agents import build

NARROW = AgentSettings(
    name="narrow", instructions="Be narrow.", model="narrow-model", servers=["switchboard.t"], tools=["ping"],
    approval="ask",
)  # fmt: skip


@pytest.mark.asyncio
async def test_a_picked_agent_gives_the_run_its_instructions_model_tools_and_approval_default() -> None:
    runtime, provider, _seen = build([NARROW], [answer("hi"), calls(("p", "ping", "{}")), answer("pinged")])
    asked: list[ev.ApprovalRequired] = []

    def approve(event: ev.Event) -> None:
        if isinstance(event, ev.ApprovalRequired):
            asked.append(event)
            runtime.answer(event.tool_call_id, approved=True)

    runtime.subscribe(approve)
    try:
        conversation = runtime.new_conversation()
        assert runtime.conversation_agent(conversation) == "assistant"
        await runtime.run(conversation, "hello")  # the default agent: every tool, the app's policy (always)
        first = provider.requests[0]
        assert first.model == "m" and "secret" in [t.name for t in first.tools]
        runtime.set_conversation_agent(conversation, "narrow")  # mid-conversation: from the next run
        await runtime.run(conversation, "ping it")
        second = provider.requests[1]
        assert second.model == "narrow-model" and [t.name for t in second.tools] == ["ping"]
        assert second.messages[0] == SystemMessage(content="Be narrow.")
        assert [m.content for m in second.messages if isinstance(m, UserMessage)] == ["hello", "ping it"]
        assert [a.tool for a in asked] == ["ping"]  # its own default (ask) is stricter than the app's
        runtime.set_conversation_agent(conversation, "assistant")
        assert not any(isinstance(m, SystemMessage) for m in runtime.conversation(conversation).messages)
    finally:
        await runtime.aclose()


@pytest.mark.asyncio
async def test_a_reopened_history_takes_the_agents_instructions_when_it_is_read() -> None:
    runtime, provider, _seen = build([NARROW], [answer("again")])
    try:
        reads: list[int] = []

        def history() -> list:  # the store's loader, as replay.reopen gives it
            reads.append(1)
            return [SystemMessage(content="old prompt"), UserMessage(content="hi"), AssistantMessage(content="yo")]

        runtime.load_conversation("stored", history)
        runtime.set_conversation_agent("stored", "narrow")
        assert reads == []  # not read for that
        await runtime.run("stored", "more")
        messages = provider.requests[0].messages
        assert messages[0] == SystemMessage(content="Be narrow.") and messages[1] == UserMessage(content="hi")
        assert provider.requests[0].model == "narrow-model"
    finally:
        await runtime.aclose()


@pytest.mark.asyncio
async def test_a_defined_default_agent_gives_new_conversations_its_instructions() -> None:
    runtime, provider, _seen = build(
        [AgentSettings(name="assistant", instructions="I am the defined default.")], [answer("hi")]
    )
    try:
        conversation = runtime.new_conversation()
        await runtime.run(conversation, "hello")
        assert provider.requests[0].messages[0] == SystemMessage(content="I am the defined default.")
    finally:
        await runtime.aclose()
