"""The MCP host: every configured and built-in server behind one name table and one call path.

:class:`Host` owns a few collaborators, each owning its state:

* ``registry`` (:mod:`.registry`, :class:`ServerRegistry`): the servers by name, their configs, factories
  and connections (plain data the others share);
* ``servers`` (:mod:`.servers`, :class:`HostServers`): starting, re-configuring, pausing and restarting
  servers, and their status;
* ``tool_table`` (:mod:`.tool_table`, :class:`ToolTable`): the model-facing tool names (Whale's
  ``mcp__<server>__<tool>`` for external tools, bare names for built-in ones) and lookups;
* ``features`` (:mod:`.host_features`, :class:`HostFeatures`): resources, prompts, roots, logs, server
  requests.

This module owns the host's hooks and :meth:`Host.call`, the one call path, which never raises for a tool
failure: every problem comes back as an error :class:`CallOutcome` whose text says what happened and what
to do. The other public methods are thin delegations to the collaborators.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from desktop_app.runtime.credentials import Credentials
from desktop_app.runtime.errors import ServerRequestError
from desktop_app.runtime.host.client_features import ClientFeatures, ProgressCallback
from desktop_app.runtime.host.config import DEFAULT_TIMEOUT
from desktop_app.runtime.host.host_features import HostFeatures
from desktop_app.runtime.host.lifecycle import DEFAULT_MAX_RESTARTS, HostListener, Sleep
from desktop_app.runtime.host.outcomes import DEFAULT_MAX_OUTPUT_CHARS, CallOutcome, error_outcome, truncate_outcome
from desktop_app.runtime.host.registry import ServerRegistry
from desktop_app.runtime.host.requests import ElicitationAction, RequestKind
from desktop_app.runtime.host.servers import BuiltinFactory, HostServers, ServerState, ServerStatus
from desktop_app.runtime.host.tool_table import HostTool, ToolTable, normalize_schema, tool_spec
from desktop_app.runtime.host_events import ServerLog
from desktop_app.runtime.messages import ToolSpec
from desktop_app.runtime.sdk_types import mtypes

if TYPE_CHECKING:
    from collections.abc import Mapping

    from desktop_app.runtime.hooks.runner import HookRunner
    from desktop_app.runtime.host.config import ServerConfig
    from desktop_app.runtime.host.connection import ServerConnection
    from desktop_app.runtime.host.resources import PromptText, ResourceRead
    from desktop_app.runtime.host.targets import stdio_parameters


class Host:
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
        self.registry = ServerRegistry()
        self.servers = HostServers(
            self.registry,
            servers or {},
            call_timeout=call_timeout,
            startup_timeout=startup_timeout,
            credentials=credentials,
            transport_cache=transport_cache,
            sleep=sleep,
            max_restarts=max_restarts,
        )
        self.tool_table = ToolTable(self.registry, lambda name: self.servers.supervisor.active(name))
        self.features = HostFeatures(self.servers.client_features, self._connection_for, self.registry.live_connections)
        self.max_output_chars = max_output_chars
        self._hooks: HookRunner | None = None
        self._hooks_later: Callable[[], HookRunner] | None = None

    @property
    def hooks(self) -> HookRunner | None:
        """Lifecycle and MCP message hooks applied inside :meth:`call` (see :meth:`set_hooks`). A runner left to
        :meth:`set_hooks_later` is built here, when something first asks for it."""
        if self._hooks_later is not None:
            build, self._hooks_later = self._hooks_later, None
            self.set_hooks(build())
        return self._hooks

    @hooks.setter
    def hooks(self, runner: HookRunner | None) -> None:
        """The runner as it is, not bound to the raw call path (:meth:`set_hooks` binds it)."""
        self._hooks, self._hooks_later = runner, None

    def set_hooks(self, runner: HookRunner | None) -> None:
        """Apply ``runner``'s hooks to every :meth:`call`; its ``mcp`` and message hooks call tools through
        the raw path (hooks do not hook hooks)."""
        self._hooks_later = None
        self._hooks = runner
        if runner is not None:
            runner.bind(self._raw_hook_call)

    def set_hooks_later(self, build: Callable[[], HookRunner]) -> None:
        """The hooks' runner, built by ``build`` on first use (the first run, tool call or Hooks page) rather
        than now: the app's start-up does not read hook files or load the hooks' modules before it is ready."""
        self._hooks, self._hooks_later = None, build

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
                    self.hooks, self._call, server, tool, self.tool_table.model_name(server, tool), arguments, progress
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
        if server not in self.registry.builtins and server not in self.registry.configs:
            return error_outcome(
                f"MCP server '{server}' is not configured. Add it to mcp.json, or use one of the tools that are listed."
            )
        config = self.registry.configs.get(server)
        if config is not None and config.disabled:
            return error_outcome(f"MCP server '{server}' is disabled in mcp.json. Enable it to use its tools.")
        if config is not None and self.servers.paused:
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
        if self.servers.supervisor.active(server) and not self.registry.is_ready(server):
            # Crashed and restarting: wait for the restart (bounded by the call timeout), then call.
            await self.servers.supervisor.wait_attempt(
                server, (config.timeout if config else None) or self.servers.call_timeout
            )
        connection = await self.servers.connect(server)
        if connection.state == "ready" and all(t.name != tool for t in connection.tools):
            return error_outcome(
                f"Tool '{tool}' was not found on MCP server '{server}'. Use one of the tools that are listed."
            )
        if connection.state == "failed" and server in self.registry.last_tools:  # it was up: it crashed since
            phase = self.servers.supervisor.phase(server)
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

    async def _connection_for(self, server: str) -> ServerConnection:
        self.registry.require_known(server)
        config = self.registry.configs.get(server)
        if config is not None and config.disabled:
            raise ServerRequestError(f"MCP server '{server}' is disabled in mcp.json. Enable it first.")
        if config is not None and self.servers.paused:
            raise ServerRequestError(f"MCP server '{server}' is paused. Resume the servers (tray menu) first.")
        return await self.servers.connect(server)

    # -- servers (HostServers) ------------------------------------------------------------------

    @property
    def refused(self) -> dict[str, str]:
        """User servers that were not taken, with why (a ``switchboard.*`` name belongs to the built-ins)."""
        return self.servers.refused

    @property
    def paused(self) -> bool:
        return self.servers.paused

    @property
    def call_timeout(self) -> float:
        return self.servers.call_timeout

    @property
    def startup_timeout(self) -> float:
        return self.servers.startup_timeout

    @property
    def client_features(self) -> ClientFeatures:
        """The client side offered to servers (sampling, elicitation, roots, logs); the runtime wires it."""
        return self.servers.client_features

    @property
    def _connections(self) -> dict[str, ServerConnection]:  # tests put a connection in place
        return self.registry.connections

    def register_builtin(self, name: str, factory: BuiltinFactory, *, call_timeout: float | None = None) -> None:
        self.servers.register_builtin(name, factory, call_timeout=call_timeout)

    async def unregister_builtin(self, name: str) -> None:
        await self.servers.unregister_builtin(name)

    def add_in_process(self, name: str, factory: BuiltinFactory, config: ServerConfig | None = None) -> None:
        self.servers.add_in_process(name, factory, config)

    async def start(self) -> None:
        await self.servers.start()

    def subscribe(self, listener: HostListener) -> Callable[[], None]:
        return self.servers.subscribe(listener)

    async def ensure_connected(self, server: str) -> ServerStatus:
        return await self.servers.ensure_connected(server)

    async def ensure_builtins(self) -> None:
        await self.servers.ensure_builtins()

    async def apply_servers(self, servers: Mapping[str, ServerConfig], *, remove_missing: bool = False) -> list[str]:
        return await self.servers.apply_servers(servers, remove_missing=remove_missing)

    async def remove_server(self, server: str) -> None:
        await self.servers.remove_server(server)

    async def restart(self, server: str) -> ServerStatus:
        return await self.servers.restart(server)

    async def pause(self) -> list[str]:
        return await self.servers.pause()

    async def resume(self) -> None:
        await self.servers.resume()

    async def aclose(self) -> None:
        await self.servers.aclose()

    async def prepare(self) -> None:
        await self.servers.prepare()

    def states(self) -> dict[str, ServerStatus]:
        return self.servers.states()

    def stderr_tail(self, server: str) -> str:
        return self.servers.stderr_tail(server)

    # -- tools (ToolTable) ----------------------------------------------------------------------

    def set_tool_preferences(self, server: str, *, pinned: bool | list[str], excluded_tools: list[str]) -> None:
        self.tool_table.set_tool_preferences(server, pinned=pinned, excluded_tools=excluded_tools)

    def config(self, server: str) -> ServerConfig | None:
        return self.tool_table.config(server)

    def is_builtin(self, server: str) -> bool:
        return self.registry.is_builtin(server)

    def server_identity(self, server: str) -> str | None:
        return self.tool_table.server_identity(server)

    def tools(self, *, include_excluded: bool = False, include_app_only: bool = False) -> list[HostTool]:
        return self.tool_table.tools(include_excluded=include_excluded, include_app_only=include_app_only)

    def tool_specs(self) -> list[ToolSpec]:
        return self.tool_table.tool_specs()

    def lookup(self, model_name: str) -> HostTool | None:
        return self.tool_table.lookup(model_name)

    # -- resources, prompts, roots, logs, server requests (HostFeatures) ------------------------

    def server_log(self, server: str) -> list[ServerLog]:
        return self.features.server_log(server)

    def roots(self) -> list[Path]:
        return self.features.roots()

    async def set_roots(self, paths: Iterable[Path | str]) -> None:
        await self.features.set_roots(paths)

    def pending_requests(self, kind: RequestKind | None = None) -> list[str]:
        return self.features.pending_requests(kind)

    def answer_sampling(self, request_id: str, approved: bool, reason: str | None = None) -> None:
        self.features.answer_sampling(request_id, approved, reason)

    def answer_elicitation(
        self, request_id: str, action: ElicitationAction, content: dict[str, Any] | None = None
    ) -> None:
        self.features.answer_elicitation(request_id, action, content)

    async def list_resources(self, server: str) -> list[mtypes.Resource]:
        return await self.features.list_resources(server)

    async def list_resource_templates(self, server: str) -> list[mtypes.ResourceTemplate]:
        return await self.features.list_resource_templates(server)

    async def read_resource(self, server: str, uri: str) -> ResourceRead:
        return await self.features.read_resource(server, uri)

    async def read_resource_json(self, server: str, uri: str) -> dict[str, Any]:
        return await self.features.read_resource_json(server, uri)

    async def subscribe_resource(self, server: str, uri: str) -> None:
        await self.features.subscribe_resource(server, uri)

    async def unsubscribe_resource(self, server: str, uri: str) -> None:
        await self.features.unsubscribe_resource(server, uri)

    async def list_prompts(self, server: str) -> list[mtypes.Prompt]:
        return await self.features.list_prompts(server)

    async def get_prompt(self, server: str, name: str, arguments: dict[str, str] | None = None) -> PromptText:
        return await self.features.get_prompt(server, name, arguments)


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
