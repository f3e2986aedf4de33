"""One MCP server's lifecycle: connect, list tools, call tools, capture stderr, close.

A :class:`ServerConnection` owns one ``mcp.Client``. The client is an anyio async context manager
whose cancel scopes must be entered and exited in the same task, so each connection runs in its
own long-lived asyncio task: it enters ``async with Client(...)``, lists the tools, signals
ready, then waits for a stop request. Calls from other tasks go through the client object.

Failures never escape to callers as exceptions: start-up problems set ``state = "failed"`` with
a message, and :meth:`ServerConnection.call_tool` turns timeouts, protocol errors and a crashed
process into an error :class:`CallOutcome`. A stdio server's stderr goes to a bounded in-memory
buffer (:class:`StderrBuffer`), never to the terminal.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import contextlib
import json
import math
import os
import threading
from collections.abc import AsyncIterator
from typing import Any, Literal, TextIO

import anyio
import mcp_types as mtypes
from mcp import Client, MCPError, StdioServerParameters, stdio_client
from mcp.client._transport import TransportStreams
from mcp.server.mcpserver import MCPServer
from pydantic import BaseModel, ConfigDict, Field

ConnectionState = Literal["starting", "ready", "failed", "stopped"]
Target = StdioServerParameters | str | MCPServer
"""What to connect to: a stdio command, a streamable-HTTP URL, or an in-process server."""

DEFAULT_TIMEOUT = 60.0
STDERR_LIMIT = 256 * 1024
_MAX_TOOL_PAGES = 100
_TIMEOUT_GRACE = 2.0
_STDERR_DRAIN_TIMEOUT = 1.0
_CRASH_CLEANUP_TIMEOUT = 10.0


class CallOutcome(BaseModel):
    """The result of one tool call as the run loop sees it. ``text`` is what the model reads."""

    model_config = ConfigDict(frozen=True)

    text: str
    is_error: bool = False
    structured: dict[str, Any] | None = None
    content: list[dict[str, Any]] = Field(default_factory=list)


def error_outcome(message: str) -> CallOutcome:
    """An error outcome carrying ``message`` as its only text block."""
    return CallOutcome(text=message, is_error=True, content=[{"type": "text", "text": message}])


def _decoded_size(data: str) -> int:
    try:
        return len(base64.b64decode(data, validate=False))
    except (binascii.Error, ValueError):
        return len(data) * 3 // 4


def _summarize_block(block: mtypes.ContentBlock) -> str:
    """Text for one content block: text as is, everything else as a one-line summary."""
    if isinstance(block, mtypes.TextContent):
        return block.text
    if isinstance(block, mtypes.ImageContent | mtypes.AudioContent):
        return f"[{block.type} {block.mime_type}, {_decoded_size(block.data)} bytes]"
    if isinstance(block, mtypes.ResourceLink):
        return f"[resource link {block.uri}" + (f" ({block.name})" if block.name else "") + "]"
    resource = block.resource  # the last kind: an embedded resource
    if isinstance(resource, mtypes.TextResourceContents):
        return f"[resource {resource.uri}]\n{resource.text}"
    mime = f" {resource.mime_type}" if resource.mime_type else ""
    return f"[resource {resource.uri}{mime}, {_decoded_size(resource.blob)} bytes]"


def outcome_from_result(result: mtypes.CallToolResult) -> CallOutcome:
    """Convert an MCP ``CallToolResult``, applying nanobot's single-JSON-text -> structured rule."""
    texts = [_summarize_block(block) for block in result.content]
    text = "\n".join(part for part in texts if part)
    if result.is_error and not text:
        text = "MCP tool returned an error"
    structured = result.structured_content
    text_blocks = [block for block in result.content if isinstance(block, mtypes.TextContent)]
    if structured is None and len(text_blocks) == 1:
        with contextlib.suppress(ValueError):
            parsed = json.loads(text_blocks[0].text)
            if isinstance(parsed, dict):
                structured = parsed
    return CallOutcome(
        text=text,
        is_error=bool(result.is_error),
        structured=structured,
        content=[block.model_dump(mode="json", by_alias=True, exclude_none=True) for block in result.content],
    )


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

    def text(self) -> str:
        with self._lock:
            return self._data.decode("utf-8", errors="replace")

    def last_line(self) -> str:
        lines = [line.strip() for line in self.text().splitlines() if line.strip()]
        return lines[-1][:300] if lines else ""


