"""The host served as MCP over streamable HTTP (nanobot §2.5): the agents' ``chat-with-<agent>`` tools for
other MCP clients (editors, CLIs, other Switchboards), with the mcp SDK's server support.

Besides the agents, the tools of the user's MCP servers named in ``expose`` are offered under their
model-facing names (``mcp__<server>__<tool>``) and proxied through the same ``Host.call``.

Each tool call arriving over HTTP is decided by the approval policy first (``always``, ``never``, a read-only
tool the policy lets through, or ``ask`` through the ``ask`` callback, which says no when there is no one to
ask), then goes through ``Host.call`` (so hooks run) to the agent's in-process server, whose run is the
agent's loop on the same Runtime, with the agent's own tool approvals, or to the exposed server.
The agents' tools follow the catalog while the host runs (:meth:`ServedHost.sync_agents`, after
``reload_agents``): clients are told ``notifications/tools/list_changed`` (2025-11-25 sessions that listed
the tools, on their stream; 2026-07-28 clients through ``subscriptions/listen``), no restart.
Every request needs ``Authorization: Bearer <token>`` (else 401). The socket is
bound to 127.0.0.1 only; the SDK's DNS-rebinding guard answers localhost Hosts only (both in ``serve/http.py``).
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from typing import Any

from mcp import types as mtypes
from mcp.server.lowlevel import NotificationOptions
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ResourceError, ToolError
from mcp.server.subscriptions import InMemorySubscriptionBus, ResourceUpdated, ToolsListChanged
from mcp.shared.exceptions import MCPError
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS

from desktop_app import __version__
from desktop_app.runtime.agents.definitions import AgentCatalog
from desktop_app.runtime.agents.progress import ProgressTracker
from desktop_app.runtime.agents.scoped import TOOL_PREFIX, agent_server_name
from desktop_app.runtime.agents.server import AgentAttachment, requested_conversation
from desktop_app.runtime.run.approvals import ApprovalPolicy
from desktop_app.runtime.serve.clients import CallStatus, ClientLog, client_key, current_client, current_client_key

TOKEN_NAME = "serve-token"
"""The keyring entry (service ``switchboard``) that holds the bearer token of the served host."""

DENIED = "Switchboard denied"
AskApproval = Callable[[str, dict[str, Any]], Awaitable[tuple[bool, str]]]
"""``(tool, arguments) -> (approved, reason)``: the ``ask`` policy's question to a person."""


async def decide(
    policy: ApprovalPolicy, ask: AskApproval | None, tool: str, arguments: dict[str, Any], *, read_only: bool = False
) -> str | None:
    """``None`` when the call may go on, else the reason it was denied (the client reads it). A read-only
    tool goes on by itself when the policy auto-approves read-only tools."""
    if policy.mode == "always":
        return None
    if policy.mode == "never":
        return f"{DENIED} '{tool}': switchboard serve runs with --approve never."
    if read_only and policy.auto_approve_read_only:
        return None
    if ask is None:
        return f"{DENIED} '{tool}': nobody can approve it here (no terminal to ask on; --approve ask)."
    approved, reason = await ask(tool, arguments)
    return None if approved else f"{DENIED} '{tool}': {reason or 'the user said no'}."


RESOURCE_BASE = "switchboard://conversations/{conversation_id}/"
HISTORY = "chat-history"
PROGRESS = "chat-progress"
PENDING = "pending-elicitation"


def resource_uri(conversation_id: str, what: str) -> str:
    """The URI of a conversation's ``chat-history``, ``chat-progress`` or ``pending-elicitation``."""
    return RESOURCE_BASE.format(conversation_id=conversation_id) + what


