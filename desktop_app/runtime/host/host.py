"""The MCP host: every configured and built-in server behind one name table and one call path.

This module owns which servers exist (external ones from ``mcp.json``, built-in ones registered as
lazy factories), starting them concurrently, the model-facing tool names (Whale's
``mcp__<server>__<tool>`` for external tools, bare names for built-in ones), and
:meth:`Host.call`, which never raises for a tool failure: every problem comes back as an error
:class:`CallOutcome` whose text says what happened and what to do.
"""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mcp import StdioServerParameters
from mcp.server.mcpserver import MCPServer
from pydantic import BaseModel, ConfigDict

from desktop_app.runtime.credentials import Credentials
from desktop_app.runtime.errors import ServerNotFoundError, ServerRequestError, SwitchboardError
from desktop_app.runtime.events import HostServerState, ServerStateChanged, ToolsChanged
from desktop_app.runtime.host.catalog import CATALOG_SERVER
from desktop_app.runtime.host.client_features import ClientFeatures, ProgressCallback
from desktop_app.runtime.host.config import ServerConfig
from desktop_app.runtime.host.connection import (
    DEFAULT_TIMEOUT,
    CallOutcome,
    ServerConnection,
    Target,
    error_outcome,
)
from desktop_app.runtime.host.environment import (
    check_env_safety,
    expand_args,
    expand_env,
    login_shell_path,
    resolve_command,
)
from desktop_app.runtime.host.host_features import HostFeatures
from desktop_app.runtime.host.lifecycle import DEFAULT_MAX_RESTARTS, EventBus, HostListener, RestartSupervisor, Sleep
from desktop_app.runtime.host.names import qualify_tool_name, unique_tool_name
from desktop_app.runtime.host.outcomes import DEFAULT_MAX_OUTPUT_CHARS, truncate_outcome
from desktop_app.runtime.host.targets import http_target
from desktop_app.runtime.host.transports import TransportMemory
from desktop_app.runtime.messages import ToolSpec
from desktop_app.runtime.redaction import redact

if TYPE_CHECKING:
    from desktop_app.runtime.hooks.runner import HookRunner

ServerState = HostServerState
"""``idle``: known but not connected yet (a built-in before first use, or before ``start()``);
``restarting``: an automatic restart is connecting it again (see :mod:`.lifecycle`)."""

BuiltinFactory = Callable[[], MCPServer]
RESERVED_PREFIX = "switchboard."
"""Server names the built-in servers own; a user server may not use them."""


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
    pinned: bool = False
    """``pinned`` in mcp.json (the whole server, or this tool): always loaded, never deferred."""
    excluded: bool = False
    """In the server's ``excludedTools``: never offered (listed only by ``tools(include_excluded=True)``)."""


class ServerStatus(BaseModel):
    """What the UI shows for one server."""

    model_config = ConfigDict(frozen=True)

    name: str
    state: ServerState
    error: str | None = None
    tool_count: int = 0
    builtin: bool = False
    restart_in_s: float | None = None
    """While ``failed`` after a crash: the automatic restart is due this many seconds after the crash."""
    attempt: int = 0


def normalize_schema(schema: Mapping[str, Any] | None) -> dict[str, Any]:
    """A copy of an input schema with ``type: object`` and ``properties: {}`` filled in (Whale §1.4)."""
    if not schema:
        return {"type": "object", "properties": {}, "additionalProperties": True}
    result = dict(schema)
    result.setdefault("type", "object")
    result.setdefault("properties", {})
    return result


