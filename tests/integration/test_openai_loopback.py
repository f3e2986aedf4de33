"""``OpenAIProvider`` against the real-socket scripted LLM server: the wire format end to end."""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

import pytest

from desktop_app.runtime.errors import StreamStalled
from desktop_app.runtime.events import TokenUsage
from desktop_app.runtime.messages import ToolCallRequest, UserMessage
from desktop_app.runtime.providers._retry import RetryPolicy
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
from desktop_app.runtime.providers.openai import OpenAIProvider
from tests.support.llm_server import (
    DONE,
    KEEPALIVE,
    Pause,
    Reply,
    ScriptedLLMServer,
    chunk,
    error_reply,
    text_reply,
    tool_call_reply,
    usage_frame,
)

REQUEST = ChatRequest(model="test-model", messages=(UserMessage(content="hi"),))


class SleepRecorder:
    def __init__(self) -> None:
        self.delays: list[float] = []

    async def __call__(self, delay: float) -> None:
        self.delays.append(delay)


def make_provider(server: ScriptedLLMServer, **kwargs: Any) -> tuple[OpenAIProvider, SleepRecorder]:
    sleep = SleepRecorder()
    kwargs.setdefault("retry_policy", RetryPolicy(jitter=0))
    return OpenAIProvider(base_url=server.url, api_key="sk-loop", sleep=sleep, **kwargs), sleep


async def collect(provider: OpenAIProvider, request: ChatRequest = REQUEST) -> list[ProviderEvent]:
    try:
        async with asyncio.timeout(20):  # a hang fails the test instead of stalling the suite
            async with contextlib.aclosing(provider.stream(request)) as events:
                return [event async for event in events]
    finally:
        await provider.aclose()


def text_of(events: list[ProviderEvent], kind: type[ContentChunk] | type[ReasoningChunk]) -> str:
    return "".join(e.text for e in events if isinstance(e, kind))


@pytest.mark.asyncio
async def test_reasoning_content_and_usage(llm_server: ScriptedLLMServer) -> None:
    llm_server.enqueue(text_reply("Hello there", reasoning="Let me think"))
    provider, sleep = make_provider(llm_server, dialect="deepseek")
    events = await collect(provider, REQUEST.model_copy(update={"thinking": True}))

    assert text_of(events, ReasoningChunk) == "Let me think"
    assert text_of(events, ContentChunk) == "Hello there"
    usage = TokenUsage(prompt_tokens=10, completion_tokens=5, total_tokens=15)
    assert [e for e in events if isinstance(e, UsageChunk)] == [UsageChunk(usage=usage)]
    assert events[-1] == Completion(
        content="Hello there", reasoning="Let me think", finish_reason="end_turn", usage=usage
    )
    [sent] = llm_server.requests
    assert sent.path == "/v1/chat/completions"
    assert sent.headers["authorization"] == "Bearer sk-loop"
    assert sent.headers["accept"] == "text/event-stream"
    assert sent.json["stream"] is True
    assert sent.json["thinking"] == {"type": "enabled"}
    assert sleep.delays == []


@pytest.mark.asyncio
async def test_tool_calls_complete_without_done(llm_server: ScriptedLLMServer) -> None:
    # The server holds the socket open for 30 s after finish_reason: tool_calls.
    llm_server.enqueue(
        tool_call_reply([("call_a", "get_time", {"tz": "UTC"}), ("call_b", "echo", {"text": "hi"})], reasoning="r")
    )
    provider, _ = make_provider(llm_server)
    events = await collect(provider)

    fragments = [e for e in events if isinstance(e, ToolCallChunk)]
    assert [(f.index, f.id, f.name) for f in fragments] == [
        (0, "call_a", "get_time"),
        (0, "call_a", "get_time"),
        (1, "call_b", "echo"),
        (1, "call_b", "echo"),
    ]
    completion = events[-1]
    assert isinstance(completion, Completion)
    assert completion.finish_reason == "tool_use"
    assert completion.tool_calls == (
        ToolCallRequest(id="call_a", name="get_time", arguments='{"tz": "UTC"}'),
        ToolCallRequest(id="call_b", name="echo", arguments='{"text": "hi"}'),
    )
    assert completion.reasoning == "r"


