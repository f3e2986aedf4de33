"""Backoff, Retry-After extraction, classification and the request loop (``providers._retry``)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime

import httpx
import pytest

from desktop_app.runtime.errors import (
    EmptyCompletionError,
    ProviderHTTPError,
    ProviderNetworkError,
    StreamDisconnected,
    StreamStalled,
)
from desktop_app.runtime.events import RetryInfo
from desktop_app.runtime.providers._retry import (
    BODY_HEAD_LIMIT,
    Retrier,
    RetryPolicy,
    backoff_delay,
    retry_after_delay,
    retry_after_from_body,
    send_once,
    send_with_retry,
)
from tests.support.provider_harness import SleepRecorder

NOW = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)
NO_JITTER = RetryPolicy(jitter=0)


def http_error(status: int = 429, body: str = "", headers: dict[str, str] | None = None) -> ProviderHTTPError:
    return ProviderHTTPError(status, body, headers)


# ---- backoff ------------------------------------------------------------------------------------------


def test_backoff_doubles_and_caps_without_jitter() -> None:
    delays = [backoff_delay(NO_JITTER, attempt) for attempt in range(1, 10)]
    assert delays == [1, 2, 4, 8, 16, 32, 60, 60, 60]
    assert backoff_delay(NO_JITTER, 0) == 1  # attempt floored at 1


def test_jitter_spreads_around_the_delay_within_bounds() -> None:
    policy = RetryPolicy(jitter=0.1)
    seen: list[tuple[float, float]] = []

    def highest(low: float, high: float) -> float:
        seen.append((low, high))
        return high

    assert backoff_delay(policy, 3, uniform=highest) == pytest.approx(4.4)
    [(low, high)] = seen
    assert low == pytest.approx(-0.4)
    assert high == pytest.approx(0.4)
    assert backoff_delay(policy, 3, uniform=lambda low, high: low) == pytest.approx(3.6)
    # jitter never exceeds the cap
    assert backoff_delay(policy, 10, uniform=lambda low, high: high) == 60


def test_retry_after_header_seconds_win_without_jitter() -> None:
    policy = RetryPolicy(jitter=0.5)
    never: Callable[[float, float], float] = lambda low, high: pytest.fail("jitter applied")  # noqa: E731
    assert backoff_delay(policy, 1, http_error(headers={"Retry-After": "3"}), uniform=never) == 3
    assert backoff_delay(RetryPolicy(max_delay=2), 1, http_error(headers={"retry-after": "10"})) == 2


def test_retry_after_http_date() -> None:
    future = format_datetime(NOW + timedelta(seconds=30), usegmt=True)
    past = format_datetime(NOW - timedelta(seconds=30), usegmt=True)
    assert retry_after_delay(http_error(headers={"Retry-After": future}), now=lambda: NOW) == 30
    assert retry_after_delay(http_error(headers={"Retry-After": past}), now=lambda: NOW) == 0


def test_unparsable_retry_after_falls_back_to_the_body() -> None:
    error = http_error(body='{"retry_after_ms": 250}', headers={"Retry-After": "soon"})
    assert retry_after_delay(error) == 0.25
    assert retry_after_delay(http_error(headers={"Retry-After": "soon"})) is None


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ('{"error":"rate limit","retry_after_ms":1500}', 1.5),
        ('{"Retry_After_MS" : 20}', 0.02),
        ("Rate limit reached. Please try again in 1.5s.", 1.5),
        ("rate limited, retry-after: 20ms", 0.02),
        ("retry after 2 seconds", 2.0),
        ('{"retry_after": 7}', None),  # quoted key: the colon follows the closing quote
        ("retry_after: 7", 7.0),
        ("Try again in 3", 3.0),
        ("slow down", None),
    ],
)
def test_retry_after_from_body(body: str, expected: float | None) -> None:
    assert retry_after_from_body(body) == (pytest.approx(expected) if expected is not None else None)


def test_only_http_errors_carry_retry_after() -> None:
    assert retry_after_delay(ProviderNetworkError("down")) is None
    assert backoff_delay(NO_JITTER, 2, ProviderNetworkError("down")) == 2


def test_policy_rejects_nonsense() -> None:
    with pytest.raises(ValueError, match="at least 1"):
        RetryPolicy(max_attempts=0)
    with pytest.raises(ValueError, match="negative"):
        RetryPolicy(jitter=-1)


# ---- classification -----------------------------------------------------------------------------------


def test_request_retry_plan_429_retried_400_not() -> None:
    retrier = Retrier(NO_JITTER)
    info = retrier.plan_request_retry(http_error(429, headers={"Retry-After": "2"}))
    assert info == RetryInfo(
        attempt=2, max_attempts=4, delay_s=2, stage="request", reason="API rate limited", status_code=429
    )
    assert retrier.plan_request_retry(http_error(400, "bad request")) is None
    assert retrier.plan_request_retry(http_error(401)) is None
    info = retrier.plan_request_retry(http_error(503))
    assert info is not None
    assert (info.attempt, info.delay_s, info.reason) == (3, 2, "API temporarily unavailable (HTTP 503)")
    info = retrier.plan_request_retry(ProviderNetworkError("refused"))
    assert info is not None
    assert (info.attempt, info.status_code, info.reason) == (4, None, "API request failed")
    assert retrier.plan_request_retry(http_error(429)) is None  # 4 attempts in all: 3 retries


def test_request_retry_honours_a_custom_status_set() -> None:
    retrier = Retrier(RetryPolicy(jitter=0, retryable_statuses=frozenset({418})))
    info = retrier.plan_request_retry(http_error(418))
    assert info is not None
    assert info.reason == "API request failed (HTTP 418)"
    assert retrier.plan_request_retry(http_error(429)) is None


def test_stream_retry_plan() -> None:
    retrier = Retrier(RetryPolicy(jitter=0, stream_max_attempts=3))
    stalled = retrier.plan_stream_retry(StreamStalled("stalled", after_progress=False))
    assert stalled == RetryInfo(
        attempt=2,
        max_attempts=3,
        delay_s=1,
        stage="stream",
        reason="API stream stalled",
        stream_reset=True,
    )
    assert retrier.plan_stream_retry(StreamDisconnected("cut", after_progress=True)) is None
    assert retrier.plan_stream_retry(EmptyCompletionError("nothing", retryable=False)) is None
    empty = retrier.plan_stream_retry(EmptyCompletionError("reasoning only", retryable=True))
    assert empty is not None
    assert (empty.attempt, empty.reason, empty.delay_s) == (3, "model returned no content", 2)
    assert retrier.plan_stream_retry(StreamDisconnected("cut", after_progress=False)) is None  # exhausted
    assert retrier.plan_stream_retry(http_error(429)) is None  # not a stream error


# ---- sending ------------------------------------------------------------------------------------------


def scripted_client(*responses: httpx.Response | Exception) -> tuple[httpx.AsyncClient, list[httpx.Request]]:
    queue = list(responses)
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        item = queue.pop(0)
        if isinstance(item, Exception):
            raise item
        return item

    return httpx.AsyncClient(transport=httpx.MockTransport(handler)), seen


def sender(client: httpx.AsyncClient, url: str = "http://llm.test/v1/chat/completions"):  # type: ignore[no-untyped-def]
    async def send() -> httpx.Response:
        return await client.send(client.build_request("POST", url, json={}), stream=True)

    return send


@pytest.mark.asyncio
async def test_429_is_retried_after_the_announced_delay() -> None:
    client, seen = scripted_client(
        httpx.Response(429, headers={"Retry-After": "2"}, json={"error": "slow down"}),
        httpx.Response(200, content=b"data: [DONE]\n\n"),
    )
    sleep = SleepRecorder()
    announced: list[tuple[RetryInfo, list[float]]] = []
    async with client:
        response = await send_with_retry(
            sender(client),
            policy=NO_JITTER,
            sleep=sleep,
            on_retry=lambda info: announced.append((info, list(sleep.delays))),
        )
        assert response.status_code == 200
        assert await response.aread() == b"data: [DONE]\n\n"
        await response.aclose()
    assert len(seen) == 2
    assert sleep.delays == [2]
    [(info, delays_at_announcement)] = announced
    assert delays_at_announcement == []  # announced before sleeping
    assert (info.attempt, info.status_code, info.stage, info.stream_reset) == (2, 429, "request", False)


@pytest.mark.asyncio
async def test_400_is_not_retried_and_keeps_the_body() -> None:
    client, seen = scripted_client(httpx.Response(400, json={"error": {"message": "bad model"}}))
    sleep = SleepRecorder()
    async with client:
        with pytest.raises(ProviderHTTPError) as info:
            await send_with_retry(sender(client), sleep=sleep)
    assert len(seen) == 1
    assert sleep.delays == []
    assert info.value.status == 400
    assert "bad model" in info.value.body
    assert "bad model" in str(info.value)


@pytest.mark.asyncio
async def test_retries_stop_after_max_attempts() -> None:
    client, seen = scripted_client(*(httpx.Response(503, text="busy") for _ in range(4)))
    sleep = SleepRecorder()
    async with client:
        with pytest.raises(ProviderHTTPError) as info:
            await send_with_retry(sender(client), policy=NO_JITTER, sleep=sleep)
    assert info.value.status == 503
    assert len(seen) == 4
    assert sleep.delays == [1, 2, 4]


@pytest.mark.asyncio
async def test_network_errors_are_mapped_and_retried() -> None:
    client, seen = scripted_client(httpx.ConnectError("connection refused"), httpx.Response(200, content=b""))
    sleep = SleepRecorder()
    async with client:
        response = await send_with_retry(sender(client), policy=NO_JITTER, sleep=sleep)
        await response.aclose()
    assert len(seen) == 2
    assert sleep.delays == [1]


@pytest.mark.asyncio
async def test_network_error_after_last_attempt_is_a_provider_network_error() -> None:
    client, _ = scripted_client(httpx.ConnectError("connection refused"))
    async with client:
        with pytest.raises(ProviderNetworkError, match="connection refused") as info:
            await send_once(sender(client))
    assert info.value.retryable is True
    assert isinstance(info.value.__cause__, httpx.ConnectError)


@pytest.mark.asyncio
async def test_bad_url_is_never_retried() -> None:
    sleep = SleepRecorder()
    async with httpx.AsyncClient() as client:  # fails on the scheme before any connection is made
        with pytest.raises(ProviderNetworkError, match="base URL") as info:
            await send_with_retry(sender(client, "ftp://llm.test/v1/chat/completions"), sleep=sleep)
    assert info.value.retryable is False
    assert sleep.delays == []


@pytest.mark.asyncio
async def test_error_body_is_cut_at_64_kib() -> None:
    client, _ = scripted_client(httpx.Response(500, content=b"x" * (BODY_HEAD_LIMIT + 5000)))
    async with client:
        with pytest.raises(ProviderHTTPError) as info:
            await send_once(sender(client))
    assert len(info.value.body) == BODY_HEAD_LIMIT
