"""The host's servers: which exist, starting and stopping them, restarts and their status.

:class:`HostServers` is the lifecycle collaborator of :class:`~desktop_app.runtime.host.host.Host`: external
servers from ``mcp.json`` and built-in ones registered as lazy factories (plus in-process ones), starting
them concurrently, applying a re-read ``mcp.json``, pause/resume, restarts after a crash (through the
:class:`~desktop_app.runtime.host.lifecycle.RestartSupervisor`) and the :class:`ServerStatus` the UI shows.
The servers' tables it works on are the :class:`~.registry.ServerRegistry` it is given.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, TypeAlias

from desktop_app.runtime.credentials import Credentials
from desktop_app.runtime.errors import ServerNotFoundError, SwitchboardError
from desktop_app.runtime.host.client_features import ClientFeatures
from desktop_app.runtime.host.config import ServerConfig
from desktop_app.runtime.host.lifecycle import EventBus, HostListener, RestartSupervisor, Sleep
from desktop_app.runtime.host.registry import ServerRegistry
from desktop_app.runtime.host.sdk_import import import_sdk
from desktop_app.runtime.host.server_status import ServerStatus, server_status
from desktop_app.runtime.host.transport_memory import TransportMemory
from desktop_app.runtime.host_events import HostServerState, ServerStateChanged, ToolsChanged
from desktop_app.runtime.redaction import redact

if TYPE_CHECKING:  # the SDK (client and server halves) loads with the first connection: see :mod:`.sdk_import`
    from mcp.server.mcpserver import MCPServer

    from desktop_app.runtime.host.connection import ServerConnection, Target

ServerState = HostServerState
"""``idle``: known but not connected yet (a built-in before first use, or before ``start()``);
``restarting``: an automatic restart is connecting it again (see :mod:`.lifecycle`)."""

BuiltinFactory: TypeAlias = "Callable[[], MCPServer]"
RESERVED_PREFIX = "switchboard."
"""Server names the built-in servers own; a user server may not use them."""


def _without_tool_preferences(config: ServerConfig) -> ServerConfig:
    return config.model_copy(update={"pinned": False, "excluded_tools": []})


class HostServers:
    """Registration, start-up, re-configuration, pause/resume, restarts and status of every server."""

    def __init__(
        self,
        registry: ServerRegistry,
        servers: Mapping[str, ServerConfig],
        *,
        call_timeout: float,
        startup_timeout: float,
        credentials: Credentials | None,
        transport_cache: Path | None,
        sleep: Sleep,
        max_restarts: int | None,
    ) -> None:
        self.refused: dict[str, str] = {}
        """User servers that were not taken, with why (a ``switchboard.*`` name belongs to the built-ins)."""
        # The registry's tables (the same dicts: the tool table and the call path read them).
        self._configs = registry.configs
        self._builtins = registry.builtins
        self._builtin_timeouts = registry.builtin_timeouts
        self._in_process = registry.in_process
        self._connections = registry.connections
        self._last_tools = registry.last_tools
        self._configs.update(self._accept(servers))
        self.call_timeout = call_timeout
        self.startup_timeout = startup_timeout
        self._credentials = credentials
        self._closed = False
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

    @property
    def supervisor(self) -> RestartSupervisor:
        """Restarts after a crash: which servers are restarting, their phase, waiting for an attempt."""
        return self._supervisor

    async def connect(self, server: str) -> ServerConnection:
        """The server's connection, created if needed, once it is ready or has failed."""
        return await self._ensure(server)

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

    async def unregister_builtin(self, name: str) -> None:
        """Stop the in-process server ``name`` and forget it (an agent whose plugin was disabled): its tools
        leave the tool list and a last ``stopped`` state is published. An unknown name is ignored."""
        if name not in self._builtins:
            return
        await self._supervisor.reset(name)
        del self._builtins[name]
        self._builtin_timeouts.pop(name, None)
        self._last_tools.pop(name, None)
        connection = self._connections.pop(name, None)
        if connection is not None:
            await connection.close()
        self._events.publish(ServerStateChanged(server=name, state="stopped"))

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
        """Stop every connection, in parallel; stdio children get a short grace after their stdin closes,
        then SIGTERM (:func:`~.transports.quitting`), and are reaped. The host cannot be restarted."""
        self._closed = True
        await self._supervisor.aclose()
        connections = list(self._connections.values())
        if not connections:  # nothing connected: the SDK may not even be loaded
            return
        from desktop_app.runtime.host.transports import quitting

        with quitting():
            await asyncio.gather(*(connection.close() for connection in connections))

    def _require_known(self, server: str) -> None:
        if server not in self._builtins and server not in self._configs:
            raise ServerNotFoundError(f"MCP server '{server}' is not configured; add it to mcp.json first.")

    async def prepare(self) -> None:
        """Import the MCP SDK now (in a worker thread), ahead of the first connection: the window calls
        this when the user starts typing, so the first run's built-in servers do not wait for it."""
        await import_sdk()

    async def _ensure(self, server: str) -> ServerConnection:
        """The server's connection, created if needed, once it is ready or has failed. Creating it does
        not await (once the SDK is imported), so concurrent callers share one connection without a lock."""
        connection = self._connections.get(server)
        if connection is None:
            await import_sdk()
            connection = self._connections.get(server)  # made by another caller while the SDK loaded
        if connection is None:
            connection = self._new_connection(server)
            self._connections[server] = connection
            if connection.state == "failed":  # could not even be attempted: no task will report it
                self._on_connection_change(connection, "state")
        await connection.start()
        return connection

    def _new_connection(self, server: str) -> ServerConnection:
        from desktop_app.runtime.host.connection import ServerConnection
        from desktop_app.runtime.host.targets import http_target, stdio_parameters

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
        from desktop_app.runtime.host.connection import ServerConnection

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

    # -- status ---------------------------------------------------------------------------------

    def states(self) -> dict[str, ServerStatus]:
        """Status of every known server (external and built-in), by name."""
        names = sorted({*self._configs, *self._builtins})
        return {name: self._status(name) for name in names}

    def _status(self, server: str) -> ServerStatus:
        connection = self._connections.get(server)
        return server_status(
            server,
            builtin=server in self._builtins,
            connection=connection,
            config=self._configs.get(server),
            paused=self.paused,
            phase=self._supervisor.phase(server) if connection is not None else None,
            attempt=self._supervisor.attempt(server),
        )

    def stderr_tail(self, server: str) -> str:
        """The last (at most 256 KiB of) stderr output of a stdio server; empty if none."""
        self._require_known(server)
        connection = self._connections.get(server)
        return redact(connection.stderr_tail()) if connection is not None else ""


__all__ = ["RESERVED_PREFIX", "BuiltinFactory", "HostServers", "ServerState", "ServerStatus"]