@pytest.mark.asyncio
async def test_usage_only_frame_with_cache_tokens(llm_server: ScriptedLLMServer) -> None:
    llm_server.enqueue(
        Reply(steps=[chunk(content="cached"), chunk(finish_reason="stop"), usage_frame(100, 3, hit=96, miss=4), DONE])
    )
    provider, _ = make_provider(llm_server)
    events = await collect(provider)
    completion = events[-1]
    assert isinstance(completion, Completion)
    assert completion.usage == TokenUsage(
        prompt_tokens=100, completion_tokens=3, total_tokens=103, cache_hit_tokens=96, cache_miss_tokens=4
    )


@pytest.mark.asyncio
async def test_malformed_frame_and_keepalives_are_skipped(llm_server: ScriptedLLMServer) -> None:
    llm_server.enqueue(
        Reply(
            steps=[
                KEEPALIVE,
                chunk(content="one "),
                b"data: {not-json}\n\n",
                KEEPALIVE,
                b"event: ping\nid: 3\n\n",
                chunk(content="two"),
                chunk(finish_reason="stop"),
                DONE,
            ]
        )
    )
    provider, sleep = make_provider(llm_server)
    events = await collect(provider)
    assert events == [ContentChunk(text="one "), ContentChunk(text="two"), Completion(content="one two")]
    assert len(llm_server.requests) == 1
    assert sleep.delays == []


@pytest.mark.asyncio
async def test_stall_before_progress_is_retried(llm_server: ScriptedLLMServer) -> None:
    llm_server.enqueue(Reply(steps=[KEEPALIVE, Pause(30.0)]), text_reply("recovered"))
    provider, sleep = make_provider(llm_server, idle_timeout=0.2)
    events = await collect(provider)
    assert len(llm_server.requests) == 2
    retry = events[0]
    assert isinstance(retry, RetryChunk)
    assert (retry.info.stage, retry.info.stream_reset, retry.info.attempt) == ("stream", True, 1)
    assert sleep.delays == [1]
    assert text_of(events, ContentChunk) == "recovered"
    assert isinstance(events[-1], Completion)


@pytest.mark.asyncio
async def test_stall_before_progress_without_stream_retries_raises(llm_server: ScriptedLLMServer) -> None:
    llm_server.enqueue(Reply(steps=[KEEPALIVE, Pause(30.0)]))
    provider, _ = make_provider(llm_server, idle_timeout=0.2, retry_policy=RetryPolicy(stream_max_attempts=1))
    with pytest.raises(StreamStalled) as info:
        await collect(provider)
    assert info.value.after_progress is False
    assert "no output for 0.2 s" in str(info.value)


@pytest.mark.asyncio
async def test_stall_after_progress_is_not_retried(llm_server: ScriptedLLMServer) -> None:
    llm_server.enqueue(Reply(steps=[chunk(reasoning="thinking"), KEEPALIVE, Pause(30.0)]), text_reply("unused"))
    provider, sleep = make_provider(llm_server, idle_timeout=0.2)
    seen: list[ProviderEvent] = []

    async def consume() -> None:
        try:
            async with asyncio.timeout(20), contextlib.aclosing(provider.stream(REQUEST)) as events:
                async for event in events:
                    seen.append(event)
        finally:
            await provider.aclose()

    with pytest.raises(StreamStalled) as info:
        await consume()
    assert info.value.after_progress is True
    assert seen == [ReasoningChunk(text="thinking")]
    assert len(llm_server.requests) == 1
    assert sleep.delays == []


@pytest.mark.asyncio
async def test_rate_limit_with_retry_after_then_ok(llm_server: ScriptedLLMServer) -> None:
    llm_server.enqueue(
        error_reply(429, {"error": {"message": "rate limited"}}, headers={"Retry-After": "2"}),
        text_reply("finally"),
    )
    provider, sleep = make_provider(llm_server)
    events = await collect(provider)
    assert len(llm_server.requests) == 2
    retries = [e for e in events if isinstance(e, RetryChunk)]
    assert len(retries) == 1
    info = retries[0].info
    assert (info.attempt, info.status_code, info.stage, info.stream_reset, info.delay_s) == (
        1,
        429,
        "request",
        False,
        2,
    )
    assert info.reason == "API rate limited"
    assert sleep.delays == [2]
    assert events[0] is retries[0]
    assert isinstance(events[-1], Completion)
    assert events[-1].content == "finally"
