"""Whale §1.3's retry fixtures (``internal/llm/deepseek/client_test.go``) over real loopback sockets.

Each test scripts the server, runs ``OpenAIProvider.stream`` once with an injected sleep that records the
delays (no real waiting, jitter 0), and asserts the number of requests, the retry chunks and the outcome.
Stalls use short idle timeouts and the server's scripted ``Pause`` (silence, not synchronisation).

Related wire tests live in ``test_openai_loopback.py`` (malformed frames between content, keep-alives,
tool calls completing without ``[DONE]``).
"""

from __future__ import annotations

import asyncio
import contextlib
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime
from typing import Any

import pytest

from desktop_app.runtime.errors import (
    EmptyCompletionError,
    ProviderError,
    ProviderHTTPError,
    ProviderStreamError,
    StreamDisconnected,
    StreamStalled,
    UnexpectedResponseError,
)
from desktop_app.runtime.events import RetryInfo
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
)
from tests.support.llm_server import sse as sse_frame

REQUEST = ChatRequest(model="deepseek-chat", messages=(UserMessage(content="hi"),))
SILENCE = Pause(30.0)  # far beyond every idle timeout used here; the server ends it when the test closes
EMPTY_BODY = Reply(steps=[])  # 200, headers, then the connection closes: a disconnect before progress


@dataclass
class Outcome:
    events: list[ProviderEvent]
    error: ProviderError | None
    delays: list[float]
    requests: int
    times: list[float]
    """When each event came, in seconds since the stream was asked for."""
    retries: list[RetryInfo] = field(init=False)

    def __post_init__(self) -> None:
        self.retries = [e.info for e in self.events if isinstance(e, RetryChunk)]

    @property
    def completion(self) -> Completion:
        assert self.error is None, self.error
        last = self.events[-1]
        assert isinstance(last, Completion)
        return last

    def content(self) -> str:
        return "".join(e.text for e in self.events if isinstance(e, ContentChunk))


class SleepRecorder:
    def __init__(self) -> None:
        self.delays: list[float] = []

    async def __call__(self, delay: float) -> None:
        self.delays.append(delay)


async def run(server: ScriptedLLMServer, *replies: Reply, **kwargs: Any) -> Outcome:
    """Enqueue ``replies``, stream once, and say what happened. Provider errors are captured, not raised."""
    server.enqueue(*replies)
    sleep = SleepRecorder()
    kwargs.setdefault("retry_policy", RetryPolicy(jitter=0))
    provider = OpenAIProvider(base_url=server.url, api_key="sk-loop", dialect="deepseek", sleep=sleep, **kwargs)
    events: list[ProviderEvent] = []
    times: list[float] = []
    error: ProviderError | None = None
    loop = asyncio.get_running_loop()
    started = loop.time()
    try:
        async with asyncio.timeout(20):  # a hang fails the test instead of stalling the suite
            async with contextlib.aclosing(provider.stream(REQUEST)) as stream:
                async for event in stream:
                    events.append(event)
                    times.append(loop.time() - started)
    except ProviderError as exc:
        error = exc
    finally:
        await provider.aclose()
    return Outcome(events, error, sleep.delays, len(server.requests), times)


def shape(info: RetryInfo) -> tuple[int, int, str, int | None, bool, float]:
    return (info.attempt, info.max_attempts, info.stage, info.status_code, info.stream_reset, info.delay_s)


# ---- request level ------------------------------------------------------------------------------------


@pytest.mark.asyncio
async def test_retries_rate_limit_before_sse(llm_server: ScriptedLLMServer) -> None:
    """``TestStreamResponseRetriesRateLimitBeforeSSE``: 429 + ``Retry-After: 2``, then OK."""
    out = await run(
        llm_server,
        error_reply(429, {"error": {"message": "rate limited"}}, headers={"Retry-After": "2"}),
        text_reply("finally"),
    )
    assert out.requests == 2
    assert [shape(r) for r in out.retries] == [(2, 4, "request", 429, False, 2)]
    assert out.retries[0].reason == "API rate limited"
    assert out.delays == [2]
    assert isinstance(out.events[0], RetryChunk)  # announced before the wait and before any output
    assert out.completion.content == "finally"


