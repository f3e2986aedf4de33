"""``AnthropicProvider`` against the real-socket scripted LLM server: the Messages wire format end to end."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from desktop_app.runtime.events import TokenUsage
from desktop_app.runtime.messages import AssistantMessage, ToolCallRequest, ToolMessage, ToolSpec, UserMessage
from desktop_app.runtime.providers.anthropic import AnthropicProvider
from desktop_app.runtime.providers.base import (
    ChatRequest,
    Completion,
    ContentChunk,
    ProviderEvent,
    ReasoningChunk,
    RetryChunk,
    ToolCallChunk,
    UsageChunk,
)
from tests.support.anthropic_server import anthropic_error_reply, anthropic_text_reply, anthropic_tool_use_reply
from tests.support.llm_server import ScriptedLLMServer
from tests.support.provider_harness import SleepRecorder, drain, recorded_provider, text_of

REQUEST = ChatRequest(model="claude-test", messages=(UserMessage(content="hi"),))
TIME_TOOL = ToolSpec(name="get_time", description="Current time", parameters={"type": "object", "properties": {}})


def make_provider(server: ScriptedLLMServer, **kwargs: Any) -> tuple[AnthropicProvider, SleepRecorder]:
    kwargs.setdefault("base_url", server.url)
    return recorded_provider(AnthropicProvider, api_key="sk-ant-loop", **kwargs)


async def collect(provider: AnthropicProvider, request: ChatRequest = REQUEST) -> list[ProviderEvent]:
    async with asyncio.timeout(20):  # a hang fails the test instead of stalling the suite
        return await drain(provider.stream(request))


@pytest.mark.asyncio
@pytest.mark.parametrize("with_v1", [True, False])
async def test_streamed_answer_with_thinking(llm_server: ScriptedLLMServer, with_v1: bool) -> None:
    llm_server.enqueue(
        anthropic_text_reply("Hello there", thinking="Let me think", signature="sig-1", cache_read=90, cache_creation=4)
    )
    base = llm_server.url if with_v1 else llm_server.url.removesuffix("/v1")
    provider, sleep = make_provider(llm_server, base_url=base)
    try:
        events = await collect(provider, REQUEST.model_copy(update={"thinking": True}))
    finally:
        await provider.aclose()

    assert text_of(events, ReasoningChunk) == "Let me think"
    assert text_of(events, ContentChunk) == "Hello there"
    usage = TokenUsage(
        prompt_tokens=104,
        completion_tokens=5,
        total_tokens=109,
        cache_hit_tokens=90,
        cache_miss_tokens=14,
        cache_creation_tokens=4,
    )
    assert [e for e in events if isinstance(e, UsageChunk)] == [UsageChunk(usage=usage)]
    assert events[-1] == Completion(
        content="Hello there", reasoning="Let me think", reasoning_signature="sig-1", usage=usage
    )
    [sent] = llm_server.requests
    assert sent.path == "/v1/messages"
    assert sent.headers["x-api-key"] == "sk-ant-loop"
    assert sent.headers["anthropic-version"] == "2023-06-01"
    assert sent.json["stream"] is True
    assert sent.json["thinking"] == {"type": "enabled", "budget_tokens": 4096}
    assert sleep.delays == []


@pytest.mark.asyncio
async def test_529_overloaded_then_success(llm_server: ScriptedLLMServer) -> None:
    llm_server.enqueue(anthropic_error_reply(529, "overloaded_error", "Overloaded"), anthropic_text_reply("Recovered"))
    provider, sleep = make_provider(llm_server)
    try:
        events = await collect(provider)
    finally:
        await provider.aclose()

    assert len(llm_server.requests) == 2
    retries = [e for e in events if isinstance(e, RetryChunk)]
    assert len(retries) == 1
    info = retries[0].info
    assert (info.stage, info.status_code, info.attempt, info.stream_reset) == ("request", 529, 2, False)
    assert sleep.delays == [1.0]  # injected: nothing really slept
    assert isinstance(events[-1], Completion) and events[-1].content == "Recovered"


@pytest.mark.asyncio
async def test_tool_use_round_trip(llm_server: ScriptedLLMServer) -> None:
    # The tool_use reply holds the socket open after message_stop: the client must complete on message_stop.
    llm_server.enqueue(
        anthropic_tool_use_reply([("toolu_1", "get_time", {"timezone": "UTC"})], thinking="Need time.", signature="s1"),
        anthropic_text_reply("It is noon."),
    )
    provider, _ = make_provider(llm_server)
    try:
        first_request = REQUEST.model_copy(update={"tools": (TIME_TOOL,), "thinking": True})
        first = await collect(provider, first_request)
        completion = first[-1]
        assert isinstance(completion, Completion)
        assert completion.finish_reason == "tool_use"
        assert completion.tool_calls == (
            ToolCallRequest(id="toolu_1", name="get_time", arguments='{"timezone": "UTC"}'),
        )
        assert {(c.index, c.id, c.name) for c in first if isinstance(c, ToolCallChunk)} == {(0, "toolu_1", "get_time")}

        history = (
            *first_request.messages,
            AssistantMessage(
                content=completion.content,
                reasoning=completion.reasoning,
                reasoning_signature=completion.reasoning_signature,
                tool_calls=completion.tool_calls,
            ),
            ToolMessage(tool_call_id="toolu_1", content='{"datetime": "12:00"}'),
        )
        second = await collect(provider, first_request.model_copy(update={"messages": history}))
    finally:
        await provider.aclose()

    assert isinstance(second[-1], Completion) and second[-1].content == "It is noon."
    body = llm_server.requests[1].json
    assert body["tools"] == [
        {
            "name": "get_time",
            "description": "Current time",
            "input_schema": TIME_TOOL.parameters,
            "cache_control": {"type": "ephemeral"},  # the tools' cache breakpoint
        }
    ]
    assert body["messages"][-2] == {
        "role": "assistant",
        "content": [
            {"type": "thinking", "thinking": "Need time.", "signature": "s1"},
            {"type": "tool_use", "id": "toolu_1", "name": "get_time", "input": {"timezone": "UTC"}},
        ],
    }
    assert body["messages"][-1] == {
        "role": "user",
        "content": [
            {
                "type": "tool_result",
                "tool_use_id": "toolu_1",
                "content": '{"datetime": "12:00"}',
                "is_error": False,
                "cache_control": {"type": "ephemeral"},  # the last message's breakpoint
            }
        ],
    }
