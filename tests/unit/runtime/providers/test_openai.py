"""The chat-completions provider: request shape, message conversion, chunk assembly, stream retries.

Pure pieces are tested directly; the provider end to end runs over ``httpx.MockTransport``.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest

from desktop_app.runtime.errors import EmptyCompletionError, ProviderHTTPError, StreamDisconnected
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
from desktop_app.runtime.providers._sse import DEFAULT_FINISH_GRACE
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
from desktop_app.runtime.providers.openai_request import Dialect, build_body, to_wire_messages
from desktop_app.runtime.providers.openai_stream import StreamAssembler, read_stream
from tests.support.provider_harness import SleepRecorder, drain, lines_of
from tests.support.provider_harness import mock_provider as harness_provider

DIALECTS: tuple[Dialect, ...] = ("openai", "deepseek")
CALL = ToolCallRequest(id="call_1", name="get_time", arguments='{"tz": "UTC"}')
TOOL = ToolSpec(name="get_time", description="Current time", parameters={"type": "object", "properties": {}})


def frame(delta: dict[str, Any] | None = None, finish: str | None = None, **extra: Any) -> dict[str, Any]:
    return {"choices": [{"index": 0, "delta": delta or {}, "finish_reason": finish}], **extra}


def sse(*frames: dict[str, Any] | str) -> bytes:
    return b"".join(f"data: {f if isinstance(f, str) else json.dumps(f)}\n\n".encode() for f in frames)


# ---- message conversion -------------------------------------------------------------------------------


def test_messages_of_every_role() -> None:
    messages = (
        SystemMessage(content="be brief"),
        UserMessage(content="time?"),
        AssistantMessage(content="", tool_calls=(CALL,)),
        ToolMessage(tool_call_id="call_1", content="12:00", is_error=False),
        AssistantMessage(content="It is noon."),
    )
    assert to_wire_messages(messages) == [
        {"role": "system", "content": "be brief"},
        {"role": "user", "content": "time?"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {"id": "call_1", "type": "function", "function": {"name": "get_time", "arguments": '{"tz": "UTC"}'}}
            ],
        },
        {"role": "tool", "tool_call_id": "call_1", "content": "12:00"},
        {"role": "assistant", "content": "It is noon."},
    ]


def test_reasoning_is_stripped_from_assistant_messages_without_tool_calls() -> None:
    message = AssistantMessage(content="noon", reasoning="the clock says so")
    for dialect in DIALECTS:
        assert to_wire_messages([message], dialect=dialect, thinking=True) == [{"role": "assistant", "content": "noon"}]


def test_reasoning_is_sent_back_on_deepseek_tool_call_messages_only() -> None:
    message = AssistantMessage(content="let me check", reasoning="need the clock", tool_calls=(CALL,))
    for thinking in (None, False, True):
        [wire] = to_wire_messages([message], dialect="deepseek", thinking=thinking)
        assert wire["reasoning_content"] == "need the clock"
        assert wire["content"] == "let me check"
        [plain] = to_wire_messages([message], dialect="openai", thinking=thinking)
        assert "reasoning_content" not in plain  # stock OpenAI-compatible servers do not know the field
        assert plain["content"] == "let me check"


def test_failed_tool_results_say_so_in_the_content() -> None:
    wire = to_wire_messages(
        [
            ToolMessage(tool_call_id="c", content="no such city", is_error=True),
            ToolMessage(tool_call_id="d", content="ok"),
        ]
    )
    assert [w["content"] for w in wire] == ["Error: no such city", "ok"]


def test_empty_reasoning_on_tool_call_messages_only_for_deepseek_thinking() -> None:
    message = AssistantMessage(tool_calls=(CALL,))
    [wire] = to_wire_messages([message], dialect="deepseek", thinking=True)
    assert wire["reasoning_content"] == ""
    cases: tuple[tuple[Dialect, bool | None], ...] = (("deepseek", False), ("deepseek", None), ("openai", True))
    for dialect, thinking in cases:
        [wire] = to_wire_messages([message], dialect=dialect, thinking=thinking)
        assert "reasoning_content" not in wire


# ---- request body -------------------------------------------------------------------------------------


def request(**overrides: Any) -> ChatRequest:
    fields: dict[str, Any] = {"model": "m", "messages": (UserMessage(content="hi"),)}
    fields.update(overrides)
    return ChatRequest(**fields)


def test_openai_body_shape() -> None:
    assert build_body(request()) == {
        "model": "m",
        "stream": True,
        "stream_options": {"include_usage": True},
        "messages": [{"role": "user", "content": "hi"}],
    }
    body = build_body(request(tools=(TOOL,), max_tokens=256, thinking=True, reasoning_effort="HIGH"))
    assert body["tools"] == [
        {
            "type": "function",
            "function": {
                "name": "get_time",
                "description": "Current time",
                "parameters": {"type": "object", "properties": {}},
            },
        }
    ]
    assert body["max_tokens"] == 256
    assert "thinking" not in body
    assert "reasoning_effort" not in body
    assert "max_tokens" not in build_body(request(max_tokens=0))


def test_deepseek_body_shape() -> None:
    on = build_body(request(thinking=True, reasoning_effort=" High "), dialect="deepseek")
    assert on["thinking"] == {"type": "enabled"}
    assert on["reasoning_effort"] == "high"
    off = build_body(request(thinking=False, reasoning_effort="high"), dialect="deepseek")
    assert off["thinking"] == {"type": "disabled"}
    assert "reasoning_effort" not in off
    unset = build_body(request(reasoning_effort="high"), dialect="deepseek")
    assert "thinking" not in unset
    assert "reasoning_effort" not in unset
    assert "reasoning_effort" not in build_body(request(thinking=True, reasoning_effort=""), dialect="deepseek")
    assert "tools" not in build_body(request(tools=()), dialect="deepseek")


# ---- assembling chunks --------------------------------------------------------------------------------


def test_interleaved_tool_calls_are_assembled_by_index() -> None:
    assembler = StreamAssembler()
    events = []
    for delta in (
        {"tool_calls": [{"index": 0, "id": "a", "function": {"name": "first", "arguments": '{"x"'}}]},
        {"tool_calls": [{"index": 1, "id": "b", "function": {"name": "second", "arguments": '{"y"'}}]},
        {
            "tool_calls": [
                {"index": 0, "function": {"arguments": ": 1}"}},
                {"index": 1, "function": {"arguments": ": 2}"}},
            ]
        },
    ):
        events += assembler.feed(frame(delta))
    events += assembler.feed(frame(finish="tool_calls"))
    assert events == [
        ToolCallChunk(index=0, id="a", name="first", arguments_delta='{"x"'),
        ToolCallChunk(index=1, id="b", name="second", arguments_delta='{"y"'),
        ToolCallChunk(index=0, id="a", name="first", arguments_delta=": 1}"),
        ToolCallChunk(index=1, id="b", name="second", arguments_delta=": 2}"),
    ]
    assert assembler.finished
    completion = assembler.complete()
    assert completion.finish_reason == "tool_use"
    assert completion.tool_calls == (
        ToolCallRequest(id="a", name="first", arguments='{"x": 1}'),
        ToolCallRequest(id="b", name="second", arguments='{"y": 2}'),
    )


def test_missing_index_means_zero_and_empty_id_or_name_do_not_overwrite() -> None:
    assembler = StreamAssembler()
    assembler.feed(frame({"tool_calls": [{"id": "c0", "function": {"name": "run", "arguments": "{"}}]}))
    chunks = assembler.feed(frame({"tool_calls": [{"id": "", "function": {"name": "", "arguments": "}"}}]}))
    assert chunks == [ToolCallChunk(index=0, id="c0", name="run", arguments_delta="}")]
    assert assembler.complete().tool_calls == (ToolCallRequest(id="c0", name="run", arguments="{}"),)


def test_sparse_indices_are_kept_in_index_order_and_missing_ids_are_filled() -> None:
    assembler = StreamAssembler()
    assembler.feed(frame({"tool_calls": [{"index": 2, "function": {"name": "late", "arguments": ""}}]}))
    assembler.feed(frame({"tool_calls": [{"index": 0, "id": "early", "function": {"name": "early"}}]}))
    calls = assembler.complete().tool_calls
    assert [call.name for call in calls] == ["early", "late"]
    assert calls[0].arguments == "{}"
    assert calls[1].id.startswith("call_")
    assert len(calls[1].id) > len("call_")


def test_content_reasoning_and_usage() -> None:
    assembler = StreamAssembler()
    events = assembler.feed(frame({"role": "assistant", "content": ""}))
    assert (events, assembler.progressed) == ([], False)  # an empty role frame is no progress
    events = assembler.feed(frame({"reasoning_content": "hmm"}))
    events += assembler.feed(frame({"content": "Hel"}))
    events += assembler.feed(frame({"content": "lo"}, finish="stop"))
    usage = {
        "prompt_tokens": 10,
        "completion_tokens": 5,
        "total_tokens": 15,
        "prompt_cache_hit_tokens": 8,
        "prompt_cache_miss_tokens": 2,
    }
    events += assembler.feed({"choices": [], "usage": usage})
    expected_usage = TokenUsage(
        prompt_tokens=10, completion_tokens=5, total_tokens=15, cache_hit_tokens=8, cache_miss_tokens=2
    )
    assert events == [
        ReasoningChunk(text="hmm"),
        ContentChunk(text="Hel"),
        ContentChunk(text="lo"),
        UsageChunk(usage=expected_usage),
    ]
    assert assembler.progressed
    assert assembler.complete() == Completion(
        content="Hello", reasoning="hmm", finish_reason="end_turn", usage=expected_usage
    )


def test_zero_usage_is_ignored_and_openai_cached_tokens_are_mapped() -> None:
    assembler = StreamAssembler()
    assert assembler.feed({"choices": [], "usage": {"prompt_tokens": 0, "completion_tokens": 0}}) == []
    usage = {
        "prompt_tokens": 100,
        "completion_tokens": 1,
        "total_tokens": 101,
        "prompt_tokens_details": {"cached_tokens": 64},
    }
    [chunk] = assembler.feed({"choices": [], "usage": usage})
    assert isinstance(chunk, UsageChunk)
    assert (chunk.usage.cache_hit_tokens, chunk.usage.cache_miss_tokens) == (64, 36)
    assert assembler.feed({"choices": [], "usage": usage}) == []  # repeated usage is not re-emitted


@pytest.mark.parametrize(
    ("wire", "finish"), [("length", "max_tokens"), ("content_filter", "content_filter"), ("stop", "end_turn")]
)
def test_finish_reasons(wire: str, finish: str) -> None:
    assembler = StreamAssembler()
    assembler.feed(frame({"content": "cut sho"}, finish=wire))
    assert assembler.complete().finish_reason == finish


def test_empty_completions() -> None:
    reasoning_only = StreamAssembler()
    reasoning_only.feed(frame({"reasoning_content": "thinking", "content": "  "}))
    with pytest.raises(EmptyCompletionError) as info:
        reasoning_only.complete()
    assert info.value.retryable is True
    with pytest.raises(EmptyCompletionError) as info:
        StreamAssembler().complete()
    assert info.value.retryable is False


def test_odd_frames_are_tolerated() -> None:
    assembler = StreamAssembler()
    for odd in ({}, {"choices": None}, {"choices": [None]}, {"choices": [{"delta": None}]}, frame({"tool_calls": "x"})):
        assert assembler.feed(odd) == []


# ---- reading a stream ---------------------------------------------------------------------------------


GRACE = 0.05
"""A short tail grace for streams held open after the finish (the default is ``DEFAULT_FINISH_GRACE``)."""


async def collect_stream(lines: AsyncIterator[str], *, finish_grace: float = GRACE) -> list[ProviderEvent]:
    return await drain(read_stream(lines, idle_timeout=5, finish_grace=finish_grace))


@pytest.mark.asyncio
async def test_malformed_frames_are_skipped_and_done_completes() -> None:
    raw = sse(frame({"content": "ok"}), "{not-json}", "", "[DONE]") + sse(frame({"content": "after done"}))
    events = await collect_stream(lines_of(raw))
    assert events == [ContentChunk(text="ok"), Completion(content="ok")]


@pytest.mark.asyncio
async def test_tool_calls_finish_completes_without_done() -> None:
    raw = sse(
        frame({"tool_calls": [{"index": 0, "id": "c", "function": {"name": "t", "arguments": "{}"}}]}),
        frame(finish="tool_calls"),
    )
    events = await asyncio.wait_for(collect_stream(lines_of(raw, then_silence=True)), 5)
    assert isinstance(events[-1], Completion)
    assert events[-1].finish_reason == "tool_use"


TOOL_CALL = frame({"tool_calls": [{"index": 0, "id": "c", "function": {"name": "t", "arguments": "{}"}}]})
USAGE_ONLY = {"choices": [], "usage": {"prompt_tokens": 40, "completion_tokens": 7, "total_tokens": 47}}
TAIL_USAGE = TokenUsage(prompt_tokens=40, completion_tokens=7, total_tokens=47)


@pytest.mark.asyncio
async def test_usage_after_a_tool_calls_finish_is_read_to_done() -> None:
    # OpenAI and DeepSeek send the include_usage frame after the tool_calls finish, then [DONE].
    raw = sse(TOOL_CALL, frame(finish="tool_calls"), USAGE_ONLY, "[DONE]")
    events = await collect_stream(lines_of(raw), finish_grace=DEFAULT_FINISH_GRACE)
    assert [e for e in events if isinstance(e, UsageChunk)] == [UsageChunk(usage=TAIL_USAGE)]
    completion = events[-1]
    assert isinstance(completion, Completion)
    assert completion.finish_reason == "tool_use"
    assert completion.usage == TAIL_USAGE


@pytest.mark.asyncio
async def test_usage_after_a_tool_calls_finish_is_read_when_the_server_never_closes() -> None:
    raw = sse(TOOL_CALL, frame(finish="tool_calls"), USAGE_ONLY)
    loop = asyncio.get_running_loop()
    started = loop.time()
    events = await asyncio.wait_for(collect_stream(lines_of(raw, then_silence=True)), 5)
    # Bounded by the grace, not by the (5 s) idle timeout: the run goes on with what was received.
    assert loop.time() - started < 2.5
    assert isinstance(events[-1], Completion)
    assert events[-1].usage == TAIL_USAGE


@pytest.mark.asyncio
async def test_the_tail_after_a_finish_never_turns_into_an_error() -> None:
    # A dropped connection or an error frame after the finish: the answer was already whole.
    for tail in (sse(USAGE_ONLY, {"error": {"message": "late"}}), sse(USAGE_ONLY) + b"data: {bad"):
        events = await collect_stream(lines_of(sse(TOOL_CALL, frame(finish="tool_calls")) + tail))
        assert isinstance(events[-1], Completion)
        assert events[-1].usage == TAIL_USAGE


@pytest.mark.asyncio
async def test_eof_without_terminal_is_a_disconnect() -> None:
    with pytest.raises(StreamDisconnected) as info:
        await collect_stream(lines_of(sse(frame({"content": "partial"}), frame(finish="stop"))))
    assert info.value.after_progress is True
    with pytest.raises(StreamDisconnected) as info:
        await collect_stream(lines_of(b""))
    assert info.value.after_progress is False


# ---- the provider over MockTransport ------------------------------------------------------------------


def mock_provider(
    bodies: list[bytes | httpx.Response], **kwargs: Any
) -> tuple[OpenAIProvider, list[httpx.Request], SleepRecorder]:
    return harness_provider(OpenAIProvider, bodies, base_url="http://llm.test/v1/", api_key="sk-test", **kwargs)


async def run(provider: OpenAIProvider, req: ChatRequest | None = None) -> list[ProviderEvent]:
    return await drain(provider.stream(req or request()), closing=provider)


@pytest.mark.asyncio
async def test_provider_posts_the_body_with_headers() -> None:
    provider, seen, _ = mock_provider([sse(frame({"content": "hi"}), "[DONE]")], dialect="deepseek")
    req = request(thinking=True, reasoning_effort="max", tools=(TOOL,))
    events = await run(provider, req)
    assert events[-1] == Completion(content="hi")
    [sent] = seen
    assert str(sent.url) == "http://llm.test/v1/chat/completions"
    assert sent.method == "POST"
    assert sent.headers["authorization"] == "Bearer sk-test"
    assert sent.headers["accept"] == "text/event-stream"
    assert sent.headers["content-type"] == "application/json"
    assert json.loads(sent.content) == build_body(req, dialect="deepseek")


@pytest.mark.asyncio
async def test_disconnect_before_progress_is_retried_with_stream_reset() -> None:
    provider, seen, sleep = mock_provider(
        [b"", sse(frame({"content": "ok"}), "[DONE]")], retry_policy=RetryPolicy(jitter=0)
    )
    events = await run(provider)
    assert len(seen) == 2
    assert sleep.delays == [1]
    retry = events[0]
    assert isinstance(retry, RetryChunk)
    assert (retry.info.stage, retry.info.stream_reset, retry.info.reason) == (
        "stream",
        True,
        "API stream disconnected",
    )
    assert events[1:] == [ContentChunk(text="ok"), Completion(content="ok")]


@pytest.mark.asyncio
async def test_disconnect_before_progress_exhausts_stream_attempts() -> None:
    provider, seen, _ = mock_provider([b"", b""], retry_policy=RetryPolicy(jitter=0, stream_max_attempts=2))
    with pytest.raises(StreamDisconnected):
        await run(provider)
    assert len(seen) == 2


@pytest.mark.asyncio
async def test_disconnect_after_progress_is_not_retried() -> None:
    provider, seen, sleep = mock_provider([sse(frame({"content": "partial"}))])
    with pytest.raises(StreamDisconnected) as info:
        await run(provider)
    assert info.value.after_progress is True
    assert len(seen) == 1
    assert sleep.delays == []


@pytest.mark.asyncio
async def test_reasoning_only_is_retried_then_recovers() -> None:
    provider, seen, _ = mock_provider(
        [sse(frame({"reasoning_content": "hmm"}), "[DONE]"), sse(frame({"content": "answer"}), "[DONE]")]
    )
    events = await run(provider)
    assert len(seen) == 2
    kinds = [event.kind for event in events]
    assert kinds == ["reasoning", "retry", "content", "completion"]
    retry = events[1]
    assert isinstance(retry, RetryChunk)
    assert retry.info.reason == "model returned no content"
    assert retry.info.stream_reset


@pytest.mark.asyncio
async def test_reasoning_only_exhausts_and_raises_empty_completion() -> None:
    body = sse(frame({"reasoning_content": "hmm"}), "[DONE]")
    provider, seen, sleep = mock_provider([body, body, body], retry_policy=RetryPolicy(jitter=0, stream_max_attempts=3))
    with pytest.raises(EmptyCompletionError):
        await run(provider)
    assert len(seen) == 3
    assert sleep.delays == [1, 2]


@pytest.mark.asyncio
async def test_malformed_frame_is_not_retried() -> None:
    provider, seen, _ = mock_provider([sse("{not-json}", frame({"content": "fine"}), "[DONE]")])
    events = await run(provider)
    assert events == [ContentChunk(text="fine"), Completion(content="fine")]
    assert len(seen) == 1


@pytest.mark.asyncio
async def test_http_errors_are_retried_at_request_level_only_when_retryable() -> None:
    provider, seen, sleep = mock_provider(
        [httpx.Response(503, text="busy"), httpx.Response(401, json={"error": "bad key"})]
    )
    with pytest.raises(ProviderHTTPError) as info:
        await run(provider)
    assert info.value.status == 401
    assert len(seen) == 2
    assert sleep.delays == [1]


class HeldOpenStream(httpx.AsyncByteStream):
    """A response body that sends ``raw`` and then holds the connection open until closed."""

    def __init__(self, raw: bytes) -> None:
        self.raw = raw
        self.closed = asyncio.Event()

    async def __aiter__(self) -> AsyncIterator[bytes]:
        yield self.raw
        await self.closed.wait()

    async def aclose(self) -> None:
        self.closed.set()


def held_open_provider(raw: bytes) -> tuple[OpenAIProvider, HeldOpenStream]:
    body = HeldOpenStream(raw)
    client = httpx.AsyncClient(transport=httpx.MockTransport(lambda _: httpx.Response(200, stream=body)))
    return OpenAIProvider(base_url="http://llm.test/v1", api_key="k", client=client, finish_grace=GRACE), body


@pytest.mark.asyncio
async def test_tool_calls_finish_closes_the_held_open_response() -> None:
    provider, body = held_open_provider(
        sse(
            frame({"tool_calls": [{"index": 0, "id": "c", "function": {"name": "t", "arguments": "{}"}}]}),
            frame(finish="tool_calls"),
        )
    )
    events = await asyncio.wait_for(run(provider), 5)
    assert isinstance(events[-1], Completion)
    assert body.closed.is_set()


@pytest.mark.asyncio
async def test_consumer_leaving_early_closes_the_response() -> None:
    provider, body = held_open_provider(sse(frame({"content": "a"}), frame({"content": "b"})))
    async with contextlib.aclosing(provider.stream(request())) as events:
        first = await anext(events)
    assert first == ContentChunk(text="a")
    assert body.closed.is_set()
    await provider._client.aclose()