def stdio_parameters(
    config: ServerConfig,
    *,
    name: str | None = None,
    credentials: Credentials | None = None,
    environ: Mapping[str, str] | None = None,
    search_path: str | None = None,
) -> StdioServerParameters:
    """The stdio launch parameters, computed when the server starts.

    ``env`` is checked for unsafe variables (unless ``allowUnsafeEnv``) and expanded (``${NAME}`` from
    ``environ``, ``${keyring:NAME}`` from ``credentials``, default a new :class:`Credentials`); ``~`` is
    expanded in the command and args; a bare command is resolved on ``search_path`` (default: the
    server's own ``PATH`` from ``env``, else :func:`login_shell_path`), and the child gets that PATH.
    The environment is ``environ`` (default ``os.environ``) plus the server's ``env``.
    Raises :class:`~desktop_app.runtime.errors.ServerStartError` with a message for the user.
    """
    label = name or (config.command or "").strip() or "stdio"
    if config.extension:  # an installed MCP Bundle: ${__dirname}, ${user_config.*} … substituted now
        from desktop_app.runtime.extensions.launch import resolve_launch

        config = resolve_launch(label, config, (credentials or Credentials()).get)
    base = dict(os.environ if environ is None else environ)
    check_env_safety(label, config)
    env = expand_env(label, config, environ=base, credentials=credentials)
    path = env.get("PATH") or search_path or login_shell_path()
    command = resolve_command(label, os.path.expanduser((config.command or "").strip()), path)
    args = [
        os.path.expanduser(arg) if arg.startswith("~") else arg
        for arg in expand_args(label, config, credentials=credentials)
    ]
    return StdioServerParameters(command=command, args=args, env={**base, "PATH": path, **env})


def tool_spec(tool: HostTool) -> ToolSpec:
    """One tool as the model sees it. External descriptions name their server and tool (Whale)."""
    description = tool.description
    if not tool.builtin:
        description = f"{description or 'MCP tool'} (MCP server: {tool.server}, tool: {tool.tool})"
    return ToolSpec(name=tool.name, description=description, parameters=tool.input_schema)


def _without_tool_preferences(config: ServerConfig) -> ServerConfig:
    return config.model_copy(update={"pinned": False, "excluded_tools": []})


def _same_key(old: list[object], new: list[object]) -> bool:
    """Whether two :meth:`Host.tools` cache keys name the very same connections, tool lists and configs."""
    if len(old) != len(new):
        return False
    for a, b in zip(old, new, strict=True):
        assert isinstance(a, tuple) and isinstance(b, tuple)
        if a[0] != b[0] or a[1] != b[1] or a[2] is not b[2] or a[3] is not b[3] or a[4:] != b[4:]:
            return False
    return True


