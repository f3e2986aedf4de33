"""Sending a model request and retrying it: the one place that wraps a provider's HTTP request.

Two independent levels, after Whale §1.3, share one ``RetryPolicy``:

* **request level** — before the stream starts. A network failure (``ProviderNetworkError``) or a
  retryable status (``ProviderHTTPError`` with a status in ``retryable_statuses``) is retried up to
  ``max_attempts`` requests in all, waiting ``Retry-After`` (header seconds or HTTP date, or a hint in the
  body) when the server gives one, else ``base_delay * 2**(attempt-1)`` capped at ``max_delay`` with
  ± ``jitter`` spread.
* **stream level** — after a 2xx answer. A stream that broke *before any model progress* (disconnect or
  stall), or that ended with reasoning but no answer, is re-issued up to ``stream_max_attempts`` times,
  with ``stream_reset`` so that consumers discard the partial output. After progress the error stands.

Every retry is announced (``on_retry`` callback or a ``RetryChunk``) *before* the wait; its ``attempt`` is
the number of the request (or stream) about to be made, out of ``max_attempts``, so the last retry announced
is "4/4" and the counters agree with the requests the server sees. A 2xx answer that is not an event stream
is never retried: it is a proxy or a wrong base URL, reported with its content type and first body line. Sleeping, the
random jitter and the clock are injectable, so tests never really wait.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import re
from collections.abc import AsyncGenerator, Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime

import httpx

from desktop_app.runtime.errors import (
    EmptyCompletionError,
    ProviderError,
    ProviderHTTPError,
    ProviderNetworkError,
    StreamError,
    StreamStalled,
    UnexpectedResponseError,
)
from desktop_app.runtime.events.parts import RetryInfo
from desktop_app.runtime.providers.base import ProviderEvent, RetryChunk
from desktop_app.runtime.providers.error_text import error_message, raw_details

BODY_HEAD_LIMIT = 64 * 1024
"""How much of a non-2xx response body is kept for the error."""

RETRYABLE_STATUSES = frozenset({429, 500, 502, 503, 504})

Sleep = Callable[[float], Awaitable[None]]
Uniform = Callable[[float, float], float]
Clock = Callable[[], datetime]


def _utc_now() -> datetime:
    return datetime.now(UTC)


@dataclass(frozen=True)
class RetryPolicy:
    """How often and how long to retry. Delays are in seconds."""

    max_attempts: int = 4
    """Requests in all at the request level (1 = no retry)."""
    base_delay: float = 1.0
    max_delay: float = 60.0
    jitter: float = 0.1
    """Relative spread of the computed backoff: ``0.1`` is ±10 %. Never applied to a Retry-After delay."""
    retryable_statuses: frozenset[int] = field(default=RETRYABLE_STATUSES)
    respect_retry_after: bool = True
    stream_max_attempts: int = 6
    """Streams in all at the stream level (1 = no stream retry)."""

    def __post_init__(self) -> None:
        if self.max_attempts < 1 or self.stream_max_attempts < 1:
            raise ValueError("max_attempts and stream_max_attempts must be at least 1")
        if self.base_delay < 0 or self.max_delay < 0 or self.jitter < 0:
            raise ValueError("base_delay, max_delay and jitter must not be negative")


# ---- delays -------------------------------------------------------------------------------------------

_BODY_RETRY_AFTER_MS = re.compile(r'"retry_after_ms"\s*:\s*(\d+)', re.IGNORECASE)
_BODY_RETRY_AFTER = re.compile(
    r"(?:try\s+again\s+in|retry(?:[_\-\s]?after)?[:\s]+)\s*(\d+(?:\.\d+)?)\s*"
    r"(ms|seconds|second|secs|sec|s)?",
    re.IGNORECASE,
)


def _header(headers: Mapping[str, str], name: str) -> str | None:
    wanted = name.lower()
    for key, value in headers.items():
        if key.lower() == wanted:
            return value
    return None


def retry_after_from_body(body: str) -> float | None:
    """A retry hint in an error body: ``"retry_after_ms": N``, or "try again in 1.5s" / "retry-after: 20ms"."""
    match = _BODY_RETRY_AFTER_MS.search(body)
    if match:
        return int(match.group(1)) / 1000
    match = _BODY_RETRY_AFTER.search(body)
    if match:
        value = float(match.group(1))
        unit = (match.group(2) or "s").lower()
        return value / 1000 if unit == "ms" else value
    return None


def retry_after_delay(error: BaseException, *, now: Clock = _utc_now) -> float | None:
    """The wait the server asked for, in seconds, or ``None``. Only an HTTP error carries one.

    The ``Retry-After`` header wins (whole seconds, or an HTTP date: the time until then, 0 if past); when
    it is absent or unparsable the body is searched.
    """
    if not isinstance(error, ProviderHTTPError):
        return None
    raw = (_header(error.headers, "retry-after") or "").strip()
    if raw:
        if raw.isdigit():
            return float(int(raw))
        try:
            when = parsedate_to_datetime(raw)
        except (TypeError, ValueError):
            when = None
        if when is not None:
            if when.tzinfo is None:
                when = when.replace(tzinfo=UTC)
            return max(0.0, (when - now()).total_seconds())
    return retry_after_from_body(error.body)


def backoff_delay(
    policy: RetryPolicy,
    attempt: int,
    error: BaseException | None = None,
    *,
    uniform: Uniform = random.uniform,
    now: Clock = _utc_now,
) -> float:
    """Seconds to wait before retry number ``attempt`` (1-based) after ``error``."""
    if policy.respect_retry_after and error is not None:
        hinted = retry_after_delay(error, now=now)
        if hinted is not None:
            return min(hinted, policy.max_delay)
    delay = min(policy.base_delay * 2.0 ** (max(attempt, 1) - 1), policy.max_delay)
    if policy.jitter > 0 and delay > 0:
        spread = delay * policy.jitter
        delay = max(0.0, delay + uniform(-spread, spread))
    return min(delay, policy.max_delay)


# ---- classification -----------------------------------------------------------------------------------


def is_retryable_request_error(policy: RetryPolicy, error: BaseException) -> bool:
    """Request level: retryable statuses and (retryable) network failures; never e.g. 400 or 401."""
    if isinstance(error, ProviderHTTPError):
        return error.status in policy.retryable_statuses
    if isinstance(error, ProviderNetworkError):
        return error.retryable
    return False


def is_retryable_stream_error(error: BaseException) -> bool:
    """Stream level: reasoning-only empty answers, and breaks before any progress; nothing after it."""
    if isinstance(error, EmptyCompletionError):
        return error.retryable
    if isinstance(error, StreamError):
        return not error.after_progress
    return False


def request_retry_reason(error: BaseException) -> str:
    if isinstance(error, ProviderHTTPError):
        if error.status == 429:
            return "API rate limited"
        if error.status in {500, 502, 503, 504}:
            return f"API temporarily unavailable (HTTP {error.status})"
        return f"API request failed (HTTP {error.status})"
    return "API request failed"


def stream_retry_reason(error: BaseException) -> str:
    if isinstance(error, EmptyCompletionError):
        return "model returned no content"
    if isinstance(error, StreamStalled):
        return "API stream stalled"
    return "API stream disconnected"


class Retrier:
    """The retry state of one logical model call: both attempt counters, which never reset."""

    def __init__(
        self,
        policy: RetryPolicy | None = None,
        *,
        sleep: Sleep = asyncio.sleep,
        uniform: Uniform = random.uniform,
        now: Clock = _utc_now,
        provider: str | None = None,
    ) -> None:
        """``provider`` names the endpoint in the retry notices ("DeepSeek")."""
        self.policy = policy or RetryPolicy()
        self.provider = provider
        self._sleep = sleep
        self._uniform = uniform
        self._now = now
        self.request_attempt = 1
        self.stream_attempt = 1

    def plan_request_retry(self, error: BaseException) -> RetryInfo | None:
        """The next request-level retry after ``error``, or ``None`` when it must be raised."""
        if not is_retryable_request_error(self.policy, error):
            return None
        if self.request_attempt >= self.policy.max_attempts:
            return None
        retry = self.request_attempt  # the retry's own number drives the backoff: 1, 2, 4 …
        self.request_attempt += 1
        return RetryInfo(
            attempt=self.request_attempt,
            max_attempts=self.policy.max_attempts,
            delay_s=backoff_delay(self.policy, retry, error, uniform=self._uniform, now=self._now),
            stage="request",
            reason=request_retry_reason(error),
            status_code=error.status if isinstance(error, ProviderHTTPError) else None,
            provider=self.provider,
            message=error_message(error.body) if isinstance(error, ProviderHTTPError) else None,
            details=raw_details(error.body) if isinstance(error, ProviderHTTPError) else None,
        )

    def plan_stream_retry(self, error: BaseException) -> RetryInfo | None:
        """The next stream-level retry after ``error``, or ``None`` when it must be raised."""
        if not is_retryable_stream_error(error):
            return None
        if self.stream_attempt >= self.policy.stream_max_attempts:
            return None
        retry = self.stream_attempt
        self.stream_attempt += 1
        return RetryInfo(
            attempt=self.stream_attempt,
            max_attempts=self.policy.stream_max_attempts,
            delay_s=backoff_delay(self.policy, retry, error, uniform=self._uniform, now=self._now),
            stage="stream",
            reason=stream_retry_reason(error),
            stream_reset=True,
            provider=self.provider,
        )

    async def wait(self, info: RetryInfo) -> None:
        await self._sleep(info.delay_s)


# ---- sending ------------------------------------------------------------------------------------------


async def _body_head(response: httpx.Response, *, limit: int = BODY_HEAD_LIMIT) -> str:
    data = bytearray()
    try:
        async for piece in response.aiter_bytes():
            data += piece
            if len(data) >= limit:
                break
    except httpx.HTTPError:
        pass  # keep what arrived; the status is the error
    return bytes(data[:limit]).decode("utf-8", errors="replace")


FIRST_LINE_LIMIT = 4096
AMBIGUOUS_MEDIA_TYPES = frozenset({"text/plain", "application/octet-stream"})
"""Content types some proxies put on a real event stream: read as one (the SSE reader judges the body)."""


def unexpected_response(status: int, content_type: str, body: str) -> UnexpectedResponseError:
    """What a 2xx answer that is not an event stream says: its content type and first non-blank line."""
    first = next((line.strip() for line in body.splitlines() if line.strip()), "")
    if len(first) > 200:
        first = first[:200] + "…"
    text = (
        f"The model provider answered HTTP {status} with {content_type.split(';')[0].strip()}, not an event "
        "stream: a proxy, a login page or a wrong base URL is in the way. Check the base URL (it usually ends "
        "in /v1)."
    )
    if first:
        text += f" First line of the body: {first}"
    return UnexpectedResponseError(text)


async def send_once(send: Callable[[], Awaitable[httpx.Response]]) -> httpx.Response:
    """One attempt: an open 2xx response (the caller closes it), or a ``ProviderError``.

    ``send`` must return a *streaming* response (``client.send(request, stream=True)``). A non-2xx answer
    is read (up to 64 KiB), closed, and raised as ``ProviderHTTPError``; an httpx failure is raised as
    ``ProviderNetworkError`` (not retryable when the URL itself is bad).
    """
    try:
        response = await send()
    except (httpx.InvalidURL, httpx.UnsupportedProtocol) as exc:
        error = ProviderNetworkError(f"The model provider URL is not usable ({exc}). Check the base URL.")
        error.retryable = False
        raise error from exc
    except httpx.HTTPError as exc:
        detail = str(exc) or type(exc).__name__
        raise ProviderNetworkError(
            f"Could not reach the model provider ({detail}). Check the base URL and your network connection."
        ) from exc
    if response.is_success:
        content_type = response.headers.get("content-type", "")
        media = content_type.split(";")[0].strip().lower()
        if not media or "event-stream" in media or media in AMBIGUOUS_MEDIA_TYPES:
            return response
        try:
            head = await _body_head(response, limit=FIRST_LINE_LIMIT)
        finally:
            await response.aclose()
        raise unexpected_response(response.status_code, content_type, head)
    try:
        body = await _body_head(response)
    finally:
        await response.aclose()
    raise ProviderHTTPError(response.status_code, body, dict(response.headers))


async def send_with_retry(
    send: Callable[[], Awaitable[httpx.Response]],
    *,
    policy: RetryPolicy | None = None,
    sleep: Sleep = asyncio.sleep,
    on_retry: Callable[[RetryInfo], None] | None = None,
    retrier: Retrier | None = None,
) -> httpx.Response:
    """Send with request-level retries; return an open 2xx response, which the caller must close.

    ``on_retry`` is called with each ``RetryInfo`` before the wait. Pass ``retrier`` to share attempt
    counters with a stream-level loop (``policy`` and ``sleep`` are then ignored).
    """
    retrier = retrier or Retrier(policy, sleep=sleep)
    while True:
        try:
            return await send_once(send)
        except ProviderError as exc:
            info = retrier.plan_request_retry(exc)
            if info is None:
                raise
        if on_retry is not None:
            on_retry(info)
        await retrier.wait(info)


async def stream_with_retry(
    send: Callable[[], Awaitable[httpx.Response]],
    read: Callable[[httpx.Response], AsyncGenerator[ProviderEvent, None]],
    *,
    retrier: Retrier,
) -> AsyncGenerator[ProviderEvent, None]:
    """Send with both retry levels and yield what ``read`` makes of the response.

    Each retry is yielded as a ``RetryChunk`` before the wait. The response and ``read``'s generator are
    closed when the stream ends, fails, or the consumer stops early (``aclose()``).
    """
    while True:
        info: RetryInfo | None
        try:
            response = await send_once(send)
        except ProviderError as exc:
            info = retrier.plan_request_retry(exc)
            if info is None:
                raise
        else:
            try:
                async with contextlib.aclosing(read(response)) as events:
                    async for event in events:
                        yield event
                return
            except (StreamError, EmptyCompletionError) as exc:
                info = retrier.plan_stream_retry(exc)
                if info is None:
                    raise
            finally:
                await response.aclose()
        yield RetryChunk(info=info)
        await retrier.wait(info)