class ServedHost(MCPServer):
    """``MCPServer`` with the exposed servers' tools listed and called next to the agents' own tools.

    ``close()`` stops following the runtime's events (the resources' tracker)."""

    def __init__(
        self, *args: Any, proxy: ExposedTools | None = None, clients: ClientLog | None = None, **kwargs: Any
    ) -> None:
        super().__init__(*args, **kwargs)
        self.proxy = proxy
        self.clients = clients
        self.legacy_subscriptions: Any = None
        self.conversations: dict[str, str] = {}
        """The conversations its agent calls run in, with the label of the client that asked."""
        self.owners: dict[str, str] = {}
        """The same conversations with the key of the client that asked: only it may read their resources."""
        self._closers: list[Callable[[], None]] = []
        self.catalog: AgentCatalog | None = None
        self.agent_tools: dict[str, str] = {}
        """The agents' tools as served: tool name -> description."""
        self.add_agent_tool: Callable[[str, str, str], None] = lambda _agent, _tool, _description: None
        self._listing: dict[Any, Any] = {}  # 2025-11-25 client connection -> a session to notify with
        lowlevel = self._lowlevel_server
        options = lowlevel.create_initialization_options

        def with_tools_changed(notification_options: Any = None, *args: Any, **kwargs: Any) -> Any:
            return options(notification_options or NotificationOptions(tools_changed=True), *args, **kwargs)

        lowlevel.create_initialization_options = with_tools_changed  # type: ignore[method-assign]

    def sync_agents(self) -> bool:
        """Serve the catalog's agents as they are now (added, removed, description changed); whether the
        tool list changed."""
        if self.catalog is None:
            return False
        wanted = {}
        for name in self.catalog.names():
            definition = self.catalog.agents[name]
            description = f"Chat with the Switchboard agent '{name}': {definition.description or 'an agent'}."
            wanted[f"{TOOL_PREFIX}{name}"] = (name, description)
        changed = False
        for tool, description in list(self.agent_tools.items()):
            if wanted.get(tool, ("", ""))[1] != description:
                self.remove_tool(tool)
                del self.agent_tools[tool]
                changed = True
        for tool, (name, description) in wanted.items():
            if tool not in self.agent_tools:
                self.add_agent_tool(name, tool, description)
                self.agent_tools[tool] = description
                changed = True
        return changed

    async def tools_changed(self) -> None:
        """``notifications/tools/list_changed`` to every client that can hear it (a gone one is dropped)."""
        await self._subscriptions.publish(ToolsListChanged())
        for key, session in list(self._listing.items()):
            try:
                await session.send_tool_list_changed()
            except Exception:  # the client went away
                self._listing.pop(key, None)

    def close(self) -> None:
        for closer in self._closers:
            closer()
        self._closers.clear()

    async def _handle_list_tools(self, ctx: Any, params: Any) -> mtypes.ListToolsResult:
        session = getattr(ctx, "session", None)
        if session is not None and getattr(session, "protocol_version", "") in HANDSHAKE_PROTOCOL_VERSIONS:
            from desktop_app.runtime.serve.subscriptions import connection_of

            self._listing[connection_of(session)] = session  # told when the list changes
        result = await super()._handle_list_tools(ctx, params)
        if self.proxy is not None:
            result.tools.extend(self.proxy.listed())
        return result

    def _tool_input_schema(self, name: str) -> dict[str, Any] | None:
        if self.proxy is not None:
            found = self.proxy.find(name)
            if found is not None:
                return dict(found.input_schema)
        return super()._tool_input_schema(name)

    async def _handle_call_tool(self, ctx: Any, params: mtypes.CallToolRequestParams) -> Any:
        key, label = client_key(ctx)
        call = self.clients.call_started(key, label, params.name) if self.clients is not None else None
        token, key_token = current_client.set(label), current_client_key.set(key)
        try:
            result = await self._call_tool(ctx, params)
        except BaseException as exc:
            if call is not None and self.clients is not None:
                cancelled = not isinstance(exc, Exception)
                self.clients.call_finished(call, "cancelled" if cancelled else "error", str(exc))
            raise
        finally:
            current_client.reset(token)
            current_client_key.reset(key_token)
        if call is not None and self.clients is not None:
            self.clients.call_finished(call, *_status(result))
        return result

    async def _handle_read_resource(self, ctx: Any, params: Any) -> Any:
        """A resource read knows its client (its key), so a conversation's resources answer only their owner."""
        key, label = client_key(ctx)
        token, key_token = current_client.set(label), current_client_key.set(key)
        try:
            return await super()._handle_read_resource(ctx, params)
        finally:
            current_client.reset(token)
            current_client_key.reset(key_token)

    async def _handle_get_prompt(self, ctx: Any, params: mtypes.GetPromptRequestParams) -> Any:
        if self._prompt_manager.get_prompt(params.name) is None:  # the SDK says "Internal error" on 2026-07-28
            raise MCPError(mtypes.INVALID_PARAMS, f"Unknown prompt: {params.name}")
        return await super()._handle_get_prompt(ctx, params)

    async def _call_tool(self, ctx: Any, params: mtypes.CallToolRequestParams) -> Any:
        if self.proxy is not None:
            found = self.proxy.find(params.name)
            if found is not None:
                return await self.proxy.call(found, dict(params.arguments or {}))
        return await super()._handle_call_tool(ctx, params)