class Host(HostFeatures):
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

    # -- registration and lifecycle -------------------------------------------------------------

    def _accept(self, servers: Mapping[str, ServerConfig]) -> dict[str, ServerConfig]:
        """The user's servers minus those named like a built-in (``switchboard.*``): such a server would
        replace the built-in and its prompts would look like built-in calls, so it is refused (``refused``)."""
        accepted: dict[str, ServerConfig] = {}
        for name, config in servers.items():
            if name.startswith(RESERVED_PREFIX):
                self.refused[name] = (
                    f"MCP server '{name}' in mcp.json was not started: names starting with '{RESERVED_PREFIX}' "
                    "belong to Switchboard's built-in servers. Rename it in mcp.json to use it."
                )
            else:
                accepted[name] = config
        return accepted

    def register_builtin(self, name: str, factory: BuiltinFactory, *, call_timeout: float | None = None) -> None:
        """Register an in-process server; ``factory`` runs on first use, not now and not at ``start()``.
        ``call_timeout`` replaces the host's for its calls (an agent's run can wait for approvals)."""
        if name in self._configs or name in self._builtins:
            raise ValueError(f"an MCP server named '{name}' is already registered")
        self._builtins[name] = factory
        if call_timeout is not None:
            self._builtin_timeouts[name] = call_timeout

    def add_in_process(self, name: str, factory: BuiltinFactory, config: ServerConfig | None = None) -> None:
        """Add an external-style server that runs in-process: named, pinned, excluded and deferred like an
        mcp.json server (``config`` gives those fields), but connected to ``factory()`` in memory."""
        if name in self._configs or name in self._builtins:
            raise ValueError(f"an MCP server named '{name}' is already registered")
        self._configs[name] = config or ServerConfig(command=f"(in-process {name})")
        self._in_process[name] = factory

    async def start(self) -> None:
        """Connect every enabled external server concurrently. Failures are recorded, never raised."""
        names = [name for name, cfg in sorted(self._configs.items()) if not cfg.disabled]
        for name, config in sorted(self._configs.items()):
            if config.disabled:
                self._events.publish(ServerStateChanged(server=name, state="disabled"))
        await asyncio.gather(*(self._ensure(name) for name in names))

    def subscribe(self, listener: HostListener) -> Callable[[], None]:
        """Call ``listener`` with every :data:`~desktop_app.runtime.events.HostEvent` from now on
        (synchronously, on the event loop); returns a function that unsubscribes it."""
        return self._events.subscribe(listener)

    async def ensure_connected(self, server: str) -> ServerStatus:
        """Connect ``server`` if it is not yet (this is "first use" for a built-in); report its state."""
        self._require_known(server)
        if server in self._builtins or not (self._configs[server].disabled or self.paused):
            await self._ensure(server)
        return self._status(server)

    async def ensure_builtins(self) -> None:
        """Connect every registered built-in that is not connected yet, so that its tools are listed.

        The runtime calls this before a run's first model request; each factory still runs at most once.
        """
        await asyncio.gather(*(self._ensure(name) for name in sorted(self._builtins)))

    async def apply_servers(self, servers: Mapping[str, ServerConfig], *, remove_missing: bool = False) -> list[str]:
        """Add new servers and update changed ones from a re-read mcp.json, while running.

        New servers connect (concurrently), changed ones restart with their new config; servers that are
        unchanged or not named here are left alone, unless ``remove_missing`` (``servers`` is then the
        whole file, and servers no longer in it are removed). Returns the names that were (re)started.
        Failures are recorded as server states, never raised.
        """
        changed: list[str] = []
        for name, config in sorted(self._accept(servers).items()):  # never a switchboard.* name
            old = self._configs.get(name)
            if old == config:
                continue
            if old is not None and _without_tool_preferences(old) == _without_tool_preferences(config):
                self._configs[name] = config  # only "pinned"/"excludedTools" changed: no restart needed
                continue
            self._configs[name] = config
            changed.append(name)
        if remove_missing:  # ``servers`` is the whole mcp.json: servers no longer in it stop and go
            gone = [name for name in self._configs if name not in servers and name not in self._in_process]
            await asyncio.gather(*(self.remove_server(name) for name in gone))
        await asyncio.gather(*(self._apply_one(name) for name in changed))
        return changed

    async def remove_server(self, server: str) -> None:
        """Stop ``server`` and forget it: its tools leave the tool list, and a last ``stopped`` state is
        published. An unknown name is ignored; a built-in cannot be removed (``ValueError``)."""
        if server in self._builtins:
            raise ValueError(f"'{server}' is a built-in server and cannot be removed")
        if server not in self._configs:
            return
        await self._supervisor.reset(server)
        del self._configs[server]
        self._in_process.pop(server, None)
        connection = self._connections.pop(server, None)
        if connection is not None:
            await connection.close()
        self._events.publish(ServerStateChanged(server=server, state="stopped"))

    async def _apply_one(self, server: str) -> None:
        await self._supervisor.reset(server)
        self._last_tools.pop(server, None)
        old = self._connections.pop(server, None)
        if old is not None:
            await old.close()
        if self._configs[server].disabled:
            self._events.publish(ServerStateChanged(server=server, state="disabled"))
            return
        await self._ensure(server)

    async def restart(self, server: str) -> ServerStatus:
        """Close ``server``'s connection (if any) and connect it again; resets the restart backoff."""
        await self._supervisor.reset(server)
        self._last_tools.pop(server, None)
        connection = self._connections.pop(server, None)
        if connection is not None:
            await connection.close()
        return await self.ensure_connected(server)

    async def pause(self) -> list[str]:
        """Stop every external server (stdio children are closed and reaped) until :meth:`resume`.

        Calls to them meanwhile return an error saying the servers are paused. Returns the stopped names."""
        self.paused = True
        names = sorted(name for name in self._connections if name not in self._builtins)
        for name in names:
            await self._supervisor.reset(name)
        stopped = [self._connections.pop(name) for name in names]
        await asyncio.gather(*(connection.close() for connection in stopped))
        for name in names:
            self._events.publish(ServerStateChanged(server=name, state="stopped", error="paused"))
        return names

    async def resume(self) -> None:
        """Start the external servers again after :meth:`pause`."""
        self.paused = False
        await self.start()

    async def aclose(self) -> None:
        """Stop every connection; stdio children are closed and reaped. The host cannot be restarted."""
        self._closed = True
        await self._supervisor.aclose()
        connections = list(self._connections.values())
        await asyncio.gather(*(connection.close() for connection in connections))

    def _require_known(self, server: str) -> None:
        if server not in self._builtins and server not in self._configs:
            raise ServerNotFoundError(f"MCP server '{server}' is not configured; add it to mcp.json first.")

    async def _ensure(self, server: str) -> ServerConnection:
        """The server's connection, created if needed, once it is ready or has failed. Creating it does
        not await, so concurrent callers share one connection without a lock."""
        connection = self._connections.get(server)
        if connection is None:
            connection = self._new_connection(server)
            self._connections[server] = connection
            if connection.state == "failed":  # could not even be attempted: no task will report it
                self._on_connection_change(connection, "state")
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
            return self._connection(server, instance, None, self._builtin_timeouts.get(server))
        config = self._configs[server]
        if server in self._in_process:
            try:
                in_process = self._in_process[server]()
            except Exception as exc:
                return ServerConnection.failed(server, f"the in-process server could not be created: {exc}")
            return self._connection(server, in_process, config.startup_timeout, config.timeout)
        try:
            target: Target = (
                stdio_parameters(config, name=server, credentials=self._credentials)
                if config.transport == "stdio"
                else http_target(server, config, credentials=self._credentials)
            )
        except SwitchboardError as exc:  # a missing secret, an unsafe env, a command not on PATH
            return ServerConnection.failed(server, str(exc))
        return self._connection(server, target, config.startup_timeout, config.timeout)

    def _connection(
        self, server: str, target: Target, startup_timeout: float | None, call_timeout: float | None
    ) -> ServerConnection:
        return ServerConnection(
            server,
            target,
            startup_timeout=startup_timeout or self.startup_timeout,
            call_timeout=call_timeout or self.call_timeout,
            on_change=self._on_connection_change,
            emit=self._events.publish,
            transport_memory=self._memory,
            features=self.client_features,
        )

    def _on_connection_change(self, connection: ServerConnection, what: str) -> None:
        server = connection.name
        if self._connections.get(server) is not connection or self._closed:
            return  # a replaced or closing connection
        if what == "tools":
            self._last_tools[server] = list(connection.tools)
            self._events.publish(ToolsChanged(server=server, tool_count=len(connection.tools)))
            return
        if connection.state == "failed" and connection.crashed:
            self._supervisor.crashed(server)  # publishes "failed" with the restart delay
            if self._supervisor.active(server):
                return
        elif self._supervisor.active(server) and connection.state != "ready":
            return  # the supervisor reports the attempts of a restart sequence
        if connection.state == "ready":
            self._supervisor.ready(server)
            self._last_tools[server] = list(connection.tools)
        status = self._status(server)
        self._events.publish(
            ServerStateChanged(
                server=server,
                state=status.state,
                error=status.error,
                tool_count=status.tool_count,
                attempt=self._supervisor.attempt(server),
            )
        )

    async def _reconnect(self, server: str) -> bool:
        """One automatic restart: replace the connection and start it; whether it became ready."""
        old = self._connections.pop(server, None)
        if old is not None:
            await old.close()
        connection = await self._ensure(server)
        return connection.state == "ready"

    # -- tools ----------------------------------------------------------------------------------

    def set_tool_preferences(self, server: str, *, pinned: bool | list[str], excluded_tools: list[str]) -> None:
        """Change a server's ``pinned`` and ``excludedTools`` while running (no restart); the next tool list
        follows. The caller writes mcp.json (see :mod:`.config_edit`)."""
        self._require_known(server)
        if server in self._builtins:
            raise ValueError(f"'{server}' is a built-in server; its tools are always loaded")
        self._configs[server] = self._configs[server].model_copy(
            update={"pinned": pinned, "excluded_tools": list(excluded_tools)}
        )

    def config(self, server: str) -> ServerConfig | None:
        """The current configuration of an external server (``None`` for a built-in or an unknown name)."""
        return self._configs.get(server)

    def is_builtin(self, server: str) -> bool:
        return server in self._builtins

    def server_identity(self, server: str) -> str | None:
        """What a grant for ``server`` is bound to: its command and arguments (stdio) or its URL, as
        configured now; ``None`` for an unknown server. A changed definition is another identity."""
        if server in self._builtins:
            return f"builtin:{server}"
        config = self._configs.get(server)
        if config is None:
            return None
        if config.transport == "stdio":
            return json.dumps({"command": config.command, "args": list(config.args)}, ensure_ascii=False)
        return json.dumps({"url": config.url}, ensure_ascii=False)

    def tools(self, *, include_excluded: bool = False) -> list[HostTool]:
        """Every tool of every ready server, sorted by model-facing name.

        Names are assigned in a fixed order (built-ins first, then external servers sorted by name,
        tools sorted by original name), so collisions resolve the same way every time. A built-in
        server's tools appear once it has been used (see :meth:`ensure_connected`). Excluded tools
        (``excludedTools``) are left out unless ``include_excluded``; they keep their names either way.
        The list is rebuilt only when a connection, its tools or a configuration changed.
        A server that crashed and is being restarted keeps its last tools on offer: a call to one waits
        for the restart.
        """
        key: list[object] = [
            (name, c.state, c.tools, self._configs.get(name), self._supervisor.active(name))
            for name, c in sorted(self._connections.items())
        ]
        cached = self._tools_cache
        if cached is not None and cached[1] == include_excluded and _same_key(cached[0], key):
            return list(cached[2])
        result = self._build_tools(include_excluded)
        self._tools_cache = (key, include_excluded, result)
        return list(result)

    def _build_tools(self, include_excluded: bool) -> list[HostTool]:
        seen: set[str] = set()
        result: list[HostTool] = []
        ready = {name: c.tools for name, c in self._connections.items() if c.state == "ready"}
        for name, last in self._last_tools.items():
            if name not in ready and self._supervisor.active(name):
                ready[name] = last
        builtin_names = sorted(name for name in ready if name in self._builtins)
        external_names = sorted(name for name in ready if name not in self._builtins)
        for server in [*builtin_names, *external_names]:
            builtin = server in self._builtins
            config = None if builtin else self._configs[server]
            excluded = set(config.excluded_tools) if config is not None else set()
            pinned = config.pinned if config is not None else False
            for tool in sorted(ready[server], key=lambda t: t.name):
                is_excluded = tool.name in excluded
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
                        pinned=builtin or pinned is True or (isinstance(pinned, list) and tool.name in pinned),
                        excluded=is_excluded,
                    )
                )
        kept = result if include_excluded else [t for t in result if not t.excluded]  # never offered
        return sorted(kept, key=lambda t: t.name)

    def tool_specs(self) -> list[ToolSpec]:
        """Every tool as the model sees it, without deferral (see :mod:`desktop_app.runtime.deferral`); so
        ``tool_search``, which only searches deferred tools, is left out."""
        return [tool_spec(tool) for tool in self.tools() if tool.server != CATALOG_SERVER]

    def lookup(self, model_name: str) -> HostTool | None:
        """The tool the model means by ``model_name``, or ``None``."""
        return next((tool for tool in self.tools() if tool.name == model_name), None)

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

    def _model_name(self, server: str, tool: str) -> str:
        """The model-facing name of ``server``'s ``tool`` (what hook ``match`` patterns see)."""
        for known in self.tools():
            if known.server == server and known.tool == tool:
                return known.name
        return tool if server in self._builtins else qualify_tool_name(server, tool)

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
            if state == "idle" and self.paused and not builtin:
                return ServerStatus(name=server, state="stopped", error="paused", builtin=builtin)
            return ServerStatus(name=server, state=state, builtin=builtin)
        phase = self._supervisor.phase(server)
        ready = connection.state == "ready"
        return ServerStatus(
            name=server,
            state="restarting" if phase is not None and phase[0] == "restarting" and not ready else connection.state,
            error=redact(connection.error) if connection.error else connection.error,
            tool_count=len(connection.tools) if connection.state == "ready" else 0,
            builtin=builtin,
            restart_in_s=phase[1] if phase is not None else None,
            attempt=self._supervisor.attempt(server),
        )

    def stderr_tail(self, server: str) -> str:
        """The last (at most 256 KiB of) stderr output of a stdio server; empty if none."""
        self._require_known(server)
        connection = self._connections.get(server)
        return redact(connection.stderr_tail()) if connection is not None else ""


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
