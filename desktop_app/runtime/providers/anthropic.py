"""The native Anthropic Messages streaming provider (``POST <base>/v1/messages``).

It owns ``AnthropicProvider`` over httpx: the endpoint, the headers and the retry policy. The Anthropic wire
format lives beside it: the request body in :mod:`.anthropic_request` (``build_body``, ``to_wire_messages``,
prompt-caching breakpoints) and the assembly of streamed events into provider events and one ``Completion``
in :mod:`.anthropic_stream` (``StreamAssembler``, ``read_stream``); both are re-exported here. SSE framing
and stall detection come from ``_sse``, sending and both retry levels from ``_retry``, as in the OpenAI
provider; HTTP 529 ("overloaded") is retried like 429/5xx.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import AsyncGenerator, AsyncIterator

import httpx

from desktop_app.runtime.providers._http import StreamingHttpProvider
from desktop_app.runtime.providers._retry import RetryPolicy, Sleep
from desktop_app.runtime.providers._sse import DEFAULT_IDLE_TIMEOUT
from desktop_app.runtime.providers.anthropic_request import (
    DEFAULT_MAX_TOKENS,
    EPHEMERAL,
    MIN_THINKING_BUDGET,
    add_cache_breakpoints,
    build_body,
    to_wire_messages,
    to_wire_tools,
    user_blocks,
)
from desktop_app.runtime.providers.anthropic_stream import (
    RETRYABLE_STREAM_ERRORS,
    StreamAssembler,
    read_stream,
    stream_error,
)
from desktop_app.runtime.providers.base import ChatRequest, ProviderEvent

ANTHROPIC_VERSION = "2023-06-01"
OVERLOADED_STATUS = 529


def messages_endpoint(base_url: str) -> str:
    """``<base>/v1/messages``, whether or not the base URL already ends with ``/v1``."""
    base = base_url.strip().rstrip("/")
    if base.endswith("/v1"):
        return f"{base}/messages"
    return f"{base}/v1/messages"


def anthropic_retry_policy(policy: RetryPolicy | None = None) -> RetryPolicy:
    """``policy`` (default: the standard one) with 529 "overloaded" among the retryable statuses."""
    base = policy or RetryPolicy()
    if OVERLOADED_STATUS in base.retryable_statuses:
        return base
    return dataclasses.replace(base, retryable_statuses=base.retryable_statuses | {OVERLOADED_STATUS})


class AnthropicProvider(StreamingHttpProvider):
    """An Anthropic Messages endpoint, streamed over SSE."""

    def __init__(
        self,
        *,
        base_url: str,
        api_key: str | None,
        client: httpx.AsyncClient | None = None,
        idle_timeout: float = DEFAULT_IDLE_TIMEOUT,
        retry_policy: RetryPolicy | None = None,
        sleep: Sleep = asyncio.sleep,
        max_tokens: int = DEFAULT_MAX_TOKENS,
        thinking_budget: int | None = None,
    ) -> None:
        if max_tokens < 1:
            raise ValueError("max_tokens must be at least 1")
        if thinking_budget is not None and thinking_budget < MIN_THINKING_BUDGET:
            raise ValueError(f"thinking_budget must be at least {MIN_THINKING_BUDGET}")
        super().__init__(
            base_url=base_url,
            api_key=api_key,
            client=client,
            idle_timeout=idle_timeout,
            retry_policy=anthropic_retry_policy(retry_policy),
            sleep=sleep,
        )
        self.max_tokens = max_tokens
        self.thinking_budget = thinking_budget

    @property
    def endpoint(self) -> str:
        return messages_endpoint(self.base_url)

    def _headers(self) -> dict[str, str]:
        headers = {"anthropic-version": ANTHROPIC_VERSION, "content-type": "application/json"}
        headers["accept"] = "text/event-stream"
        if self._api_key:
            headers["x-api-key"] = self._api_key
        return headers

    def _read_lines(self, lines: AsyncIterator[str]) -> AsyncGenerator[ProviderEvent, None]:
        return read_stream(lines, idle_timeout=self._idle_timeout)

    async def stream(self, request: ChatRequest) -> AsyncGenerator[ProviderEvent, None]:
        """Stream one response: deltas, usage and retry notices, then exactly one ``Completion``."""
        body = build_body(request, max_tokens=self.max_tokens, thinking_budget=self.thinking_budget)
        events = self._post_stream(self.endpoint, body)
        try:
            async for event in events:
                yield event
        finally:
            await events.aclose()


__all__ = [
    "ANTHROPIC_VERSION",
    "DEFAULT_MAX_TOKENS",
    "EPHEMERAL",
    "MIN_THINKING_BUDGET",
    "OVERLOADED_STATUS",
    "RETRYABLE_STREAM_ERRORS",
    "AnthropicProvider",
    "StreamAssembler",
    "add_cache_breakpoints",
    "anthropic_retry_policy",
    "build_body",
    "messages_endpoint",
    "read_stream",
    "stream_error",
    "to_wire_messages",
    "to_wire_tools",
    "user_blocks",
]
