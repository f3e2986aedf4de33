"""The host served as MCP over streamable HTTP (nanobot §2.5): the agents' ``chat-with-<agent>`` tools for
other MCP clients (editors, CLIs, other Switchboards), with the mcp SDK's server support.

Each tool call arriving over HTTP is decided by the approval policy first (``always``, ``never``, or ``ask``
through the ``ask`` callback, which says no when there is no one to ask), then goes through ``Host.call``
(so hooks run) to the agent's in-process server, whose run is the agent's loop on the same Runtime, with the
agent's own tool approvals. Every request needs ``Authorization: Bearer <token>`` (else 401). The socket is
bound to 127.0.0.1 only (:func:`bind_loopback`); the SDK's DNS-rebinding guard answers localhost Hosts only.
"""

from __future__ import annotations

import hmac
import json
import socket
from collections.abc import Awaitable, Callable
from typing import Any

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ResourceError, ToolError
from mcp.server.subscriptions import InMemorySubscriptionBus, ResourceUpdated

from desktop_app import __version__
from desktop_app.runtime.agents.definitions import AgentCatalog
from desktop_app.runtime.agents.progress import ProgressTracker
from desktop_app.runtime.agents.scoped import TOOL_PREFIX, agent_server_name
from desktop_app.runtime.agents.server import AgentAttachment, requested_conversation
from desktop_app.runtime.approvals import ApprovalPolicy

LOOPBACK = "127.0.0.1"
MCP_PATH = "/mcp"
TOKEN_NAME = "serve-token"
"""The keyring entry (service ``switchboard``) that holds the bearer token of the served host."""

AskApproval = Callable[[str, dict[str, Any]], Awaitable[tuple[bool, str]]]
"""``(tool, arguments) -> (approved, reason)``: the ``ask`` policy's question to a person."""


def bind_loopback(port: int = 0) -> socket.socket:
    """A listening TCP socket on 127.0.0.1 (``port`` 0: a free one); never on another interface."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((LOOPBACK, port))
        sock.listen(128)
        sock.setblocking(False)
    except OSError:
        sock.close()
        raise
    return sock


async def decide(policy: ApprovalPolicy, ask: AskApproval | None, tool: str, arguments: dict[str, Any]) -> str | None:
    """``None`` when the call may go on, else the reason it was denied (the client reads it)."""
    if policy.mode == "always":
        return None
    if policy.mode == "never":
        return f"Switchboard denied '{tool}': switchboard serve runs with --approve never."
    if ask is None:
        return f"Switchboard denied '{tool}': nobody can approve it here (no terminal to ask on; --approve ask)."
    approved, reason = await ask(tool, arguments)
    return None if approved else f"Switchboard denied '{tool}': {reason or 'the user said no'}."


RESOURCE_BASE = "switchboard://conversations/{conversation_id}/"
HISTORY = "chat-history"
PROGRESS = "chat-progress"
PENDING = "pending-elicitation"


def resource_uri(conversation_id: str, what: str) -> str:
    """The URI of a conversation's ``chat-history``, ``chat-progress`` or ``pending-elicitation``."""
    return RESOURCE_BASE.format(conversation_id=conversation_id) + what


def make_http_host(
    host: Any,
    catalog: AgentCatalog,
    policy: ApprovalPolicy,
    ask: AskApproval | None = None,
    runtime: Any = None,
) -> MCPServer:
    """The served ``MCPServer``: one ``chat-with-<agent>`` tool per agent, each through ``host.call``; with
    ``runtime``, each conversation's ``chat-history``, ``chat-progress`` and ``pending-elicitation`` as
    resources, whose updates reach clients that listen to them (``subscriptions/listen``, 2026-07-28)."""
    bus = InMemorySubscriptionBus()
    server = MCPServer(
        "switchboard",
        version=__version__,
        log_level="WARNING",
        instructions="Switchboard's agents: call chat-with-<agent> with a prompt; it answers with its final reply.",
        subscriptions=bus,
    )
    if runtime is not None:
        _add_resources(server, runtime, bus)
    for name in catalog.names():
        definition = catalog.agents[name]
        tool = f"{TOOL_PREFIX}{name}"

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
                if runtime is not None:  # the client can follow this run from its first token
                    conversation = runtime.new_conversation(agent=name)
                    token = requested_conversation.set(conversation)
                    await ctx.report_progress(0, None, f"{PROGRESS}: {resource_uri(conversation, PROGRESS)}")
                try:
                    outcome = await host.call(agent_server_name(name), tool, arguments)
                finally:
                    if token is not None:
                        requested_conversation.reset(token)
                if outcome.is_error:
                    raise ToolError(outcome.text)
                return str(outcome.text)

            return chat

        server.add_tool(
            bind(),
            name=tool,
            description=f"Chat with the Switchboard agent '{name}': {definition.description or 'an agent'}.",
        )
    return server


def _add_resources(server: MCPServer, runtime: Any, bus: InMemorySubscriptionBus) -> None:
    import asyncio

    pending_publishes: set[asyncio.Task[None]] = set()

    def changed(conversation_id: str) -> None:
        for what in (PROGRESS, PENDING):
            task = asyncio.ensure_future(bus.publish(ResourceUpdated(uri=resource_uri(conversation_id, what))))
            pending_publishes.add(task)
            task.add_done_callback(pending_publishes.discard)

    tracker = ProgressTracker(changed)
    runtime.subscribe(tracker)

    def known(conversation_id: str) -> Any:
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


class BearerAuth:
    """ASGI middleware: every HTTP request needs ``Authorization: Bearer <token>``, else 401."""

    def __init__(self, app: Any, token: str) -> None:
        self.app = app
        self._expected = f"Bearer {token}".encode()

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            given = next((v for k, v in scope.get("headers", []) if k.lower() == b"authorization"), b"")
            if not hmac.compare_digest(given, self._expected):
                body = json.dumps(
                    {"error": "invalid_token", "error_description": "Switchboard needs its bearer token."}
                ).encode()
                await send(
                    {
                        "type": "http.response.start",
                        "status": 401,
                        "headers": [
                            (b"content-type", b"application/json"),
                            (b"www-authenticate", b'Bearer realm="switchboard", error="invalid_token"'),
                            (b"content-length", str(len(body)).encode()),
                        ],
                    }
                )
                await send({"type": "http.response.body", "body": body})
                return
        await self.app(scope, receive, send)


def http_app(server: MCPServer, token: str) -> Any:
    """The ASGI app: the SDK's streamable HTTP app at ``/mcp`` behind the bearer check."""
    app = server.streamable_http_app(streamable_http_path=MCP_PATH, host=LOOPBACK)
    return BearerAuth(app, token)
