"""``OpenAIProvider`` against the real-socket scripted LLM server: the wire format end to end.

The retry and stall fixtures (Whale §1.3) are in ``test_retry_fixtures.py``.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from desktop_app.runtime.events import TokenUsage
from desktop_app.runtime.messages import ToolCallRequest, ToolSpec, UserMessage
from desktop_app.runtime.providers.base import (
    ChatRequest,
    Completion,
    ContentChunk,
    ProviderEvent,
    ReasoningChunk,
    ToolCallChunk,
    UsageChunk,
)
from desktop_app.runtime.providers.openai import OpenAIProvider
from tests.support.llm_server import (
    DONE,
    KEEPALIVE,
    Reply,
    ScriptedLLMServer,
    chunk,
    text_reply,
    tool_call_reply,
    usage_frame,
)
from tests.support.provider_harness import SleepRecorder, drain, recorded_provider, text_of

REQUEST = ChatRequest(model="test-model", messages=(UserMessage(content="hi"),))


def make_provider(server: ScriptedLLMServer, **kwargs: Any) -> tuple[OpenAIProvider, SleepRecorder]:
    return recorded_provider(OpenAIProvider, base_url=server.url, api_key="sk-loop", **kwargs)


async def collect(provider: OpenAIProvider, request: ChatRequest = REQUEST) -> list[ProviderEvent]:
    async with asyncio.timeout(20):  # a hang fails the test instead of stalling the suite
        return await drain(provider.stream(request), closing=provider)


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
    # The server holds the socket open for 30 s after finish_reason: tool_calls and the usage frame.
    llm_server.enqueue(
        tool_call_reply(
            [("call_a", "get_time", {"tz": "UTC"}), ("call_b", "echo", {"text": "hi"})], reasoning="r", hold_open=True
        )
    )
    provider, _ = make_provider(llm_server, finish_grace=0.2)
    loop = asyncio.get_running_loop()
    started = loop.time()
    events = await collect(provider)
    assert loop.time() - started < 5  # bounded by the grace, not by the 30 s the server holds on
    assert [e for e in events if isinstance(e, UsageChunk)] == [
        UsageChunk(usage=TokenUsage(prompt_tokens=10, completion_tokens=5, total_tokens=15))
    ]

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
async def test_usage_after_a_tool_calls_finish_is_counted(llm_server: ScriptedLLMServer) -> None:
    # As OpenAI/DeepSeek send it: finish_reason tool_calls, then the include_usage frame, then [DONE].
    llm_server.enqueue(tool_call_reply([("call_a", "get_time", {"tz": "UTC"})]))
    provider, _ = make_provider(llm_server)
    events = await collect(provider)
    usage = TokenUsage(prompt_tokens=10, completion_tokens=5, total_tokens=15)
    assert [e for e in events if isinstance(e, UsageChunk)] == [UsageChunk(usage=usage)]
    completion = events[-1]
    assert isinstance(completion, Completion)
    assert completion.finish_reason == "tool_use"
    assert completion.usage == usage


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


# ---- prefix completion (DeepSeek beta) ----------------------------------------------------------------


def beta_provider(server: ScriptedLLMServer, **kwargs: Any) -> OpenAIProvider:
    """A DeepSeek provider whose base ends in ``/beta``: used as-is for prefix completion."""
    base_url = server.url.replace("/v1", "/beta")
    return recorded_provider(OpenAIProvider, base_url=base_url, api_key="sk-loop", dialect="deepseek", **kwargs)[0]


async def collect_prefix(
    provider: OpenAIProvider, request: ChatRequest, prefix: str, stop: list[str] | None = None
) -> list[ProviderEvent]:
    async with asyncio.timeout(20):
        return await drain(provider.stream_with_prefix(request, prefix, stop), closing=provider)


JUDGE = ChatRequest(
    model="deepseek-chat",
    messages=(UserMessage(content="Judge this."),),
    tools=(ToolSpec(name="get_time"),),
    thinking=False,
)


@pytest.mark.asyncio
async def test_prefix_completion_joins_the_prefix_with_the_content(llm_server: ScriptedLLMServer) -> None:
    llm_server.enqueue(text_reply('"decision":"pass"}', piece=6))
    events = await collect_prefix(beta_provider(llm_server), JUDGE, "{", stop=["\n\n"])

    deltas = [e.text for e in events if isinstance(e, ContentChunk)]
    assert deltas[0] == "{"
    assert "".join(deltas) == '{"decision":"pass"}'
    completion = events[-1]
    assert isinstance(completion, Completion)
    assert completion.content == '{"decision":"pass"}'
    [sent] = llm_server.requests
    assert sent.path == "/beta/chat/completions"
    body = sent.json
    assert body["messages"] == [
        {"role": "user", "content": "Judge this."},
        {"role": "assistant", "content": "{", "prefix": True},
    ]
    assert body["stop"] == ["\n\n"]
    assert "tools" not in body
    assert body["thinking"] == {"type": "disabled"}
    assert body["stream"] is True


@pytest.mark.asyncio
async def test_prefix_completion_does_not_double_a_repeated_prefix(llm_server: ScriptedLLMServer) -> None:
    llm_server.enqueue(text_reply('{"decision":"block"}', piece=100))
    events = await collect_prefix(beta_provider(llm_server), JUDGE, "{")
    assert [e.text for e in events if isinstance(e, ContentChunk)] == ['{"decision":"block"}']
    assert isinstance(events[-1], Completion)
    assert events[-1].content == '{"decision":"block"}'
    assert "stop" not in llm_server.requests[0].json


@pytest.mark.asyncio
async def test_prefix_completion_falls_back_on_a_custom_base(llm_server: ScriptedLLMServer) -> None:
    llm_server.enqueue(text_reply("plain answer"))
    provider, _ = make_provider(llm_server, dialect="deepseek")
    events = await collect_prefix(provider, JUDGE, "{", stop=["}"])
    assert isinstance(events[-1], Completion)
    assert events[-1].content == "plain answer"
    [sent] = llm_server.requests
    assert sent.path == "/v1/chat/completions"
    assert sent.json["messages"] == [{"role": "user", "content": "Judge this."}]
    assert "tools" not in sent.json
    assert "stop" not in sent.json
