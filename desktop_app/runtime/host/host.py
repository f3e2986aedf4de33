"""The MCP host: every configured and built-in server behind one name table and one call path.

This module owns which servers exist (external ones from ``mcp.json``, built-in ones registered as
lazy factories), starting them concurrently, the model-facing tool names (Whale's
``mcp__<server>__<tool>`` for external tools, bare names for built-in ones), and
:meth:`Host.call`, which never raises for a tool failure: every problem comes back as an error
:class:`CallOutcome` whose text says what happened and what to do.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable, Mapping
from typing import Any, Literal

from mcp import StdioServerParameters
from mcp.server.mcpserver import MCPServer
from pydantic import BaseModel, ConfigDict

from desktop_app.runtime.errors import ServerNotFoundError
from desktop_app.runtime.host.config import ServerConfig
from desktop_app.runtime.host.connection import (
    DEFAULT_TIMEOUT,
    CallOutcome,
    ServerConnection,
    Target,
    error_outcome,
)
from desktop_app.runtime.host.names import qualify_tool_name, unique_tool_name
from desktop_app.runtime.messages import ToolSpec

ServerState = Literal["idle", "disabled", "starting", "ready", "failed", "stopped"]
"""``idle``: known but not connected yet (a built-in before first use, or before ``start()``)."""

BuiltinFactory = Callable[[], MCPServer]


class HostTool(BaseModel):
    """One tool the model can call: its model-facing name and where it really lives."""

    model_config = ConfigDict(frozen=True)

    name: str
    server: str
    tool: str
    description: str = ""
    input_schema: dict[str, Any]
    read_only: bool = False
    builtin: bool = False


class ServerStatus(BaseModel):
    """What the UI shows for one server."""

    model_config = ConfigDict(frozen=True)

    name: str
    state: ServerState
    error: str | None = None
    tool_count: int = 0
    builtin: bool = False


def normalize_schema(schema: Mapping[str, Any] | None) -> dict[str, Any]:
    """A copy of an input schema with ``type: object`` and ``properties: {}`` filled in (Whale §1.4)."""
    if not schema:
        return {"type": "object", "properties": {}, "additionalProperties": True}
    result = dict(schema)
    result.setdefault("type", "object")
    result.setdefault("properties", {})
    return result


def stdio_parameters(config: ServerConfig) -> StdioServerParameters:
    """The stdio launch parameters: ``~`` expanded, environment = process env + the server's ``env``."""
    command = os.path.expanduser((config.command or "").strip())
    args = [os.path.expanduser(arg) if arg.startswith("~") else arg for arg in config.args]
    return StdioServerParameters(command=command, args=args, env={**os.environ, **config.env})