@pytest.mark.asyncio
async def test_retry_after_as_an_http_date(llm_server: ScriptedLLMServer) -> None:
    future = format_datetime(datetime.now(UTC) + timedelta(seconds=30), usegmt=True)
    past = format_datetime(datetime.now(UTC) - timedelta(hours=1), usegmt=True)
    out = await run(
        llm_server,
        error_reply(429, "slow down", headers={"Retry-After": future}),
        error_reply(503, "busy", headers={"Retry-After": past}),
        text_reply("ok"),
    )
    assert out.requests == 3
    assert [(r.attempt, r.status_code, r.stage) for r in out.retries] == [(2, 429, "request"), (3, 503, "request")]
    # The date has whole-second resolution, and some time passes between formatting it and the retry.
    assert 27.0 < out.delays[0] <= 30.0
    assert out.delays[1] == 0.0  # a date in the past: retry at once
    assert [r.delay_s for r in out.retries] == out.delays
    assert out.completion.content == "ok"


@pytest.mark.asyncio
async def test_400_is_not_retried(llm_server: ScriptedLLMServer) -> None:
    out = await run(llm_server, error_reply(400, {"error": {"message": "bad request"}}), text_reply("unused"))
    assert out.requests == 1
    assert out.retries == []
    assert out.delays == []
    assert isinstance(out.error, ProviderHTTPError)
    assert out.error.status == 400
    assert "bad request" in str(out.error)
    assert llm_server.pending == 1


@pytest.mark.asyncio
async def test_503_is_retried_with_backoff(llm_server: ScriptedLLMServer) -> None:
    out = await run(llm_server, error_reply(503, "busy"), error_reply(503, "busy"), text_reply("up again"))
    assert out.requests == 3
    assert [shape(r) for r in out.retries] == [(2, 4, "request", 503, False, 1), (3, 4, "request", 503, False, 2)]
    assert {r.reason for r in out.retries} == {"API temporarily unavailable (HTTP 503)"}
    assert out.delays == [1, 2]
    assert out.completion.content == "up again"


@pytest.mark.asyncio
async def test_request_attempts_are_exhausted_at_max_attempts(llm_server: ScriptedLLMServer) -> None:
    out = await run(llm_server, *[error_reply(503, "busy")] * 4, text_reply("unused"))
    assert out.requests == 4
    assert [r.attempt for r in out.retries] == [2, 3, 4]  # the 4th request is the last one announced
    assert out.delays == [1, 2, 4]
    assert isinstance(out.error, ProviderHTTPError)
    assert out.error.status == 503


# ---- stream level: disconnects ------------------------------------------------------------------------


@pytest.mark.asyncio
async def test_does_not_retry_disconnected_sse_after_progress(llm_server: ScriptedLLMServer) -> None:
    """``...DoesNotRetryDisconnectedSSEAfterProgress``: one content frame, then EOF."""
    out = await run(llm_server, Reply(steps=[chunk(content="partial")]), text_reply("unused"))
    assert out.requests == 1
    assert out.retries == []
    assert out.events == [ContentChunk(text="partial")]  # the partial output stands
    assert isinstance(out.error, StreamDisconnected)
    assert out.error.after_progress is True
    assert out.delays == []


@pytest.mark.asyncio
async def test_exhausts_disconnected_sse_before_progress(llm_server: ScriptedLLMServer) -> None:
    """``...ExhaustsDisconnectedSSEBeforeProgress``: an empty body twice with two stream attempts."""
    out = await run(llm_server, EMPTY_BODY, EMPTY_BODY, retry_policy=RetryPolicy(jitter=0, stream_max_attempts=2))
    assert out.requests == 2
    assert [shape(r) for r in out.retries] == [(2, 2, "stream", None, True, 1)]
    assert out.retries[0].reason == "API stream disconnected"
    assert isinstance(out.error, StreamDisconnected)
    assert out.error.after_progress is False