def _status(result: Any) -> tuple[CallStatus, str]:
    if not getattr(result, "is_error", False):
        return "ok", ""
    text = next((b.text for b in getattr(result, "content", []) if isinstance(b, mtypes.TextContent)), "")
    return ("denied" if DENIED in text else "error"), text


class ExposedTools:
    """The tools of the servers the user chose to expose, from ``host.tools()`` (connected servers only),
    each called through ``host.call`` after the approval decision."""

    def __init__(self, host: Any, servers: list[str], policy: ApprovalPolicy, ask: AskApproval | None) -> None:
        self.host = host
        self.servers = list(servers)
        self.policy = policy
        self.ask = ask

    def tools(self) -> list[Any]:
        is_builtin = getattr(self.host, "is_builtin", lambda _s: False)
        return [
            t
            for t in self.host.tools()
            if t.server in self.servers and not is_builtin(t.server) and not getattr(t, "excluded", False)
        ]

    def listed(self) -> list[mtypes.Tool]:
        return [
            mtypes.Tool(
                name=t.name,
                description=f"{t.description} (MCP server '{t.server}', through Switchboard)".strip(),
                input_schema=t.input_schema or {"type": "object"},
                annotations=mtypes.ToolAnnotations(read_only_hint=True) if t.read_only else None,
            )
            for t in self.tools()
        ]

    def find(self, name: str) -> Any:
        return next((t for t in self.tools() if t.name == name), None)

    async def call(self, tool: Any, arguments: dict[str, Any]) -> mtypes.CallToolResult:
        denied = await decide(self.policy, self.ask, tool.name, arguments, read_only=tool.read_only)
        if denied is not None:
            return mtypes.CallToolResult(content=[mtypes.TextContent(type="text", text=denied)], is_error=True)
        outcome = await self.host.call(tool.server, tool.tool, arguments)
        content = outcome.content or [{"type": "text", "text": outcome.text}]
        try:
            return mtypes.CallToolResult.model_validate(
                {"content": content, "isError": outcome.is_error, "structuredContent": outcome.structured}
            )
        except ValueError:  # a block this SDK cannot re-send: the text the model would read
            return mtypes.CallToolResult(
                content=[mtypes.TextContent(type="text", text=outcome.text)], is_error=outcome.is_error
            )


def make_http_host(
    host: Any,
    catalog: AgentCatalog,
    policy: ApprovalPolicy,
    ask: AskApproval | None = None,
    runtime: Any = None,
    expose: list[str] | None = None,
    clients: ClientLog | None = None,
) -> ServedHost:
    """The served ``MCPServer``: one ``chat-with-<agent>`` tool per agent, each through ``host.call``; with
    ``runtime``, each conversation's ``chat-history``, ``chat-progress`` and ``pending-elicitation`` as
    resources, whose updates reach clients that listen to them (``subscriptions/listen``, 2026-07-28, or
    ``resources/subscribe``, 2025-11-25); with ``expose``, those servers' tools too."""
    bus = InMemorySubscriptionBus()
    server = ServedHost(
        "switchboard",
        version=__version__,
        log_level="WARNING",
        instructions="Switchboard's agents: call chat-with-<agent> with a prompt; it answers with its final reply.",
        subscriptions=bus,
        proxy=ExposedTools(host, expose, policy, ask) if expose else None,
        clients=clients,
    )
    if runtime is not None:
        _add_resources(server, runtime, bus)
        _follow_subagents(server, runtime)
    from desktop_app.runtime.serve.log_level import SessionLogLevels

    levels = SessionLogLevels(server)

    def add_agent_tool(name: str, tool: str, description: str) -> None:
        def bind(name: str = name, tool: str = tool) -> Callable[..., Awaitable[str]]:
            async def chat(prompt: str, ctx: Context, attachments: list[AgentAttachment | str] | None = None) -> str:
                arguments: dict[str, Any] = {"prompt": prompt}
                if attachments:
                    arguments["attachments"] = [
                        a if isinstance(a, str) else a.model_dump(by_alias=True, exclude_defaults=True)
                        for a in attachments
                    ]
                denied = await decide(policy, ask, tool, arguments)
                if denied is not None:
                    raise ToolError(denied)
                token = None
                stop_logging: Callable[[], None] = lambda: None  # noqa: E731
                if runtime is not None:  # the client can follow this run from its first token
                    conversation = runtime.new_conversation(agent=name)
                    server.conversations[conversation] = current_client.get()
                    server.owners[conversation] = current_client_key.get() or current_client.get()
                    token = requested_conversation.set(conversation)
                    stop_logging = levels.follow(runtime, conversation, name, ctx.request_context)
                    await ctx.report_progress(0, None, f"{PROGRESS}: {resource_uri(conversation, PROGRESS)}")
                try:
                    outcome = await host.call(agent_server_name(name), tool, arguments)
                finally:
                    stop_logging()
                    if token is not None:
                        requested_conversation.reset(token)
                if outcome.is_error:
                    raise ToolError(outcome.text)
                return str(outcome.text)

            return chat

        server.add_tool(bind(), name=tool, description=description)

    server.catalog, server.add_agent_tool = catalog, add_agent_tool
    server.sync_agents()
    return server


