"""What both wire dialects share: the HTTP client they own, and one streamed POST with two-level retry.

A subclass says where to post (``endpoint``), which headers to send (``_headers``) and how to read one
SSE body into provider events (``_read_lines``); ``_post_stream`` does the rest: build and send the
request, retry it per ``_retry.stream_with_retry`` (request- and stream-level), and always close the
response, also when the consumer stops early.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, AsyncIterator
from typing import Any

import httpx

from desktop_app.runtime.errors import MissingKeyError, ProviderHTTPError
from desktop_app.runtime.providers._retry import Retrier, RetryPolicy, Sleep, stream_with_retry
from desktop_app.runtime.providers._sse import DEFAULT_IDLE_TIMEOUT
from desktop_app.runtime.providers.base import ProviderEvent
from desktop_app.runtime.providers.error_text import provider_name
from desktop_app.runtime.redaction import remember


def missing_key_message(base_url: str) -> str:
    return f"No API key is set for {base_url}, so nothing was sent. {MissingKeyError.HINT}"


DEFAULT_TIMEOUT = httpx.Timeout(660.0, connect=30.0)
"""For a client the provider creates itself: 11 minutes per read (stalls are caught sooner by the idle
timeout), 30 s to connect."""


class StreamingHttpProvider:
    """Base of the providers: owns (or borrows) an ``httpx.AsyncClient`` and posts streamed requests."""

    def __init__(
        self,
        *,
        base_url: str,
        api_key: str | None,
        client: httpx.AsyncClient | None = None,
        idle_timeout: float = DEFAULT_IDLE_TIMEOUT,
        retry_policy: RetryPolicy | None = None,
        sleep: Sleep = asyncio.sleep,
        requires_key: bool = False,
    ) -> None:
        if idle_timeout <= 0:
            raise ValueError("idle_timeout must be positive")
        self.base_url = base_url.strip().rstrip("/")
        remember(api_key)
        self._api_key = api_key.strip() if api_key else api_key  # never send a trailing CR or newline
        self._owns_client = client is None
        self._client = client if client is not None else httpx.AsyncClient(timeout=DEFAULT_TIMEOUT)
        self._idle_timeout = idle_timeout
        self._retry_policy = retry_policy or RetryPolicy()
        self._sleep = sleep
        self.requires_key = requires_key

    def _headers(self) -> dict[str, str]:
        raise NotImplementedError  # each dialect names its own auth and version headers

    def _read_lines(self, lines: AsyncIterator[str]) -> AsyncGenerator[ProviderEvent, None]:
        raise NotImplementedError  # each dialect parses its own SSE frames

    async def _post_stream(self, endpoint: str, body: dict[str, Any]) -> AsyncGenerator[ProviderEvent, None]:
        if self.requires_key and not self._api_key:
            # Never send a request with an empty Authorization header: say what is missing instead.
            raise MissingKeyError(missing_key_message(self.base_url))
        headers = self._headers()

        async def send() -> httpx.Response:
            http_request = self._client.build_request("POST", endpoint, json=body, headers=headers)
            return await self._client.send(http_request, stream=True)

        def read(response: httpx.Response) -> AsyncGenerator[ProviderEvent, None]:
            return self._read_lines(response.aiter_lines())

        retrier = Retrier(self._retry_policy, sleep=self._sleep, provider=provider_name(self.base_url))
        events = stream_with_retry(send, read, retrier=retrier)
        try:
            async for event in events:
                yield event
        except ProviderHTTPError as exc:
            exc.name_provider(provider_name(self.base_url))  # "HTTP 401 from DeepSeek — …"
            raise
        finally:
            await events.aclose()

    async def aclose(self) -> None:
        """Close the HTTP client if this provider created it."""
        if self._owns_client:
            await self._client.aclose()