@pytest.mark.asyncio
async def test_errors_after_partial_tool_call_without_complete(llm_server: ScriptedLLMServer) -> None:
    """``...ErrorsAfterPartialToolCallWithoutComplete``: content, half a tool call, then EOF."""
    partial_call = [{"index": 0, "id": "call_1", "type": "function", "function": {"name": "echo", "arguments": "{"}}]
    out = await run(llm_server, Reply(steps=[chunk(content="hello "), chunk(tool_calls=partial_call)]))
    assert out.requests == 1
    assert out.retries == []
    assert isinstance(out.error, StreamDisconnected)
    assert out.error.after_progress is True
    assert not any(isinstance(e, Completion) for e in out.events)
    assert [e.kind for e in out.events] == ["content", "tool_call_delta"]


# ---- stream level: stalls -----------------------------------------------------------------------------


@pytest.mark.asyncio
async def test_retries_idle_sse_before_progress(llm_server: ScriptedLLMServer) -> None:
    """``...RetriesIdleSSEBeforeProgress``: silence from the start, then a good stream."""
    out = await run(llm_server, Reply(steps=[SILENCE]), text_reply("recovered"), idle_timeout=0.3)
    assert out.requests == 2
    assert [shape(r) for r in out.retries] == [(2, 6, "stream", None, True, 1)]
    assert out.retries[0].reason == "API stream stalled"
    assert out.delays == [1]
    assert out.completion.content == "recovered"


@pytest.mark.asyncio
async def test_keepalives_do_not_reset_the_idle_timeout(llm_server: ScriptedLLMServer) -> None:
    """``...KeepalivesDoNotResetIdleTimeout``: a keep-alive every 50 ms, idle timeout 300 ms."""
    keepalives: list[bytes | Pause] = []
    for _ in range(100):  # 5 s of keep-alives, far longer than the idle timeout
        keepalives += [KEEPALIVE, Pause(0.05)]
    out = await run(llm_server, Reply(steps=keepalives), text_reply("recovered"), idle_timeout=0.3)
    assert out.requests == 2
    assert [(r.stage, r.stream_reset) for r in out.retries] == [("stream", True)]
    # A stall while the keep-alives still come, not a drop once the 5 s body ended (which is retried too)
    assert out.retries[0].reason == "API stream stalled"
    [announced] = [at for at, event in zip(out.times, out.events, strict=True) if isinstance(event, RetryChunk)]
    assert 0.3 <= announced < 0.3 + 0.5, announced  # one idle timeout after the request, whatever keeps coming
    assert out.completion.content == "recovered"


@pytest.mark.asyncio
async def test_a_stall_before_progress_without_stream_retries_is_raised(llm_server: ScriptedLLMServer) -> None:
    out = await run(
        llm_server,
        Reply(steps=[KEEPALIVE, SILENCE]),
        idle_timeout=0.2,
        retry_policy=RetryPolicy(stream_max_attempts=1),
    )
    assert out.requests == 1
    assert out.retries == []
    assert isinstance(out.error, StreamStalled)
    assert out.error.after_progress is False
    assert "no output for 0.2 s" in str(out.error)


@pytest.mark.asyncio
async def test_does_not_retry_idle_sse_after_reasoning(llm_server: ScriptedLLMServer) -> None:
    """``...DoesNotRetryIdleSSEAfterReasoning``: one reasoning frame, then silence."""
    out = await run(
        llm_server,
        Reply(steps=[chunk(reasoning="thinking"), KEEPALIVE, SILENCE]),
        text_reply("unused"),
        idle_timeout=0.3,
    )
    assert out.requests == 1
    assert out.retries == []
    assert out.events == [ReasoningChunk(text="thinking")]
    assert isinstance(out.error, StreamStalled)
    assert out.error.after_progress is True
    assert "stalled" in str(out.error)
    assert out.delays == []


# ---- stream level: empty completions ------------------------------------------------------------------


def reasoning_only() -> Reply:
    return Reply(steps=[chunk(reasoning="hmm"), chunk(finish_reason="stop"), DONE])


@pytest.mark.asyncio
async def test_retries_reasoning_only_then_exhausts(llm_server: ScriptedLLMServer) -> None:
    """``...RetriesReasoningOnlyThenExhausts``: reasoning then ``[DONE]``, three times, three attempts."""
    out = await run(llm_server, *[reasoning_only()] * 3, retry_policy=RetryPolicy(jitter=0, stream_max_attempts=3))
    assert out.requests == 3
    assert [shape(r) for r in out.retries] == [(2, 3, "stream", None, True, 1), (3, 3, "stream", None, True, 2)]
    assert {r.reason for r in out.retries} == {"model returned no content"}
    assert out.delays == [1, 2]
    assert isinstance(out.error, EmptyCompletionError)
    assert out.error.retryable is True