def _follow_subagents(server: ServedHost, runtime: Any) -> None:
    """A sub-agent's conversation (at any depth) belongs to the client whose call started the run, so its
    approvals reach the user too (:meth:`HttpHostService.served_conversation`)."""
    from desktop_app.runtime import events as ev

    def on_event(event: Any) -> None:
        if isinstance(event, ev.SubagentStarted) and event.conversation_id in server.conversations:
            server.conversations[event.child_conversation_id] = server.conversations[event.conversation_id]
            if event.conversation_id in server.owners:
                server.owners[event.child_conversation_id] = server.owners[event.conversation_id]

    unsubscribe = runtime.subscribe(on_event)
    if callable(unsubscribe):
        server._closers.append(unsubscribe)


def _add_resources(server: ServedHost, runtime: Any, bus: InMemorySubscriptionBus) -> None:
    import asyncio

    from desktop_app.runtime.serve.subscriptions import LegacySubscriptions

    pending_publishes: set[asyncio.Task[None]] = set()
    legacy = server.legacy_subscriptions = LegacySubscriptions(server)

    def changed(conversation_id: str) -> None:
        for what in (PROGRESS, PENDING):
            uri = resource_uri(conversation_id, what)
            for publish in (bus.publish(ResourceUpdated(uri=uri)), legacy.updated(uri)):
                task = asyncio.ensure_future(publish)
                pending_publishes.add(task)
                task.add_done_callback(pending_publishes.discard)

    tracker = ProgressTracker(changed)
    unsubscribe = runtime.subscribe(tracker)
    if callable(unsubscribe):
        server._closers.append(unsubscribe)

    def known(conversation_id: str) -> Any:
        asker = current_client_key.get() or current_client.get()
        if server.owners.get(conversation_id) != asker:  # another client's, or never served: as if unknown
            raise ResourceError(f"There is no conversation {conversation_id!r} in this Switchboard.")
        try:
            return runtime.conversation(conversation_id)
        except Exception as exc:
            raise ResourceError(f"There is no conversation {conversation_id!r} in this Switchboard.") from exc

    @server.resource(RESOURCE_BASE + HISTORY, mime_type="application/json", description="The conversation's messages")
    def chat_history(conversation_id: str) -> str:
        conversation = known(conversation_id)
        messages = [m.model_dump(mode="json") for m in conversation.messages]
        return json.dumps({"conversation_id": conversation_id, "messages": messages}, ensure_ascii=False)

    @server.resource(
        RESOURCE_BASE + PROGRESS, mime_type="application/json", description="The current run: status, answer so far"
    )
    def chat_progress(conversation_id: str) -> str:
        known(conversation_id)
        return json.dumps(tracker.progress(conversation_id), ensure_ascii=False)

    @server.resource(
        RESOURCE_BASE + PENDING, mime_type="application/json", description="The approvals the conversation waits for"
    )
    def pending_elicitation(conversation_id: str) -> str:
        known(conversation_id)
        return json.dumps(tracker.pending(conversation_id), ensure_ascii=False)
