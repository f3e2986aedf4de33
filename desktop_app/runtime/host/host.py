"""The MCP host: every configured and built-in server behind one name table and one call path.

:class:`Host` is assembled from layers, each in its own module:

* :mod:`.servers` (:class:`HostServers`): which servers exist, starting, re-configuring, pausing and
  restarting them, and their status;
* :mod:`.tool_table` (:class:`HostToolTable`): the model-facing tool names (Whale's
  ``mcp__<server>__<tool>`` for external tools, bare names for built-in ones) and lookups;
* :mod:`.host_features` (:class:`HostFeatures`): resources, prompts, roots, logs, server requests.

This module owns the host's state (``Host.__init__``), its hooks, and :meth:`Host.call`, the one call
path, which never raises for a tool failure: every problem comes back as an error
:class:`CallOutcome` whose text says what happened and what to do.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import TYPE_CHECKING, Any

from desktop_app.runtime.credentials import Credentials
from desktop_app.runtime.errors import ServerRequestError
from desktop_app.runtime.host.client_features import ClientFeatures, ProgressCallback
from desktop_app.runtime.host.config import DEFAULT_TIMEOUT
from desktop_app.runtime.host.host_features import HostFeatures
from desktop_app.runtime.host.lifecycle import DEFAULT_MAX_RESTARTS, EventBus, RestartSupervisor, Sleep
from desktop_app.runtime.host.outcomes import DEFAULT_MAX_OUTPUT_CHARS, CallOutcome, error_outcome, truncate_outcome
from desktop_app.runtime.host.servers import BuiltinFactory, ServerState, ServerStatus
from desktop_app.runtime.host.tool_table import HostTool, HostToolTable, normalize_schema, tool_spec
from desktop_app.runtime.host.transport_memory import TransportMemory

if TYPE_CHECKING:
    from collections.abc import Mapping

    from desktop_app.runtime.hooks.runner import HookRunner
    from desktop_app.runtime.host.config import ServerConfig
    from desktop_app.runtime.host.connection import ServerConnection
    from desktop_app.runtime.host.targets import stdio_parameters


class Host(HostToolTable, HostFeatures):
    """Owns every MCP connection: ``await start()``, ``tools()``, ``await call(...)``, ``await aclose()``.

    Resources, prompts, roots, server logs and sampling/elicitation answers: see :class:`HostFeatures`."""

    def __init__(
        self,
        servers: Mapping[str, ServerConfig] | None = None,
        *,
        call_timeout: float = DEFAULT_TIMEOUT,
        startup_timeout: float = DEFAULT_TIMEOUT,
        max_output_chars: int | None = DEFAULT_MAX_OUTPUT_CHARS,
        credentials: Credentials | None = None,
        transport_cache: Path | None = None,
        sleep: Sleep = asyncio.sleep,
        max_restarts: int | None = DEFAULT_MAX_RESTARTS,
    ) -> None:
        """``call_timeout``/``startup_timeout`` apply unless a server sets ``timeout``/``startupTimeout``;
        ``max_output_chars`` is the ``tool_output_limit`` setting (``None``: no limit);
        ``transport_cache`` is a JSON file remembering which HTTP transport each URL speaks;
        ``sleep`` waits out restart backoff (tests inject a fake); ``max_restarts`` caps consecutive
        automatic restarts (``None``: no cap)."""
        self.refused: dict[str, str] = {}
        """User servers that were not taken, with why (a ``switchboard.*`` name belongs to the built-ins)."""
        self._configs: dict[str, ServerConfig] = self._accept(servers or {})
        self.call_timeout = call_timeout
        self.startup_timeout = startup_timeout
        self.max_output_chars = max_output_chars
        self._credentials = credentials
        self._builtins: dict[str, BuiltinFactory] = {}
        self._builtin_timeouts: dict[str, float] = {}
        self._in_process: dict[str, BuiltinFactory] = {}
        self._connections: dict[str, ServerConnection] = {}
        self._last_tools: dict[str, list[Any]] = {}  # each server's tools when it was last ready
        self._closed = False
        self._tools_cache: tuple[list[object], bool, list[HostTool]] | None = None
        self.paused = False
        """``pause()``: every external server is stopped until ``resume()`` (built-ins keep working)."""
        self._events = EventBus()
        self._memory = TransportMemory(transport_cache)
        self._supervisor = RestartSupervisor(
            reconnect=self._reconnect,
            describe=lambda name: (self._status(name).error, self._status(name).tool_count),
            publish=self._events.publish,
            sleep=sleep,
            max_restarts=max_restarts,
        )
        self.client_features = ClientFeatures(self._events.publish)
        """The client side offered to servers (sampling, elicitation, roots, logs); the runtime wires it."""
        self.hooks: HookRunner | None = None
        """Lifecycle and MCP message hooks applied inside :meth:`call` (see :meth:`set_hooks`)."""

    def set_hooks(self, runner: HookRunner | None) -> None:
        """Apply ``runner``'s hooks to every :meth:`call`; its ``mcp`` and message hooks call tools through
        the raw path (hooks do not hook hooks)."""
        self.hooks = runner
        if runner is not None:
            runner.bind(self._raw_hook_call)

    async def _raw_hook_call(self, server: str, tool: str, arguments: dict[str, Any]) -> CallOutcome:
        try:
            return await self._call(server, tool, arguments)
        except Exception as exc:
            return error_outcome(f"Calling hook '{server}/{tool}' failed: {type(exc).__name__}: {exc}")

    # -- the one call path ----------------------------------------------------------------------

    async def call(
        self, server: str, tool: str, arguments: dict[str, Any], *, progress: ProgressCallback | None = None
    ) -> CallOutcome:
        """Call ``tool`` on ``server`` (external or built-in). Never raises for a tool failure.

        ``progress`` receives the server's progress notifications for this call. Cancelling the awaiting
        task cancels the MCP request (the server gets ``notifications/cancelled``) and raises
        ``CancelledError``; the run loop records that as an is_error "cancelled by the user" result."""
        try:
            if self.hooks is not None and not self.hooks.empty():
                from desktop_app.runtime.hooks.tool_hooks import hooked_call

                return await hooked_call(
                    self.hooks, self._call, server, tool, self._model_name(server, tool), arguments, progress
                )
            return await self._call(server, tool, arguments, progress)
        except Exception as exc:  # last line of defence: the run loop must always get an outcome
            return error_outcome(
                f"Calling '{tool}' on MCP server '{server}' failed unexpectedly: "
                f"{type(exc).__name__}: {exc}. Try again, or report this as a bug."
            )

    async def _call(
        self, server: str, tool: str, arguments: dict[str, Any], progress: ProgressCallback | None = None
    ) -> CallOutcome:
        if server not in self._builtins and server not in self._configs:
            return error_outcome(
                f"MCP server '{server}' is not configured. Add it to mcp.json, or use one of the tools that are listed."
            )
        config = self._configs.get(server)
        if config is not None and config.disabled:
            return error_outcome(f"MCP server '{server}' is disabled in mcp.json. Enable it to use its tools.")
        if config is not None and self.paused:
            return error_outcome(
                f"MCP server '{server}' is paused (all servers were paused from the tray). Resume the servers "
                "to use its tools."
            )
        given: object = arguments  # callers may pass whatever the model produced
        if not isinstance(given, dict):
            return error_outcome(f"The arguments for '{tool}' must be a JSON object, got {type(given).__name__}.")
        if config is not None and tool in config.excluded_tools:
            return error_outcome(
                f"Tool '{tool}' of MCP server '{server}' is excluded in mcp.json (\"excludedTools\"); remove it "
                "from that list to use it."
            )
        if self._supervisor.active(server) and not self._is_ready(server):
            # Crashed and restarting: wait for the restart (bounded by the call timeout), then call.
            await self._supervisor.wait_attempt(server, (config.timeout if config else None) or self.call_timeout)
        connection = await self._ensure(server)
        if connection.state == "ready" and all(t.name != tool for t in connection.tools):
            return error_outcome(
                f"Tool '{tool}' was not found on MCP server '{server}'. Use one of the tools that are listed."
            )
        if connection.state == "failed" and server in self._last_tools:  # it was up: it crashed since
            phase = self._supervisor.phase(server)
            when = (
                f"Switchboard tries again in {phase[1]:g} s"
                if phase is not None and phase[1] is not None
                else "Switchboard is still restarting it"
                if phase is not None
                else "restart it from the servers panel once it is fixed"
            )
            return error_outcome(
                f"MCP server '{server}' is down: it crashed and restarting it has not worked yet "
                f"({connection.error or 'no reason given'}). {when}; try again then, or use another tool."
            )
        outcome = await connection.call_tool(tool, arguments, progress=progress)
        return truncate_outcome(outcome, self.max_output_chars)

    def _is_ready(self, server: str) -> bool:
        connection = self._connections.get(server)
        return connection is not None and connection.state == "ready"

    async def _connection_for(self, server: str) -> ServerConnection:
        self._require_known(server)
        config = self._configs.get(server)
        if config is not None and config.disabled:
            raise ServerRequestError(f"MCP server '{server}' is disabled in mcp.json. Enable it first.")
        if config is not None and self.paused:
            raise ServerRequestError(f"MCP server '{server}' is paused. Resume the servers (tray menu) first.")
        return await self._ensure(server)

    def _live_connections(self) -> list[ServerConnection]:
        return [connection for connection in self._connections.values() if connection.client is not None]


def __getattr__(name: str) -> Any:
    if name == "stdio_parameters":  # re-exported; its module loads the SDK's client (see host/__init__.py)
        from desktop_app.runtime.host.targets import stdio_parameters

        return stdio_parameters
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "BuiltinFactory",
    "CallOutcome",
    "Host",
    "HostTool",
    "ServerState",
    "ServerStatus",
    "normalize_schema",
    "stdio_parameters",
    "tool_spec",
]