@pytest.mark.asyncio
async def test_retries_reasoning_only_then_recovers(llm_server: ScriptedLLMServer) -> None:
    """``...RetriesReasoningOnlyThenRecovers``: an empty (reasoning-only) completion, then content."""
    out = await run(llm_server, reasoning_only(), text_reply("answer", reasoning="again"))
    assert out.requests == 2
    assert [shape(r) for r in out.retries] == [(2, 6, "stream", None, True, 1)]
    assert [e.kind for e in out.events][:2] == ["reasoning", "retry"]  # the voided attempt, then the reset
    assert out.completion.content == "answer"
    assert out.completion.reasoning == "again"


@pytest.mark.asyncio
async def test_a_completely_empty_completion_is_not_retried(llm_server: ScriptedLLMServer) -> None:
    out = await run(llm_server, Reply(steps=[chunk(finish_reason="stop"), DONE]), text_reply("unused"))
    assert out.requests == 1
    assert out.retries == []
    assert isinstance(out.error, EmptyCompletionError)
    assert out.error.retryable is False


@pytest.mark.asyncio
async def test_does_not_retry_malformed_sse_frame(llm_server: ScriptedLLMServer) -> None:
    """``...DoesNotRetryMalformedSSEFrame``: ``data: {not-json}`` then ``[DONE]``.

    The frame is skipped, so the stream is an empty completion (not retried), as in Whale.
    """
    out = await run(llm_server, Reply(steps=[b"data: {not-json}\n\n", DONE]), text_reply("unused"))
    assert out.requests == 1
    assert out.retries == []
    assert isinstance(out.error, EmptyCompletionError)
    assert out.error.retryable is False


# ---- parsing ------------------------------------------------------------------------------------------


@pytest.mark.asyncio
async def test_parses_tool_call_and_content(llm_server: ScriptedLLMServer) -> None:
    """``...ParsesToolCallAndContent``: content, a tool call in two argument pieces, finish, ``[DONE]``."""
    first = [{"index": 0, "id": "call_1", "type": "function", "function": {"name": "echo", "arguments": "{"}}]
    second = [{"index": 0, "function": {"arguments": '"x":1}'}}]
    out = await run(
        llm_server,
        Reply(
            steps=[
                chunk(content="hello "),
                chunk(tool_calls=first),
                chunk(tool_calls=second, finish_reason="tool_calls"),
                DONE,
            ]
        ),
    )
    assert out.requests == 1
    assert out.retries == []
    fragments = [e for e in out.events if isinstance(e, ToolCallChunk)]
    assert [(f.index, f.id, f.name, f.arguments_delta) for f in fragments] == [
        (0, "call_1", "echo", "{"),
        (0, "call_1", "echo", '"x":1}'),
    ]
    completion = out.completion
    assert completion.finish_reason == "tool_use"
    assert completion.content == "hello "
    assert completion.tool_calls == (ToolCallRequest(id="call_1", name="echo", arguments='{"x":1}'),)
    assert completion.tool_calls[0].parsed_arguments() == {"x": 1}


# ---- the two counters ---------------------------------------------------------------------------------


@pytest.mark.asyncio
async def test_request_and_stream_counters_are_independent(llm_server: ScriptedLLMServer) -> None:
    """Request level allows 4 requests, stream level 6 streams (the defaults), each counted on its own."""
    out = await run(llm_server, *[error_reply(503, "busy")] * 3, *[EMPTY_BODY] * 5, text_reply("at last"))
    assert out.requests == 9
    assert [(r.stage, r.attempt, r.max_attempts) for r in out.retries] == [
        ("request", 2, 4),
        ("request", 3, 4),
        ("request", 4, 4),
        ("stream", 2, 6),
        ("stream", 3, 6),
        ("stream", 4, 6),
        ("stream", 5, 6),
        ("stream", 6, 6),
    ]
    assert out.delays == [1, 2, 4, 1, 2, 4, 8, 16]
    assert out.completion.content == "at last"


