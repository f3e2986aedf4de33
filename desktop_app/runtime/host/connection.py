"""One MCP server's lifecycle: connect, list tools, follow tool-list changes, call tools, close.

A :class:`ServerConnection` owns one ``mcp.Client`` (built in :meth:`ServerConnection.make_client`,
the one place its callbacks are wired). The client is an anyio async context manager whose cancel
scopes must be entered and exited in the same task, so each connection runs in its own long-lived
asyncio task: it enters the client, lists the tools, signals ready, then follows
``tools/list_changed`` (the legacy push through ``message_handler``, or ``Client.listen`` on
2026-07-28 connections) until a stop request. Calls from other tasks go through the client.

Failures never escape to callers as exceptions: start-up problems set ``state = "failed"`` with
a message, and :meth:`ServerConnection.call_tool` turns timeouts, protocol errors and a crashed
process into an error :class:`CallOutcome`. A server that was ready and then died (its stream
ended, a call saw the connection close, or it stopped answering after a timed-out call) ends
``failed`` with :attr:`ServerConnection.crashed` set; the host decides whether to restart it.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
from collections.abc import Callable
from contextlib import AbstractAsyncContextManager, AsyncExitStack
from typing import Any, Literal

import anyio
import mcp_types as mtypes
from mcp import Client, MCPError, StdioServerParameters
from mcp.client._transport import TransportStreams
from mcp.client.extension import advertise
from mcp.client.session import IncomingMessage
from mcp.client.subscriptions import Subscription
from mcp.server.mcpserver import MCPServer
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from desktop_app.runtime.apps.meta import CLIENT_SETTINGS, EXTENSION_ID
from desktop_app.runtime.host.client_features import ClientCallbacks, ClientFeatures, ProgressCallback
from desktop_app.runtime.host.config import DEFAULT_TIMEOUT
from desktop_app.runtime.host.connection_requests import describe_start_error
from desktop_app.runtime.host.connection_requests import leaf_exception as _leaf
from desktop_app.runtime.host.oauth import DEFAULT_SIGN_IN_TIMEOUT
from desktop_app.runtime.host.outcomes import CallOutcome, error_outcome, outcome_from_result
from desktop_app.runtime.host.resource_watch import ResourceWatch
from desktop_app.runtime.host.tool_listing import list_all_tools, listen_for_changes, mark_dirty_on_events
from desktop_app.runtime.host.transports import (
    STDERR_LIMIT,
    HttpKind,
    HttpProbe,
    HttpTarget,
    StderrBuffer,
    TransportMemory,
    sse_streams,
    stdio_with_captured_stderr,
    streamable_http_streams,
    watch_eof,
)
from desktop_app.runtime.host_events import HostEvent

logger = logging.getLogger(__name__)

ConnectionState = Literal["starting", "ready", "failed", "stopped"]
Target = StdioServerParameters | HttpTarget | str | MCPServer
"""What to connect to: a stdio command, a ``url`` server (or a bare streamable-HTTP URL), or an in-process server."""
ChangeListener = Callable[["ServerConnection", Literal["state", "tools"]], None]
ClientMode = Literal["auto", "legacy"]

MAX_TIMEOUT = 7 * 24 * 3600.0
"""The longest start-up or call timeout honoured (longer ones are cut to this). The app's qasync loop
runs timers as ``QTimer`` s, whose milliseconds are a 32-bit int: a timer past ~24.8 days raises
``OverflowError`` instead of waiting. (An infinite deadline is fine: anyio schedules no timer for it.)"""
_TIMEOUT_GRACE = 2.0
_CRASH_CLEANUP_TIMEOUT = 10.0
_HEALTH_CHECK_TIMEOUT = 5.0


class ServerConnection:
    """One server: ``await start()``, then ``tools`` / ``call_tool``, then ``await close()``."""

    def __init__(
        self,
        name: str,
        target: Target | None,
        *,
        startup_timeout: float = DEFAULT_TIMEOUT,
        call_timeout: float = DEFAULT_TIMEOUT,
        stderr_limit: int = STDERR_LIMIT,
        on_change: ChangeListener | None = None,
        emit: Callable[[HostEvent], None] | None = None,
        transport_memory: TransportMemory | None = None,
        features: ClientFeatures | None = None,
        mode: ClientMode = "auto",
    ) -> None:
        """``features``: the host's client side (sampling, elicitation, roots, logs); without it the client
        offers no client capabilities. ``mode``: ``auto`` (2026-07-28 with fallback) or ``legacy``."""
        self.name = name
        self.target = target
        if isinstance(target, HttpTarget) and target.auth is not None:
            # Starting may include signing in through the browser: give the user the sign-in time too.
            startup_timeout = max(startup_timeout, DEFAULT_SIGN_IN_TIMEOUT)
        self.startup_timeout = min(startup_timeout, MAX_TIMEOUT)
        self.call_timeout = min(call_timeout, MAX_TIMEOUT)
        self.state: ConnectionState = "starting"
        self.error: str | None = None
        self.crashed = False
        """The server was ready and then died (as opposed to failing to start or being closed)."""
        self.tools: list[mtypes.Tool] = []
        self.transport: Literal["stdio", "http", "sse", "in-process"] | None = None
        self.stderr = StderrBuffer(stderr_limit)
        self._on_change = on_change
        self._emit = emit
        self._memory = transport_memory or TransportMemory()
        self._client: Client | None = None
        self._task: asyncio.Task[None] | None = None
        self._settled = asyncio.Event()
        self._stop = asyncio.Event()
        self._tools_dirty = asyncio.Event()
        self._scope: anyio.CancelScope | None = None
        self._crash_context = ""
        self._features = features
        self.mode: ClientMode = mode
        self.watch = ResourceWatch(
            name,
            lambda uri: features.resource_updated(name, uri) if features is not None else None,
            features.subscriptions(name) if features is not None else (),
        )

    @classmethod
    def failed(cls, name: str, message: str) -> ServerConnection:
        """A connection that could not even be attempted (e.g. a built-in factory raised)."""
        connection = cls(name, None)
        connection._fail(message)
        connection._settled.set()
        return connection

    # -- lifecycle ------------------------------------------------------------------------------

    async def start(self) -> bool:
        """Connect and list tools; returns whether the server is ready. Never raises for server faults."""
        if self._task is None and not self._settled.is_set():
            self._task = asyncio.create_task(self._run(), name=f"mcp-connection-{self.name}")
        await self._settled.wait()
        return self.state == "ready"

    async def close(self) -> None:
        """Stop the connection and wait until the client (and any child process) is closed."""
        self._stop.set()
        if self.state == "starting" and self._scope is not None:
            self._scope.cancel()  # do not wait out a slow start-up
        if self._task is not None:
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
        if self.state in ("starting", "ready"):
            self._set_state("stopped")
        self._settled.set()

    def stderr_tail(self) -> str:
        return self.stderr.text()

    @property
    def client(self) -> Client | None:
        """The live client while ready (``None`` otherwise), for requests outside the tool-call path."""
        return self._client if self.state == "ready" and not self.crashed else None

    def _set_state(self, state: ConnectionState) -> None:
        if state != self.state:
            self.state = state
            if self._on_change is not None:
                self._on_change(self, "state")

    def _fail(self, message: str) -> None:
        if self.state != "failed":
            self.error = message
            self._set_state("failed")

    def _crash(self, context: str = "") -> None:
        """The ready server died or stopped answering: stop the connection task and mark it crashed."""
        if not self.crashed and not self._stop.is_set():
            self.crashed = True
            self._crash_context = context
            self._stop.set()

    # -- the client -----------------------------------------------------------------------------

    def make_client(self, server: AbstractAsyncContextManager[TransportStreams] | MCPServer) -> Client:
        """The one place a ``mcp.Client`` is built. Each registered callback declares its capability, so
        only the callbacks :class:`ClientFeatures` backs with a real handler are passed."""
        callbacks = self._features.callbacks(self.name) if self._features is not None else ClientCallbacks()
        return Client(
            server,
            mode=self.mode,
            message_handler=self._on_message,
            sampling_callback=callbacks.sampling,
            elicitation_callback=callbacks.elicitation,
            list_roots_callback=callbacks.list_roots,
            logging_callback=callbacks.logging,
            log_level=callbacks.log_level,
            extensions=[advertise(EXTENSION_ID, CLIENT_SETTINGS)] if callbacks.apps else None,
        )

    async def _on_message(self, message: IncomingMessage) -> None:
        # Runs on the session's read loop: never await session I/O here, only flag the work.
        if isinstance(message, mtypes.ToolListChangedNotification):
            self._tools_dirty.set()
        elif isinstance(message, mtypes.ResourceListChangedNotification) and self._features is not None:
            self._features.resources_changed(self.name)
        elif isinstance(message, mtypes.ResourceUpdatedNotification) and self._features is not None:
            client = self._client  # 2026-07-28 updates also tee here; their listen stream reports them
            if client is not None and client.protocol_version not in MODERN_PROTOCOL_VERSIONS:
                self._features.resource_updated(self.name, message.params.uri)  # legacy resources/subscribe
        elif isinstance(message, Exception):
            logger.debug("MCP server '%s' sent something unreadable: %s", self.name, message)

    async def _enter_client(self, stack: AsyncExitStack) -> Client:
        """Enter a client for the target; a ``url`` server without a type tries HTTP, then SSE."""
        target = self.target
        if target is None:
            raise RuntimeError("nothing to connect to")
        if isinstance(target, MCPServer):
            self.transport = "in-process"
            return await stack.enter_async_context(self.make_client(target))
        if isinstance(target, StdioServerParameters):
            self.transport = "stdio"
            transport = watch_eof(stdio_with_captured_stderr(target, self.stderr), self._on_eof)
            return await stack.enter_async_context(self.make_client(transport))
        http = target if isinstance(target, HttpTarget) else HttpTarget(url=target, kind="http")
        kinds: list[HttpKind] = [http.kind] if http.kind else self._memory.order(http.url)
        for index, kind in enumerate(kinds):
            probe = HttpProbe()
            opened = streamable_http_streams(http, probe) if kind == "http" else sse_streams(http, probe)
            try:
                client = await stack.enter_async_context(self.make_client(watch_eof(opened, self._on_eof)))
            except Exception as exc:
                if index + 1 < len(kinds) and probe.wrong_transport_status is not None:
                    logger.info(
                        "MCP server '%s': %s answered HTTP %s, trying %s",
                        self.name,
                        kind,
                        probe.wrong_transport_status,
                        kinds[index + 1],
                    )
                    continue
                raise exc from None
            self.transport = kind
            if http.kind is None:
                self._memory.remember(http.url, kind)
            return client
        raise AssertionError("unreachable")  # pragma: no cover

    def _on_eof(self) -> None:
        if self.state == "ready":
            self._crash()

    async def _run(self) -> None:
        scope = self._scope = anyio.CancelScope(deadline=anyio.current_time() + self.startup_timeout)
        if self._stop.is_set():  # closed before this task first ran
            scope.cancel()
        was_ready = False
        try:
            with scope:
                async with AsyncExitStack() as stack:
                    client = await self._enter_client(stack)
                    subscription = await listen_for_changes(stack, client, self.name)  # before listing: no gap
                    self.tools = await list_all_tools(client)
                    scope.deadline = math.inf
                    self._client = client
                    was_ready = True
                    self._set_state("ready")
                    self._settled.set()
                    await self._follow_until_stopped(client, subscription)
            if scope.cancelled_caught and not self._stop.is_set():
                self._fail(
                    f"did not finish starting within {self.startup_timeout:g} s; raise "
                    "'startupTimeout' in mcp.json or check the server's log"
                )
        except Exception as exc:  # a server fault must not escape the connection task
            leaf = _leaf(exc)
            if was_ready and (self.crashed or not self._stop.is_set()):
                if not self.crashed:
                    self.crashed = True
                    self._crash_context = f" (the connection broke: {leaf or type(leaf).__name__})"
            elif not was_ready:
                self._fail(describe_start_error(self.target, leaf, self.stderr.last_line()))
        finally:
            self._client = None
            if self.crashed:
                tail = self.stderr.last_line()
                hint = f" (last stderr line: {tail})" if tail else ""
                self._fail(f"the server exited unexpectedly{self._crash_context}{hint}")
            elif self.state in ("starting", "ready"):
                self._set_state("stopped")
            self._settled.set()

    async def _follow_until_stopped(self, client: Client, subscription: Subscription | None) -> None:
        """While ready: re-list tools whenever the server says they changed, until ``close()`` or a crash."""
        async with anyio.create_task_group() as tg:
            tg.start_soon(self._refresh_tools_when_dirty, client)
            tg.start_soon(self.watch.run, client)
            if subscription is not None:
                tg.start_soon(mark_dirty_on_events, subscription, self.name, self._tools_dirty, self._resources_changed)
            await self._stop.wait()
            tg.cancel_scope.cancel()

    def _resources_changed(self) -> None:
        if self._features is not None:
            self._features.resources_changed(self.name)

    async def _refresh_tools_when_dirty(self, client: Client) -> None:
        while True:
            await self._tools_dirty.wait()
            self._tools_dirty.clear()
            try:
                self.tools = await list_all_tools(client, cache_mode="refresh")
            except Exception as exc:  # keep the old list; a broken connection is noticed elsewhere
                logger.info("MCP server '%s': re-listing tools failed: %s", self.name, exc)
                continue
            if self._on_change is not None:
                self._on_change(self, "tools")

    # -- calls ----------------------------------------------------------------------------------

    async def call_tool(
        self,
        tool: str,
        arguments: dict[str, Any],
        *,
        timeout: float | None = None,  # noqa: ASYNC109
        progress: ProgressCallback | None = None,
    ) -> CallOutcome:
        """Call ``tool``; every failure (timeout, crash, protocol error) comes back as an error outcome.

        ``progress`` receives the server's progress notifications for this call. Cancelling the awaiting
        task cancels the request: the SDK sends ``notifications/cancelled`` (or, in-process, cancels the
        handler) and ``CancelledError`` propagates; the connection stays usable."""
        client = self._client
        if client is None or self.state != "ready" or self.crashed:
            reason = f": {self.error}" if self.error else ""
            return error_outcome(
                f"MCP server '{self.name}' is not running ({self.state}{reason}). "
                "Fix the server configuration and restart it, or use another tool."
            )
        limit = self.call_timeout if timeout is None else min(timeout, MAX_TIMEOUT)
        try:
            with anyio.move_on_after(limit + _TIMEOUT_GRACE) as backstop:
                result = await client.call_tool(tool, arguments, read_timeout_seconds=limit, progress_callback=progress)
            if backstop.cancelled_caught:
                return await self._timeout_outcome(client, tool, limit)
        except MCPError as exc:
            return await self._mcp_error_outcome(client, tool, exc, limit)
        except Exception as exc:  # a broken server or transport must not break the run loop
            leaf = _leaf(exc)
            if isinstance(leaf, MCPError):
                return await self._mcp_error_outcome(client, tool, leaf, limit)
            return error_outcome(
                f"Calling '{tool}' on MCP server '{self.name}' failed: {type(leaf).__name__}: {leaf}. "
                "Check the arguments or try again."
            )
        return outcome_from_result(result)

    async def _responsive(self, client: Client, limit: float) -> bool:
        """Whether the server still answers a cheap request (after one of its calls timed out)."""
        with anyio.move_on_after(min(_HEALTH_CHECK_TIMEOUT, max(limit, 0.5))):
            with contextlib.suppress(Exception):
                await client.list_tools(cache_mode="bypass")
                return True
        return False

    async def _timeout_outcome(self, client: Client, tool: str, limit: float) -> CallOutcome:
        message = (
            f"The call to '{tool}' on MCP server '{self.name}' timed out after {limit:g} s "
            "(the server's 'timeout' setting in mcp.json). Try again with simpler input, or raise 'timeout'."
        )
        if self.state == "ready" and not self.crashed and not await self._responsive(client, limit):
            self._crash(f": it stopped answering after the call to '{tool}' timed out")
            message += " The server stopped answering and will be restarted."
        return error_outcome(message)

    async def _mcp_error_outcome(self, client: Client, tool: str, exc: MCPError, limit: float) -> CallOutcome:
        code = exc.error.code
        if code == mtypes.REQUEST_TIMEOUT:
            return await self._timeout_outcome(client, tool, limit)
        if code == mtypes.CONNECTION_CLOSED:
            if not self.crashed:
                self._crash(f" during a call to '{tool}'")
            else:
                self._crash_context = f" during a call to '{tool}'"
            if self._task is not None:  # reap the process and drain its stderr (bounded)
                await asyncio.wait({self._task}, timeout=_CRASH_CLEANUP_TIMEOUT)
            tail = self.stderr.last_line()
            hint = f" (last stderr line: {tail})" if tail else ""
            return error_outcome(
                f"MCP server '{self.name}' stopped while running '{tool}'{hint}. "
                "The server must be restarted before its tools can be used again."
            )
        return error_outcome(
            f"MCP server '{self.name}' rejected the call to '{tool}': {exc.error.message} "
            f"(error {code}). Check the tool name and arguments."
        )


__all__ = [
    "DEFAULT_TIMEOUT",
    "MAX_TIMEOUT",
    "CallOutcome",
    "ChangeListener",
    "ConnectionState",
    "ServerConnection",
    "StderrBuffer",
    "Target",
    "error_outcome",
    "outcome_from_result",
]
