"""The OpenAI-compatible Chat Completions streaming provider, DeepSeek-aware (Whale §1.1–1.3).

``OpenAIProvider`` sends ``POST <base>/chat/completions`` over httpx and streams the answer: the request body is
built by ``openai_request`` (``build_request``, ``to_wire_messages``), the streamed frames are assembled by
``openai_stream`` (``StreamAssembler``, ``read_stream``). Message repair, 400 diagnostics and prefix completion
live in ``deepseek``; SSE framing and stall detection in ``_sse``; sending and retrying in ``_retry``.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, AsyncIterator, Sequence
from typing import Any

import httpx

from desktop_app.runtime.errors import ProviderHTTPError
from desktop_app.runtime.providers._http import StreamingHttpProvider
from desktop_app.runtime.providers._retry import RetryPolicy, Sleep
from desktop_app.runtime.providers._sse import DEFAULT_FINISH_GRACE, DEFAULT_IDLE_TIMEOUT
from desktop_app.runtime.providers.base import (
    ChatRequest,
    ProviderEvent,
)
from desktop_app.runtime.providers.deepseek import (
    MessageDiagnostics,
    join_prefix,
    prefix_base_url,
    prefix_message,
    with_diagnostics,
)
from desktop_app.runtime.providers.openai_request import (
    Dialect,
    build_request,
    latest_user_has_attachments,
)
from desktop_app.runtime.providers.openai_stream import read_stream

# ---- the provider -------------------------------------------------------------------------------------


class OpenAIProvider(StreamingHttpProvider):
    """A Chat Completions endpoint (OpenAI, DeepSeek or any compatible server), streamed over SSE."""

    def __init__(
        self,
        *,
        base_url: str,
        api_key: str | None,
        dialect: Dialect = "openai",
        client: httpx.AsyncClient | None = None,
        idle_timeout: float = DEFAULT_IDLE_TIMEOUT,
        retry_policy: RetryPolicy | None = None,
        sleep: Sleep = asyncio.sleep,
        finish_grace: float = DEFAULT_FINISH_GRACE,
    ) -> None:
        """``finish_grace``: how long the tail after ``finish_reason: tool_calls`` may take (see ``read_stream``)."""
        super().__init__(
            base_url=base_url,
            api_key=api_key,
            client=client,
            idle_timeout=idle_timeout,
            retry_policy=retry_policy,
            sleep=sleep,
        )
        self.dialect: Dialect = dialect
        self._finish_grace = finish_grace

    @property
    def endpoint(self) -> str:
        return f"{self.base_url}/chat/completions"

    def _headers(self) -> dict[str, str]:
        headers = {"Accept": "text/event-stream"}
        if self._api_key:
            headers["Authorization"] = f"Bearer {self._api_key}"
        return headers

    async def stream(self, request: ChatRequest) -> AsyncGenerator[ProviderEvent, None]:
        """Stream one response: deltas, usage and retry notices, then exactly one ``Completion``.

        A 400 answer to a request whose messages had to be repaired says what was repaired.
        """
        body, diagnostics = build_request(request, dialect=self.dialect)
        events = self._stream_body(self.endpoint, body, diagnostics)
        try:
            async for event in events:
                yield event
        finally:
            await events.aclose()

    async def stream_with_prefix(
        self, request: ChatRequest, prefix: str, stop: Sequence[str] | None = None
    ) -> AsyncGenerator[ProviderEvent, None]:
        """Prefix completion (DeepSeek beta, Whale §1.1): the model continues ``prefix``.

        The request is sent without tools to the beta endpoint (``deepseek.prefix_base_url``) with a
        trailing ``{"role": "assistant", "content": prefix, "prefix": true}`` message and ``stop`` when
        given. The prefix is the first content delta and the Completion's content starts with it. A blank
        prefix, a latest user message with attachments, a dialect other than ``deepseek`` or a base URL
        without a beta endpoint falls back to a normal stream without tools (no prefix message, no prefix
        in the output).
        """
        plain = request.model_copy(update={"tools": ()})
        usable = self.dialect == "deepseek" and prefix.strip() and not latest_user_has_attachments(request.messages)
        base = prefix_base_url(self.base_url) if usable else None
        if base is None:
            events = self.stream(plain)
        else:
            body, diagnostics = build_request(plain, dialect=self.dialect)
            body["messages"].append(prefix_message(prefix))
            if stop:
                body["stop"] = list(stop)
            events = join_prefix(self._stream_body(f"{base}/chat/completions", body, diagnostics), prefix)
        try:
            async for event in events:
                yield event
        finally:
            await events.aclose()

    def _read_lines(self, lines: AsyncIterator[str]) -> AsyncGenerator[ProviderEvent, None]:
        return read_stream(lines, idle_timeout=self._idle_timeout, finish_grace=self._finish_grace)

    async def _stream_body(
        self, endpoint: str, body: dict[str, Any], diagnostics: MessageDiagnostics
    ) -> AsyncGenerator[ProviderEvent, None]:
        """``_post_stream``, with a 400 answer to a repaired request saying what was repaired."""
        events = self._post_stream(endpoint, body)
        try:
            async for event in events:
                yield event
        except ProviderHTTPError as exc:
            diagnosed = with_diagnostics(exc, diagnostics)
            if diagnosed is exc:
                raise
            raise diagnosed from exc
        finally:
            await events.aclose()