@pytest.mark.asyncio
async def test_the_counters_never_reset(llm_server: ScriptedLLMServer) -> None:
    """After three request retries, a stream retry does not give the request level its attempts back."""
    out = await run(llm_server, *[error_reply(503, "busy")] * 3, EMPTY_BODY, error_reply(503, "busy"))
    assert out.requests == 5
    assert [(r.stage, r.attempt) for r in out.retries] == [
        ("request", 2),
        ("request", 3),
        ("request", 4),
        ("stream", 2),
    ]
    assert isinstance(out.error, ProviderHTTPError)
    assert out.error.status == 503


@pytest.mark.asyncio
async def test_stream_attempts_default_to_six(llm_server: ScriptedLLMServer) -> None:
    out = await run(llm_server, *[EMPTY_BODY] * 6, text_reply("unused"))
    assert out.requests == 6
    assert [(r.stage, r.attempt, r.max_attempts) for r in out.retries] == [("stream", n, 6) for n in range(2, 7)]
    assert isinstance(out.error, StreamDisconnected)


# ---- every retryable 5xx, and answers that are not what they seem (issue 8) ------------------------------


@pytest.mark.asyncio
@pytest.mark.parametrize("status", [500, 502, 503, 504])
async def test_each_retryable_5xx_is_retried_then_recovers(llm_server: ScriptedLLMServer, status: int) -> None:
    out = await run(llm_server, error_reply(status, "upstream trouble"), text_reply("back"))
    assert out.requests == 2
    assert [shape(r) for r in out.retries] == [(2, 4, "request", status, False, 1)]
    assert out.retries[0].reason == f"API temporarily unavailable (HTTP {status})"
    assert out.completion.content == "back"


@pytest.mark.asyncio
@pytest.mark.parametrize("status", [500, 502, 504])
async def test_each_retryable_5xx_exhausts_the_request_attempts(llm_server: ScriptedLLMServer, status: int) -> None:
    out = await run(llm_server, *[error_reply(status, "down")] * 4, text_reply("unused"))
    assert out.requests == 4
    assert [r.attempt for r in out.retries] == [2, 3, 4]
    assert isinstance(out.error, ProviderHTTPError) and out.error.status == status


@pytest.mark.asyncio
async def test_an_error_object_in_the_stream_ends_it_with_the_providers_message(
    llm_server: ScriptedLLMServer,
) -> None:
    error = {"error": {"message": "Upstream model overloaded, please retry", "type": "server_error"}}
    steps = [chunk(content="Partial "), chunk(content="answer"), sse_frame(error)]
    out = await run(llm_server, Reply(steps=steps), text_reply("unused"))
    assert out.requests == 1 and out.retries == []
    assert out.content() == "Partial answer"
    assert isinstance(out.error, ProviderStreamError)
    assert str(out.error) == (
        "The model provider reported an error mid-answer (server_error): Upstream model overloaded, please retry"
    )


@pytest.mark.asyncio
@pytest.mark.parametrize(
    ("content_type", "body", "first_line"),
    [
        (
            "text/html; charset=utf-8",
            b"\n<!DOCTYPE html>\n<html><body>Sign in to the proxy</body></html>\n",
            "<!DOCTYPE html>",
        ),
        ("application/json", b'{"object": "list", "data": []}', '{"object": "list", "data": []}'),
    ],
)
async def test_a_200_that_is_not_an_event_stream_is_reported_at_once(
    llm_server: ScriptedLLMServer, content_type: str, body: bytes, first_line: str
) -> None:
    out = await run(llm_server, Reply(steps=[body], content_type=content_type), text_reply("unused"))
    assert out.requests == 1 and out.retries == [] and out.delays == []
    assert isinstance(out.error, UnexpectedResponseError)
    message = str(out.error)
    assert f"answered HTTP 200 with {content_type.split(';')[0]}, not an event stream" in message
    assert message.endswith(f"First line of the body: {first_line}")
    assert out.error.retryable is False


@pytest.mark.asyncio
async def test_an_event_stream_labelled_text_plain_by_a_proxy_is_still_read(llm_server: ScriptedLLMServer) -> None:
    reply = text_reply("through the proxy")
    out = await run(llm_server, Reply(steps=reply.steps, content_type="text/plain; charset=utf-8"))
    assert out.completion.content == "through the proxy"