class Host:
    """Owns every MCP connection: ``await start()``, ``tools()``, ``await call(...)``, ``await aclose()``."""

    def __init__(
        self,
        servers: Mapping[str, ServerConfig] | None = None,
        *,
        call_timeout: float = DEFAULT_TIMEOUT,
        startup_timeout: float = DEFAULT_TIMEOUT,
    ) -> None:
        self._configs: dict[str, ServerConfig] = dict(servers or {})
        self.call_timeout = call_timeout
        self.startup_timeout = startup_timeout
        self._builtins: dict[str, BuiltinFactory] = {}
        self._locks: dict[str, asyncio.Lock] = {}
        self._connections: dict[str, ServerConnection] = {}
        self._closed = False

    # -- registration and lifecycle -------------------------------------------------------------

    def register_builtin(self, name: str, factory: BuiltinFactory) -> None:
        """Register an in-process server; ``factory`` runs on first use, not now and not at ``start()``."""
        if name in self._configs or name in self._builtins:
            raise ValueError(f"an MCP server named '{name}' is already registered")
        self._builtins[name] = factory

    async def start(self) -> None:
        """Connect every enabled external server concurrently. Failures are recorded, never raised."""
        names = [name for name, cfg in sorted(self._configs.items()) if not cfg.disabled]
        await asyncio.gather(*(self._ensure(name) for name in names))

    async def ensure_connected(self, server: str) -> ServerStatus:
        """Connect ``server`` if it is not yet (this is "first use" for a built-in); report its state."""
        if server not in self._builtins and server not in self._configs:
            raise ServerNotFoundError(f"MCP server '{server}' is not configured")
        if server in self._builtins or not self._configs[server].disabled:
            await self._ensure(server)
        return self._status(server)

    async def restart(self, server: str) -> ServerStatus:
        """Close ``server``'s connection (if any) and connect it again."""
        connection = self._connections.pop(server, None)
        if connection is not None:
            await connection.close()
        return await self.ensure_connected(server)

    async def aclose(self) -> None:
        """Stop every connection; stdio children are closed and reaped. The host cannot be restarted."""
        self._closed = True
        connections = list(self._connections.values())
        await asyncio.gather(*(connection.close() for connection in connections))

    async def _ensure(self, server: str) -> ServerConnection:
        existing = self._connections.get(server)
        if existing is not None:
            await existing.start()
            return existing
        lock = self._locks.setdefault(server, asyncio.Lock())
        async with lock:
            connection = self._connections.get(server)
            if connection is None:
                connection = self._new_connection(server)
                self._connections[server] = connection
        await connection.start()
        return connection

    def _new_connection(self, server: str) -> ServerConnection:
        if self._closed:
            connection = ServerConnection.failed(server, "the MCP host has been shut down")
            connection.state = "stopped"
            return connection
        if server in self._builtins:
            try:
                instance = self._builtins[server]()
            except Exception as exc:  # a broken built-in must not take the host down
                return ServerConnection.failed(server, f"the built-in server could not be created: {exc}")
            return ServerConnection(
                server, instance, startup_timeout=self.startup_timeout, call_timeout=self.call_timeout
            )
        config = self._configs[server]
        target: Target = stdio_parameters(config) if config.transport == "stdio" else (config.url or "")
        return ServerConnection(
            server,
            target,
            startup_timeout=config.startup_timeout or self.startup_timeout,
            call_timeout=config.timeout or self.call_timeout,
        )

    # -- tools ----------------------------------------------------------------------------------

    def tools(self) -> list[HostTool]:
        """Every tool of every ready server, sorted by model-facing name.

        Names are assigned in a fixed order (built-ins first, then external servers sorted by name,
        tools sorted by original name), so collisions resolve the same way every time. A built-in
        server's tools appear once it has been used (see :meth:`ensure_connected`).
        """
        seen: set[str] = set()
        result: list[HostTool] = []
        ready = {name: c for name, c in self._connections.items() if c.state == "ready"}
        builtin_names = sorted(name for name in ready if name in self._builtins)
        external_names = sorted(name for name in ready if name not in self._builtins)
        for server in [*builtin_names, *external_names]:
            builtin = server in self._builtins
            for tool in sorted(ready[server].tools, key=lambda t: t.name):
                base = tool.name if builtin else qualify_tool_name(server, tool.name)
                annotations = tool.annotations
                result.append(
                    HostTool(
                        name=unique_tool_name(base, seen),
                        server=server,
                        tool=tool.name,
                        description=tool.description or "",
                        input_schema=normalize_schema(tool.input_schema),
                        read_only=bool(annotations and annotations.read_only_hint),
                        builtin=builtin,
                    )
                )
        return sorted(result, key=lambda t: t.name)

    def tool_specs(self) -> list[ToolSpec]:
        """The tools as the model sees them. External descriptions name their server and tool (Whale)."""
        specs: list[ToolSpec] = []
        for tool in self.tools():
            description = tool.description
            if not tool.builtin:
                description = f"{description or 'MCP tool'} (MCP server: {tool.server}, tool: {tool.tool})"
            specs.append(ToolSpec(name=tool.name, description=description, parameters=tool.input_schema))
        return specs

    def lookup(self, model_name: str) -> HostTool | None:
        """The tool the model means by ``model_name``, or ``None``."""
        return next((tool for tool in self.tools() if tool.name == model_name), None)

    # -- the one call path ----------------------------------------------------------------------

    async def call(self, server: str, tool: str, arguments: dict[str, Any]) -> CallOutcome:
        """Call ``tool`` on ``server`` (external or built-in). Never raises for a tool failure."""
        try:
            return await self._call(server, tool, arguments)
        except Exception as exc:  # last line of defence: the run loop must always get an outcome
            return error_outcome(
                f"Calling '{tool}' on MCP server '{server}' failed unexpectedly: "
                f"{type(exc).__name__}: {exc}. Try again, or report this as a bug."
            )

    async def _call(self, server: str, tool: str, arguments: dict[str, Any]) -> CallOutcome:
        if server not in self._builtins and server not in self._configs:
            return error_outcome(
                f"MCP server '{server}' is not configured. Add it to mcp.json, or use one of the tools that are listed."
            )
        config = self._configs.get(server)
        if config is not None and config.disabled:
            return error_outcome(f"MCP server '{server}' is disabled in mcp.json. Enable it to use its tools.")
        given: object = arguments  # callers may pass whatever the model produced
        if not isinstance(given, dict):
            return error_outcome(f"The arguments for '{tool}' must be a JSON object, got {type(given).__name__}.")
        connection = await self._ensure(server)
        if connection.state == "ready" and all(t.name != tool for t in connection.tools):
            return error_outcome(
                f"Tool '{tool}' was not found on MCP server '{server}'. Use one of the tools that are listed."
            )
        return await connection.call_tool(tool, arguments)

    # -- status ---------------------------------------------------------------------------------

    def states(self) -> dict[str, ServerStatus]:
        """Status of every known server (external and built-in), by name."""
        names = sorted({*self._configs, *self._builtins})
        return {name: self._status(name) for name in names}

    def _status(self, server: str) -> ServerStatus:
        builtin = server in self._builtins
        connection = self._connections.get(server)
        if connection is None:
            config = self._configs.get(server)
            state: ServerState = "disabled" if config is not None and config.disabled else "idle"
            return ServerStatus(name=server, state=state, builtin=builtin)
        return ServerStatus(
            name=server,
            state=connection.state,
            error=connection.error,
            tool_count=len(connection.tools) if connection.state == "ready" else 0,
            builtin=builtin,
        )

    def stderr_tail(self, server: str) -> str:
        """The last (at most 256 KiB of) stderr output of a stdio server; empty if none."""
        if server not in self._builtins and server not in self._configs:
            raise ServerNotFoundError(f"MCP server '{server}' is not configured")
        connection = self._connections.get(server)
        return connection.stderr_tail() if connection is not None else ""


__all__ = [
    "BuiltinFactory",
    "CallOutcome",
    "Host",
    "HostTool",
    "ServerState",
    "ServerStatus",
    "normalize_schema",
    "stdio_parameters",
]