@contextlib.asynccontextmanager
async def _stdio_with_captured_stderr(
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


def _leaf(exc: BaseException) -> BaseException:
    """The first non-group exception inside (possibly nested) exception groups."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    return exc


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
    ) -> None:
        self.name = name
        self.target = target
        self.startup_timeout = startup_timeout
        self.call_timeout = call_timeout
        self.state: ConnectionState = "starting"
        self.error: str | None = None
        self.tools: list[mtypes.Tool] = []
        self.stderr = StderrBuffer(stderr_limit)
        self._client: Client | None = None
        self._task: asyncio.Task[None] | None = None
        self._settled = asyncio.Event()
        self._stop = asyncio.Event()
        self._scope: anyio.CancelScope | None = None

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
            self.state = "stopped"
        self._settled.set()

    def stderr_tail(self) -> str:
        return self.stderr.text()

    def _client_for_target(self) -> Client:
        if self.target is None:
            raise RuntimeError("nothing to connect to")
        if isinstance(self.target, StdioServerParameters):
            return Client(_stdio_with_captured_stderr(self.target, self.stderr))
        return Client(self.target)

    async def _run(self) -> None:
        scope = self._scope = anyio.CancelScope(deadline=anyio.current_time() + self.startup_timeout)
        if self._stop.is_set():  # closed before this task first ran
            scope.cancel()
        was_ready = False
        try:
            with scope:
                async with self._client_for_target() as client:
                    self.tools = await self._list_all_tools(client)
                    scope.deadline = math.inf
                    self._client = client
                    self.state = "ready"
                    was_ready = True
                    self._settled.set()
                    await self._stop.wait()
            if scope.cancelled_caught and not self._stop.is_set():
                self._fail(
                    f"did not finish starting within {self.startup_timeout:g} s; raise "
                    "'startupTimeout' in mcp.json or check the server's log"
                )
        except Exception as exc:  # a server fault must not escape the connection task
            leaf = _leaf(exc)
            if was_ready:
                self._fail(f"the connection broke: {leaf or type(leaf).__name__}; restart the server")
            else:
                self._fail(self._describe_start_error(leaf))
        finally:
            self._client = None
            if self.state in ("starting", "ready"):
                self.state = "stopped"
            self._settled.set()

    async def _list_all_tools(self, client: Client) -> list[mtypes.Tool]:
        tools: list[mtypes.Tool] = []
        cursor: str | None = None
        for _ in range(_MAX_TOOL_PAGES):
            page = await client.list_tools(cursor=cursor)
            tools.extend(page.tools)
            cursor = page.next_cursor
            if not cursor:
                break
        return tools

    def _fail(self, message: str) -> None:
        if self.state != "failed":
            self.state = "failed"
            self.error = message

    def _describe_start_error(self, exc: BaseException) -> str:
        if isinstance(self.target, StdioServerParameters):
            command = self.target.command
            if isinstance(exc, FileNotFoundError):
                return (
                    f"could not start '{command}': command not found; check 'command' in mcp.json "
                    "(is it installed and on PATH?)"
                )
            if isinstance(exc, PermissionError):
                return f"could not start '{command}': permission denied; check 'command' in mcp.json"
            if isinstance(exc, OSError):
                return f"could not start '{command}': {exc}; check 'command' and 'args' in mcp.json"
        detail = str(exc) or type(exc).__name__
        if isinstance(exc, MCPError) and exc.error.code == mtypes.CONNECTION_CLOSED:
            detail = "the server closed the connection during start-up"
        tail = self.stderr.last_line()
        hint = f" (last stderr line: {tail})" if tail else ""
        return f"failed to start: {detail}{hint}; check its command, args and env in mcp.json"

    # -- calls ----------------------------------------------------------------------------------

    async def call_tool(
        self,
        tool: str,
        arguments: dict[str, Any],
        *,
        timeout: float | None = None,  # noqa: ASYNC109
    ) -> CallOutcome:
        """Call ``tool``; every failure (timeout, crash, protocol error) comes back as an error outcome."""
        client = self._client
        if client is None or self.state != "ready":
            reason = f": {self.error}" if self.error else ""
            return error_outcome(
                f"MCP server '{self.name}' is not running ({self.state}{reason}). "
                "Fix the server configuration and restart it, or use another tool."
            )
        limit = self.call_timeout if timeout is None else timeout
        try:
            with anyio.move_on_after(limit + _TIMEOUT_GRACE) as backstop:
                result = await client.call_tool(tool, arguments, read_timeout_seconds=limit)
            if backstop.cancelled_caught:
                return self._timeout_outcome(tool, limit)
        except MCPError as exc:
            return await self._mcp_error_outcome(tool, exc, limit)
        except Exception as exc:  # a broken server or transport must not break the run loop
            leaf = _leaf(exc)
            if isinstance(leaf, MCPError):
                return await self._mcp_error_outcome(tool, leaf, limit)
            return error_outcome(
                f"Calling '{tool}' on MCP server '{self.name}' failed: {type(leaf).__name__}: {leaf}. "
                "Check the arguments or try again."
            )
        return outcome_from_result(result)

    def _timeout_outcome(self, tool: str, limit: float) -> CallOutcome:
        return error_outcome(
            f"The call to '{tool}' on MCP server '{self.name}' timed out after {limit:g} s. "
            "Try again with simpler input, or raise 'timeout' for this server in mcp.json."
        )

    async def _mcp_error_outcome(self, tool: str, exc: MCPError, limit: float) -> CallOutcome:
        code = exc.error.code
        if code == mtypes.REQUEST_TIMEOUT:
            return self._timeout_outcome(tool, limit)
        if code == mtypes.CONNECTION_CLOSED:
            self.state = "failed"  # no new calls while the connection task closes the client
            self._stop.set()
            if self._task is not None:  # reap the process and drain its stderr (bounded)
                await asyncio.wait({self._task}, timeout=_CRASH_CLEANUP_TIMEOUT)
            tail = self.stderr.last_line()
            hint = f" (last stderr line: {tail})" if tail else ""
            self.error = f"the server exited unexpectedly during a call to '{tool}'{hint}"
            return error_outcome(
                f"MCP server '{self.name}' stopped while running '{tool}'{hint}. "
                "The server must be restarted before its tools can be used again."
            )
        return error_outcome(
            f"MCP server '{self.name}' rejected the call to '{tool}': {exc.error.message} "
            f"(error {code}). Check the tool name and arguments."
        )
