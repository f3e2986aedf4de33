"""How a connection reaches its server: stdio with captured stderr, streamable HTTP, legacy SSE.

* :func:`stdio_with_captured_stderr` runs ``stdio_client`` with the child's stderr piped into a
  bounded :class:`StderrBuffer` (256 KiB ring buffer) by a reader thread, never to our terminal.
* :func:`streamable_http_streams` and :func:`sse_streams` talk to a ``url`` server through an
  ``httpx2`` client (mcp's HTTP stack; the app's providers use ``httpx``) carrying the server's
  ``headers``. A :class:`HttpProbe` records 4xx answers, which is how a connection tells an
  SSE-only server (404/405 on POST) from one that is down. When the server's config enables OAuth,
  :attr:`HttpTarget.auth` holds the SDK's OAuth provider (see :mod:`.oauth`) and the client uses it;
  without it a 401 becomes :class:`~desktop_app.runtime.host.oauth.SignInRequired`.
* :class:`TransportMemory` remembers which of ``http``/``sse`` worked for a URL (in memory, and in
  a small JSON file when given a path) so the next connection tries that one first.
* :func:`watch_eof` wraps a transport so the connection hears when the server's stream ends
  (a stdio child that exited) even while no call is in flight.
* :func:`quitting` shortens the SDK's wait between closing a stdio child's stdin and SIGTERM while
  the host quits, so closing the app does not wait out each server's own exit.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import threading
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass, field
from typing import Any, TextIO, cast

import anyio
import httpx2
import mcp.client.stdio as sdk_stdio
from mcp import StdioServerParameters, stdio_client
from mcp.client._transport import TransportStreams
from mcp.client.sse import sse_client
from mcp.client.streamable_http import streamable_http_client

from desktop_app.runtime.host.oauth import SignInRequired
from desktop_app.runtime.host.transport_memory import HttpKind, TransportMemory

logger = logging.getLogger(__name__)

STDERR_LIMIT = 256 * 1024
_STDERR_DRAIN_TIMEOUT = 1.0
_HTTP_TIMEOUT = 30.0
_SSE_READ_TIMEOUT = 300.0
_NOT_SSE_HINTS = frozenset({401, 403, 407, 408, 429})
"""4xx answers that say "authenticate" or "slow down", not "this endpoint speaks the other transport"."""


class StderrBuffer:
    """The last ``limit`` bytes a server wrote to stderr. Thread-safe; fed by a reader thread."""

    def __init__(self, limit: int = STDERR_LIMIT) -> None:
        self._limit = limit
        self._data = bytearray()
        self._lock = threading.Lock()

    def feed(self, chunk: bytes) -> None:
        with self._lock:
            self._data.extend(chunk)
            overflow = len(self._data) - self._limit
            if overflow > 0:
                del self._data[:overflow]

    def __len__(self) -> int:
        with self._lock:
            return len(self._data)

    def text(self) -> str:
        with self._lock:
            return self._data.decode("utf-8", errors="replace")

    def last_line(self) -> str:
        lines = [line.strip() for line in self.text().splitlines() if line.strip()]
        return lines[-1][:300] if lines else ""


@contextlib.asynccontextmanager
async def stdio_with_captured_stderr(
    params: StdioServerParameters, sink: StderrBuffer
) -> AsyncIterator[TransportStreams]:
    """``stdio_client`` with the child's stderr piped into ``sink`` by a daemon reader thread.

    On exit it waits (briefly, bounded) until the thread has read everything the child wrote, so
    the tail is complete when a failure is reported. A grandchild that keeps the pipe open only
    costs that bounded wait and one parked daemon thread.
    """
    loop = asyncio.get_running_loop()
    drained = asyncio.Event()
    read_fd, write_fd = os.pipe()
    writer: TextIO = open(write_fd, "w", encoding="utf-8")  # noqa: SIM115, ASYNC230 - a pipe; closed below

    def pump() -> None:
        try:
            while chunk := os.read(read_fd, 65536):
                sink.feed(chunk)
        except OSError:
            pass
        finally:
            os.close(read_fd)
            with contextlib.suppress(RuntimeError):  # the loop may be closed already
                loop.call_soon_threadsafe(drained.set)

    threading.Thread(target=pump, name=f"mcp-stderr-{params.command}", daemon=True).start()
    try:
        async with stdio_client(params, errlog=writer) as streams:
            writer.close()  # the child holds its own copy; ours would keep the pipe open forever
            yield streams
    finally:
        writer.close()
        with anyio.CancelScope(shield=True), anyio.move_on_after(_STDERR_DRAIN_TIMEOUT):
            await drained.wait()


QUIT_GRACE = 0.05
"""Seconds a stdio server gets to exit by itself once its stdin closes while the host quits, before
SIGTERM to its process group (then SIGKILL after the SDK's ``FORCE_KILL_TIMEOUT``, as on any close)."""

_quitting = 0
_sdk_grace = sdk_stdio.PROCESS_TERMINATION_TIMEOUT


@contextlib.contextmanager
def quitting(grace: float = QUIT_GRACE) -> Iterator[None]:
    """While the host quits: stdio servers closed meanwhile get ``grace`` s after their stdin closes.

    The SDK's stdio client closes stdin, then waits up to ``PROCESS_TERMINATION_TIMEOUT`` (2 s) for the
    child to exit before SIGTERM to its group. A Python server exits on stdin's end only after its own
    interpreter shutdown (~0.15 s for the SDK's stack): every quit paid that, in series after the run.
    SIGTERM is what the spec's shutdown sequence escalates to, and a server that needs to clean up
    handles it. The wait is the SDK's module setting, read at each close: it is shortened while any
    host is quitting (nested and overlapping blocks count) and restored after the last one. It is
    process-wide, so a restart that overlaps a quit gets the short grace too; a close that is not during
    a quit (restart, pause, a removed server) keeps the SDK's full grace."""
    global _quitting, _sdk_grace
    if _quitting == 0:
        _sdk_grace = sdk_stdio.PROCESS_TERMINATION_TIMEOUT
    _quitting += 1
    sdk_stdio.PROCESS_TERMINATION_TIMEOUT = min(grace, _sdk_grace)
    try:
        yield
    finally:
        _quitting -= 1
        if _quitting == 0:
            sdk_stdio.PROCESS_TERMINATION_TIMEOUT = _sdk_grace


# -- HTTP ---------------------------------------------------------------------------------------


@dataclass
class HttpProbe:
    """What the HTTP layer answered while connecting: the first "wrong transport" 4xx status, if any."""

    wrong_transport_status: int | None = None
    unauthorized: bool = False
    """The server answered 401: it wants a sign-in."""

    async def on_response(self, response: httpx2.Response) -> None:
        status = response.status_code
        if status == 401:
            self.unauthorized = True
        if 400 <= status < 500 and status not in _NOT_SSE_HINTS and self.wrong_transport_status is None:
            self.wrong_transport_status = status


@dataclass(frozen=True)
class HttpTarget:
    """A ``url`` server. ``kind`` is the declared transport, or ``None`` to try HTTP, then SSE."""

    url: str
    headers: dict[str, str] = field(default_factory=dict)
    kind: HttpKind | None = None
    auth: httpx2.Auth | None = field(default=None, compare=False, repr=False)
    """The OAuth provider when the server's config enables sign-in (``"oauth"`` in mcp.json)."""
    server: str = field(default="", compare=False)
    """The server's name in mcp.json, for messages."""


def _http_client(
    headers: dict[str, str] | None, timeout: httpx2.Timeout | None, probe: HttpProbe, auth: httpx2.Auth | None = None
) -> httpx2.AsyncClient:
    return httpx2.AsyncClient(
        headers=headers or {},
        timeout=timeout or httpx2.Timeout(_HTTP_TIMEOUT, read=_SSE_READ_TIMEOUT),
        event_hooks={"response": [probe.on_response]},
        auth=auth,
    )


@contextlib.asynccontextmanager
async def _explaining_401(
    transport: AbstractAsyncContextManager[TransportStreams], target: HttpTarget, probe: HttpProbe
) -> AsyncIterator[TransportStreams]:
    """``transport``, whose failure after a 401 (without an OAuth provider) becomes :class:`SignInRequired`."""
    try:
        async with transport as streams:
            yield streams
    except Exception as exc:
        if probe.unauthorized and target.auth is None:
            raise SignInRequired(target.server or target.url) from exc
        raise


@contextlib.asynccontextmanager
async def streamable_http_streams(target: HttpTarget, probe: HttpProbe) -> AsyncIterator[TransportStreams]:
    """Streamable HTTP through an ``httpx2`` client with the server's headers; the client is closed after."""
    async with (
        _http_client(target.headers, None, probe, target.auth) as http,
        _explaining_401(streamable_http_client(target.url, http_client=http), target, probe) as streams,
    ):
        yield streams


def sse_streams(target: HttpTarget, probe: HttpProbe) -> AbstractAsyncContextManager[TransportStreams]:
    """The legacy HTTP+SSE transport (protocol 2024-11-05 servers) with the server's headers."""

    def factory(
        headers: dict[str, str] | None = None,
        timeout: httpx2.Timeout | None = None,
        auth: httpx2.Auth | None = None,
    ) -> httpx2.AsyncClient:
        return _http_client(headers, timeout, probe, auth)

    opened = cast(
        AbstractAsyncContextManager[TransportStreams],
        sse_client(target.url, headers=dict(target.headers), httpx_client_factory=factory, auth=target.auth),
    )
    return _explaining_401(opened, target, probe)


# -- end-of-stream watching ---------------------------------------------------------------------


class _EofWatchingStream:
    """A read stream proxy that calls ``on_eof`` once the server's side has ended."""

    def __init__(self, inner: Any, on_eof: Callable[[], None]) -> None:
        self._inner = inner
        self._on_eof = on_eof

    def __getattr__(self, name: str) -> Any:  # last_context, close, aclose, ...
        return getattr(self._inner, name)

    async def receive(self) -> Any:
        try:
            return await self._inner.receive()
        except (anyio.EndOfStream, anyio.ClosedResourceError):
            self._on_eof()
            raise

    def __aiter__(self) -> _EofWatchingStream:
        return self

    async def __anext__(self) -> Any:
        try:
            return await self.receive()
        except anyio.EndOfStream:
            raise StopAsyncIteration from None

    async def __aenter__(self) -> _EofWatchingStream:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self._inner.aclose()


@contextlib.asynccontextmanager
async def watch_eof(
    transport: AbstractAsyncContextManager[TransportStreams], on_eof: Callable[[], None]
) -> AsyncIterator[TransportStreams]:
    """``transport`` whose read stream reports its end through ``on_eof``."""
    async with transport as (read_stream, write_stream):
        yield cast(Any, _EofWatchingStream(read_stream, on_eof)), write_stream


__all__ = [
    "QUIT_GRACE",
    "STDERR_LIMIT",
    "HttpKind",
    "HttpProbe",
    "HttpTarget",
    "StderrBuffer",
    "TransportMemory",
    "quitting",
    "sse_streams",
    "stdio_with_captured_stderr",
    "streamable_http_streams",
    "watch_eof",
]
