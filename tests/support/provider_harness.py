"""What the provider tests share: a recording sleep, scripted SSE lines, and providers over ``httpx.MockTransport``.

``mock_provider`` builds any ``StreamingHttpProvider`` (OpenAI-compatible or Anthropic) on a client whose
transport answers each request with the next scripted body (SSE bytes) or response, records the requests, and
injects a ``SleepRecorder`` so retries never really wait (``recorded_provider`` does the last part alone, for a
provider with its own client, e.g. against the loopback ``ScriptedLLMServer``)::

    provider, seen, sleep = mock_provider(OpenAIProvider, [sse_bytes], base_url="http://llm.test/v1", api_key="k")
    events = await drain(provider.stream(request), closing=provider)
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncGenerator, AsyncIterator, Callable
from typing import Any, TypeVar

import httpx

from desktop_app.runtime.providers._http import StreamingHttpProvider
from desktop_app.runtime.providers._retry import RetryPolicy
from desktop_app.runtime.providers.base import ContentChunk, ProviderEvent, ReasoningChunk

P = TypeVar("P", bound=StreamingHttpProvider)


class SleepRecorder:
    """An injected ``sleep`` that records each delay instead of waiting."""

    def __init__(self) -> None:
        self.delays: list[float] = []

    async def __call__(self, delay: float) -> None:
        self.delays.append(delay)


async def lines_of(raw: bytes, *, then_silence: bool = False) -> AsyncIterator[str]:
    """The lines of an SSE body; with ``then_silence`` the stream then stays open, as a held connection does."""
    for line in raw.decode().split("\n"):
        yield line
    if then_silence:
        await asyncio.Event().wait()  # a server holding the connection open


async def drain(
    events: AsyncGenerator[ProviderEvent, None], *, closing: StreamingHttpProvider | None = None
) -> list[ProviderEvent]:
    """Every event of ``events`` (closed however it ends); then the HTTP client of ``closing`` is closed."""
    try:
        async with contextlib.aclosing(events) as stream:
            return [event async for event in stream]
    finally:
        if closing is not None:
            await closing._client.aclose()


def text_of(events: list[ProviderEvent], kind: type[ContentChunk] | type[ReasoningChunk]) -> str:
    """The streamed text of one kind (content or reasoning), joined."""
    return "".join(e.text for e in events if isinstance(e, kind))


def mock_provider(
    make: Callable[..., P], answers: list[bytes | httpx.Response], **kwargs: Any
) -> tuple[P, list[httpx.Request], SleepRecorder]:
    """``make(client=…, sleep=…, **kwargs)`` over a MockTransport that pops ``answers`` in order.

    A ``bytes`` answer is a 200 ``text/event-stream`` body; a ``Response`` is sent as it is. The retry policy
    defaults to no jitter.
    """
    seen: list[httpx.Request] = []

    def handler(req: httpx.Request) -> httpx.Response:
        seen.append(req)
        item = answers.pop(0)
        if isinstance(item, httpx.Response):
            return item
        return httpx.Response(200, content=item, headers={"content-type": "text/event-stream"})

    provider, sleep = recorded_provider(
        make, client=httpx.AsyncClient(transport=httpx.MockTransport(handler)), **kwargs
    )
    return provider, seen, sleep


def recorded_provider(make: Callable[..., P], **kwargs: Any) -> tuple[P, SleepRecorder]:
    """``make(sleep=…, **kwargs)`` with a ``SleepRecorder`` as its sleep and, by default, no retry jitter.

    Without a ``client`` the provider makes its own: the one the loopback-server tests use.
    """
    sleep = SleepRecorder()
    kwargs.setdefault("retry_policy", RetryPolicy(jitter=0))
    return make(sleep=sleep, **kwargs), sleep
