"""The Anthropic Messages provider: request shape, message conversion, event assembly, retries.

Pure pieces are tested directly; the provider end to end runs over ``httpx.MockTransport``.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest

from desktop_app.runtime.errors import (
    EmptyCompletionError,
    ProviderError,
    ProviderHTTPError,
    StreamDisconnected,
    StreamError,
    StreamStalled,
)
from desktop_app.runtime.events import TokenUsage
from desktop_app.runtime.messages import (
    AssistantMessage,
    SystemMessage,
    ToolCallRequest,
    ToolMessage,
    ToolSpec,
    UserMessage,
)
from desktop_app.runtime.providers._retry import RetryPolicy
from desktop_app.runtime.providers.anthropic import (
    AnthropicProvider,
    StreamAssembler,
    anthropic_retry_policy,
    build_body,
    messages_endpoint,
    read_stream,
    to_wire_messages,
)
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
from desktop_app.runtime.providers.factory import make_provider
from desktop_app.runtime.providers.openai import OpenAIProvider
from desktop_app.runtime.settings import ProviderSettings
from tests.support.anthropic_server import (
    MESSAGE_STOP,
    PING,
    anthropic_stream_error,
    anthropic_text_reply,
    anthropic_tool_use_reply,
    block_delta,
    block_start,
    block_stop,
    message_delta,
    message_start,
)
from tests.support.provider_harness import SleepRecorder, drain, lines_of
from tests.support.provider_harness import mock_provider as harness_provider

CALL = ToolCallRequest(id="toolu_1", name="get_time", arguments='{"tz": "UTC"}')
TOOL = ToolSpec(name="get_time", description="Current time", parameters={"type": "object", "properties": {}})


def request(**overrides: Any) -> ChatRequest:
    return ChatRequest(model="claude-test", messages=(UserMessage(content="hi"),)).model_copy(update=overrides)


def raw_of(*steps: Any) -> bytes:
    return b"".join(step for step in steps if isinstance(step, bytes))


def frames_of(raw: bytes) -> list[dict[str, Any]]:
    return [json.loads(line[len("data: ") :]) for line in raw.decode().splitlines() if line.startswith("data: ")]


def assemble(raw: bytes) -> tuple[list[ProviderEvent], StreamAssembler]:
    assembler = StreamAssembler()
    events: list[ProviderEvent] = []
    for frame in frames_of(raw):
        events.extend(assembler.feed(frame))
    return events, assembler


# ---- request ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "base",
    [
        "https://api.anthropic.com",
        "https://api.anthropic.com/",
        "https://api.anthropic.com/v1",
        " https://api.anthropic.com/v1/ ",
    ],
)
def test_endpoint_accepts_base_urls_with_or_without_v1(base: str) -> None:
    assert messages_endpoint(base) == "https://api.anthropic.com/v1/messages"


def test_messages_blocks_thinking_replay_and_merged_tool_results() -> None:
    system, messages = to_wire_messages(
        [
            SystemMessage(content="Be brief."),
            UserMessage(content="time in UTC and Paris?"),
            AssistantMessage(
                content="Checking.",
                reasoning="need the clock",
                reasoning_signature="sig-1",
                tool_calls=(CALL, ToolCallRequest(id="toolu_2", name="get_time", arguments='{"tz": "Europe/Paris"}')),
            ),
            ToolMessage(tool_call_id="toolu_1", content='{"time": "12:00"}'),
            ToolMessage(tool_call_id="toolu_2", content="unknown zone", is_error=True),
            AssistantMessage(content="It is noon in UTC.", reasoning="done"),
            SystemMessage(content="Late rule."),
            UserMessage(content="thanks"),
        ]
    )
    assert system == "Be brief.\n\nLate rule."
    assert messages == [
        {"role": "user", "content": [{"type": "text", "text": "time in UTC and Paris?"}]},
        {
            "role": "assistant",
            "content": [
                {"type": "thinking", "thinking": "need the clock", "signature": "sig-1"},
                {"type": "text", "text": "Checking."},
                {"type": "tool_use", "id": "toolu_1", "name": "get_time", "input": {"tz": "UTC"}},
                {"type": "tool_use", "id": "toolu_2", "name": "get_time", "input": {"tz": "Europe/Paris"}},
            ],
        },
        {
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": "toolu_1", "content": '{"time": "12:00"}', "is_error": False},
                {"type": "tool_result", "tool_use_id": "toolu_2", "content": "unknown zone", "is_error": True},
            ],
        },
        # reasoning without a signature (e.g. from another dialect) is not replayed
        {"role": "assistant", "content": [{"type": "text", "text": "It is noon in UTC."}]},
        {"role": "user", "content": [{"type": "text", "text": "thanks"}]},
    ]


def test_empty_messages_are_dropped_and_bad_arguments_become_an_empty_input() -> None:
    _, messages = to_wire_messages(
        [
            UserMessage(content="go"),
            AssistantMessage(content="", reasoning="only thinking, no signature"),
            UserMessage(content="again"),
            AssistantMessage(tool_calls=(ToolCallRequest(id="t", name="x", arguments="[1, 2]"),)),
        ]
    )
    assert messages == [
        {"role": "user", "content": [{"type": "text", "text": "go"}, {"type": "text", "text": "again"}]},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "t", "name": "x", "input": {}}]},
    ]


def test_body_shape_with_system_and_tools() -> None:
    req = request(messages=(SystemMessage(content="sys"), UserMessage(content="hi")), tools=(TOOL,))
    assert build_body(req, prompt_cache=False) == {
        "model": "claude-test",
        "max_tokens": 8192,
        "stream": True,
        "system": "sys",
        "messages": [{"role": "user", "content": [{"type": "text", "text": "hi"}]}],
        "tools": [
            {
                "name": "get_time",
                "description": "Current time",
                "input_schema": {"type": "object", "properties": {}},
            }
        ],
    }


def test_body_without_system_tools_or_thinking() -> None:
    body = build_body(request(thinking=False, reasoning_effort="high"), max_tokens=100, prompt_cache=False)
    assert body == {
        "model": "claude-test",
        "max_tokens": 100,
        "stream": True,
        "messages": [{"role": "user", "content": [{"type": "text", "text": "hi"}]}],
    }


def test_thinking_budget() -> None:
    assert build_body(request(thinking=True))["thinking"] == {"type": "enabled", "budget_tokens": 4096}
    body = build_body(request(thinking=True), thinking_budget=2000)
    assert (body["max_tokens"], body["thinking"]["budget_tokens"]) == (8192, 2000)
    body = build_body(request(thinking=True, max_tokens=1500))  # room for the answer is made
    assert (body["max_tokens"], body["thinking"]["budget_tokens"]) == (2048, 1024)
    body = build_body(request(thinking=True), thinking_budget=10000)
    assert (body["max_tokens"], body["thinking"]["budget_tokens"]) == (11024, 10000)


def test_body_repairs_a_tool_use_without_its_result() -> None:
    req = request(messages=(UserMessage(content="hi"), AssistantMessage(tool_calls=(CALL,)), UserMessage(content="?")))
    messages = build_body(req)["messages"]
    assert [m["role"] for m in messages] == ["user", "assistant", "user"]
    [result, text] = messages[2]["content"]
    assert (result["type"], result["tool_use_id"]) == ("tool_result", "toolu_1")
    assert text == {"type": "text", "text": "?", "cache_control": {"type": "ephemeral"}}  # the last block


@pytest.mark.asyncio
async def test_factory_picks_the_provider_by_dialect() -> None:
    sleep = SleepRecorder()
    anthropic = make_provider(ProviderSettings(base_url="https://api.anthropic.com", dialect="anthropic"), "k")
    assert isinstance(anthropic, AnthropicProvider)
    assert anthropic.endpoint == "https://api.anthropic.com/v1/messages"
    await anthropic.aclose()
    for dialect in ("openai", "deepseek"):
        settings = ProviderSettings(base_url="https://api.deepseek.com", dialect=dialect, stall_timeout_s=5)
        provider = make_provider(settings, "k", sleep=sleep)
        assert isinstance(provider, OpenAIProvider)
        assert (provider.dialect, provider._idle_timeout, provider._sleep) == (dialect, 5, sleep)
        await provider.aclose()


def test_529_is_added_to_any_retry_policy() -> None:
    assert 529 in anthropic_retry_policy().retryable_statuses
    custom = anthropic_retry_policy(RetryPolicy(jitter=0, retryable_statuses=frozenset({503})))
    assert custom.retryable_statuses == {503, 529}
    assert custom.jitter == 0


# ---- assembling a stream ------------------------------------------------------------------------------


def test_text_thinking_and_usage_with_cache_tokens() -> None:
    raw = raw_of(*anthropic_text_reply("Hello there", thinking="Let me think", signature="sig-xyz").steps)
    events, _ = assemble(raw)
    assert "".join(e.text for e in events if isinstance(e, ReasoningChunk)) == "Let me think"
    assert "".join(e.text for e in events if isinstance(e, ContentChunk)) == "Hello there"
    kinds = [e.kind for e in events]
    assert kinds.index("content") > max(i for i, k in enumerate(kinds) if k == "reasoning")

    raw = raw_of(
        message_start(input_tokens=7, cache_read=100, cache_creation=20),
        PING,
        block_start(0, {"type": "text", "text": ""}),
        block_delta(0, {"type": "text_delta", "text": "cached"}),
        block_stop(0),
        message_delta("end_turn", output_tokens=3),
        MESSAGE_STOP,
    )
    events, assembler = assemble(raw)
    usage = TokenUsage(
        prompt_tokens=127,
        completion_tokens=3,
        total_tokens=130,
        cache_hit_tokens=100,
        cache_miss_tokens=27,
        cache_creation_tokens=20,
    )
    assert events == [ContentChunk(text="cached"), UsageChunk(usage=usage)]  # usage once, when final
    assert assembler.finished
    assert assembler.complete() == Completion(content="cached", finish_reason="end_turn", usage=usage)


def test_completion_keeps_reasoning_and_its_signature() -> None:
    raw = raw_of(*anthropic_text_reply("Hi", thinking="hmm", signature="sig-abc").steps)
    _, assembler = assemble(raw)
    completion = assembler.complete()
    assert (completion.content, completion.reasoning, completion.reasoning_signature) == ("Hi", "hmm", "sig-abc")


def test_tool_use_input_json_split_across_deltas() -> None:
    raw = raw_of(
        message_start(),
        block_start(0, {"type": "text", "text": ""}),
        block_delta(0, {"type": "text_delta", "text": "Let me check."}),
        block_stop(0),
        block_start(1, {"type": "tool_use", "id": "toolu_a", "name": "get_time", "input": {}}),
        block_delta(1, {"type": "input_json_delta", "partial_json": '{"tz'}),
        block_delta(1, {"type": "input_json_delta", "partial_json": '": "UT'}),
        block_delta(1, {"type": "input_json_delta", "partial_json": 'C"}'}),
        block_stop(1),
        block_start(2, {"type": "tool_use", "id": "toolu_b", "name": "ping", "input": {}}),
        block_stop(2),
        message_delta("tool_use"),
        MESSAGE_STOP,
    )
    events, assembler = assemble(raw)
    chunks = [e for e in events if isinstance(e, ToolCallChunk)]
    assert [(c.index, c.id, c.name, c.arguments_delta) for c in chunks] == [
        (0, "toolu_a", "get_time", ""),
        (0, "toolu_a", "get_time", '{"tz'),
        (0, "toolu_a", "get_time", '": "UT'),
        (0, "toolu_a", "get_time", 'C"}'),
        (1, "toolu_b", "ping", ""),
    ]
    completion = assembler.complete()
    assert completion.finish_reason == "tool_use"
    assert completion.content == "Let me check."
    assert completion.tool_calls == (
        ToolCallRequest(id="toolu_a", name="get_time", arguments='{"tz": "UTC"}'),
        ToolCallRequest(id="toolu_b", name="ping", arguments="{}"),
    )
    assert completion.tool_calls[0].parsed_arguments() == {"tz": "UTC"}


@pytest.mark.parametrize(
    ("stop_reason", "finish"),
    [
        ("max_tokens", "max_tokens"),
        ("refusal", "content_filter"),
        ("tool_use", "tool_use"),
        ("end_turn", "end_turn"),
        ("stop_sequence", "end_turn"),
    ],
)
def test_stop_reasons(stop_reason: str, finish: str) -> None:
    raw = raw_of(*anthropic_text_reply("trunc").steps).replace(b'"end_turn"', f'"{stop_reason}"'.encode())
    _, assembler = assemble(raw)
    assert assembler.complete().finish_reason == finish


def test_empty_completions() -> None:
    _, assembler = assemble(raw_of(*anthropic_text_reply("", thinking="only thinking").steps))
    with pytest.raises(EmptyCompletionError) as info:
        assembler.complete()
    assert info.value.retryable is True
    _, assembler = assemble(raw_of(*anthropic_text_reply("  ").steps))
    with pytest.raises(EmptyCompletionError) as info:
        assembler.complete()
    assert info.value.retryable is False


def test_error_events() -> None:
    assembler = StreamAssembler()
    [overloaded] = frames_of(anthropic_stream_error())
    with pytest.raises(StreamError) as info:
        assembler.feed(overloaded)
    assert info.value.after_progress is False and info.value.retryable is True
    assert "overloaded_error" in str(info.value)

    assembler.feed({"type": "content_block_start", "index": 0, "content_block": {"type": "text"}})
    assembler.feed({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "x"}})
    with pytest.raises(StreamError) as info:
        assembler.feed(overloaded)
    assert info.value.after_progress is True

    [invalid] = frames_of(anthropic_stream_error("invalid_request_error", "bad"))
    with pytest.raises(ProviderError) as error:
        StreamAssembler().feed(invalid)
    assert not isinstance(error.value, StreamError)


def test_odd_events_are_tolerated() -> None:
    assembler = StreamAssembler()
    frames: list[dict[str, Any]] = [
        {"type": "ping"},
        {"type": "content_block_delta", "index": 9, "delta": {"type": "text_delta", "text": "orphan"}},
        {"type": "content_block_start", "index": 0, "content_block": {"type": "redacted_thinking", "data": "x"}},
        {"type": "content_block_start", "index": "1", "content_block": {"type": "text"}},
        {"type": "something_new"},
        {"type": "message_delta", "delta": "?", "usage": {"output_tokens": "many"}},
    ]
    for frame in frames:
        assert assembler.feed(frame) == []


# ---- reading a stream ---------------------------------------------------------------------------------


async def collect_stream(lines: AsyncIterator[str], idle_timeout: float = 5) -> list[ProviderEvent]:
    return await drain(read_stream(lines, idle_timeout=idle_timeout))


@pytest.mark.asyncio
async def test_message_stop_completes_without_eof() -> None:
    raw = raw_of(*anthropic_tool_use_reply([("toolu_1", "get_time", {"tz": "UTC"})], thinking="t").steps)
    events = await asyncio.wait_for(collect_stream(lines_of(raw, then_silence=True)), 5)
    completion = events[-1]
    assert isinstance(completion, Completion)
    assert completion.tool_calls == (CALL,)
    assert completion.reasoning_signature == "sig"


@pytest.mark.asyncio
async def test_eof_before_message_stop_is_a_disconnect() -> None:
    partial = raw_of(*anthropic_text_reply("partial").steps).replace(MESSAGE_STOP, b"")
    with pytest.raises(StreamDisconnected) as info:
        await collect_stream(lines_of(partial))
    assert info.value.after_progress is True
    with pytest.raises(StreamDisconnected) as info:
        await collect_stream(lines_of(raw_of(message_start(), PING)))
    assert info.value.after_progress is False


@pytest.mark.asyncio
async def test_a_stray_done_frame_does_not_end_the_answer() -> None:
    first, *rest = anthropic_text_reply("after").steps
    events = await collect_stream(lines_of(raw_of(first, b"data: [DONE]\n\n", *rest)))
    completion = events[-1]
    assert isinstance(completion, Completion) and completion.content == "after"


@pytest.mark.asyncio
async def test_pings_do_not_reset_the_stall_timer() -> None:
    async def pinging() -> AsyncIterator[str]:
        for line in message_start().decode().split("\n"):
            yield line
        while True:  # scripted server behaviour: a ping every 10 ms, never any output
            await asyncio.sleep(0.01)
            for line in PING.decode().split("\n"):
                yield line

    with pytest.raises(StreamStalled) as info:
        await asyncio.wait_for(collect_stream(pinging(), idle_timeout=0.1), 5)
    assert info.value.after_progress is False


# ---- the provider over MockTransport ------------------------------------------------------------------


def mock_provider(
    bodies: list[bytes | httpx.Response], *, api_key: str | None = "sk-ant-test", **kwargs: Any
) -> tuple[AnthropicProvider, list[httpx.Request], SleepRecorder]:
    return harness_provider(AnthropicProvider, bodies, base_url="http://llm.test/", api_key=api_key, **kwargs)


async def run(provider: AnthropicProvider, req: ChatRequest | None = None) -> list[ProviderEvent]:
    return await drain(provider.stream(req or request()), closing=provider)


TEXT_OK = raw_of(*anthropic_text_reply("ok").steps)


@pytest.mark.asyncio
async def test_provider_posts_the_body_with_headers() -> None:
    provider, seen, _ = mock_provider([TEXT_OK], max_tokens=2048, thinking_budget=1024)
    req = request(thinking=True, tools=(TOOL,))
    events = await run(provider, req)
    assert isinstance(events[-1], Completion) and events[-1].content == "ok"
    [sent] = seen
    assert str(sent.url) == "http://llm.test/v1/messages"
    assert sent.method == "POST"
    assert sent.headers["x-api-key"] == "sk-ant-test"
    assert sent.headers["anthropic-version"] == "2023-06-01"
    assert sent.headers["content-type"] == "application/json"
    assert sent.headers["accept"] == "text/event-stream"
    assert "authorization" not in sent.headers
    assert json.loads(sent.content) == build_body(req, max_tokens=2048, thinking_budget=1024)


@pytest.mark.asyncio
async def test_529_overloaded_is_retried_at_request_level() -> None:
    overloaded = {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}
    provider, seen, sleep = mock_provider([httpx.Response(529, json=overloaded), TEXT_OK])
    events = await run(provider)
    assert len(seen) == 2
    assert sleep.delays == [1]
    retry = events[0]
    assert isinstance(retry, RetryChunk)
    assert (retry.info.stage, retry.info.status_code, retry.info.stream_reset) == ("request", 529, False)
    assert isinstance(events[-1], Completion)


@pytest.mark.asyncio
async def test_400_is_not_retried() -> None:
    bad = {"type": "error", "error": {"type": "invalid_request_error", "message": "bad"}}
    provider, seen, sleep = mock_provider([httpx.Response(400, json=bad)])
    with pytest.raises(ProviderHTTPError) as info:
        await run(provider)
    assert info.value.status == 400 and "invalid_request_error" in str(info.value)
    assert (len(seen), sleep.delays) == (1, [])


@pytest.mark.asyncio
async def test_error_event_before_progress_is_retried_with_stream_reset() -> None:
    provider, seen, sleep = mock_provider([raw_of(message_start(), PING, anthropic_stream_error()), TEXT_OK])
    events = await run(provider)
    assert len(seen) == 2
    assert sleep.delays == [1]
    retry = events[0]
    assert isinstance(retry, RetryChunk)
    assert (retry.info.stage, retry.info.stream_reset) == ("stream", True)
    assert [e.kind for e in events[1:]] == ["content", "usage", "completion"]


@pytest.mark.asyncio
async def test_error_event_after_progress_is_not_retried() -> None:
    partial = raw_of(
        message_start(),
        block_start(0, {"type": "text", "text": ""}),
        block_delta(0, {"type": "text_delta", "text": "half"}),
        anthropic_stream_error(),
    )
    provider, seen, sleep = mock_provider([partial])
    with pytest.raises(StreamError) as info:
        await run(provider)
    assert info.value.after_progress is True
    assert (len(seen), sleep.delays) == (1, [])


@pytest.mark.asyncio
async def test_thinking_only_is_retried_then_recovers() -> None:
    provider, seen, _ = mock_provider([raw_of(*anthropic_text_reply("", thinking="hmm").steps), TEXT_OK])
    events = await run(provider)
    assert len(seen) == 2
    kinds = [e.kind for e in events]
    assert kinds == ["reasoning", "usage", "retry", "content", "usage", "completion"]
    retry = events[2]
    assert isinstance(retry, RetryChunk)
    assert retry.info.reason == "model returned no content" and retry.info.stream_reset


def test_constructor_validates_limits() -> None:
    with pytest.raises(ValueError, match="max_tokens"):
        AnthropicProvider(base_url="http://x", api_key=None, max_tokens=0)
    with pytest.raises(ValueError, match="thinking_budget"):
        AnthropicProvider(base_url="http://x", api_key=None, thinking_budget=100)


def test_cache_breakpoints_on_system_last_tool_and_last_message_only() -> None:
    other = TOOL.model_copy(update={"name": "zz_last"})
    first = request(messages=(SystemMessage(content="sys"), UserMessage(content="hi")), tools=(TOOL, other))
    body = build_body(first)
    ephemeral = {"type": "ephemeral"}
    assert body["system"] == [{"type": "text", "text": "sys", "cache_control": ephemeral}]
    assert "cache_control" not in body["tools"][0] and body["tools"][1]["cache_control"] == ephemeral
    assert body["messages"][-1]["content"][-1]["cache_control"] == ephemeral
    later = first.model_copy(
        update={"messages": (*first.messages, AssistantMessage(content="hello"), UserMessage(content="more"))}
    )
    body = build_body(later)
    marked = [m for m in body["messages"] if any("cache_control" in b for b in m["content"])]
    assert marked == [body["messages"][-1]]  # the breakpoint moved to the end; earlier blocks are unchanged
    assert body["messages"][0] == {"role": "user", "content": [{"type": "text", "text": "hi"}]}
