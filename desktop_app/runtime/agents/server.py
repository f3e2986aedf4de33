"""Agents as lazy in-process MCP servers (nanobot §2.2): ``switchboard.agent.<name>`` with one tool,
``chat-with-<name>`` taking ``{prompt, attachments}``.

Calling the tool runs that agent's loop through the same ``Runtime`` in a child conversation (the agent's
instructions, provider, model, approval default, and a host restricted to its servers and tool allowlist, see
:mod:`.scoped`); the tool's result is the agent's final answer. ``SubagentStart`` (which may block) and
``SubagentStop`` hooks fire around it; ``SubagentStarted``/``SubagentFinished`` events on the parent's
tool call tie the child conversation to it. The chain of agents calling agents is a context variable: a
call deeper than ``max_depth`` or back into an agent already in the chain is refused with an error the
model reads. Approvals inside the child run are ordinary ``ApprovalRequired`` events (child conversation).
"""

from __future__ import annotations

import asyncio
import contextvars
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote, urlsplit

from pydantic import BaseModel, ConfigDict, Field

from desktop_app.runtime import events as ev
from desktop_app.runtime.agents.definitions import AgentCatalog
from desktop_app.runtime.agents.scoped import TOOL_PREFIX, agent_server_name

if TYPE_CHECKING:
    from mcp.server.mcpserver import MCPServer

    from desktop_app.runtime.service import Runtime

MAX_DEPTH = 3
AGENT_CALL_TIMEOUT = 24 * 3600.0
"""An agent's run may wait for the user's approvals: its tool call is not cut after the usual 60 s."""


def _tool_error(message: str) -> Exception:
    """The SDK's ``ToolError`` (a tool failure the model sees as an ``isError`` result). Imported here, not
    with the module: the runner exists from start-up, the SDK loads with the first server."""
    from mcp.server.mcpserver.exceptions import ToolError

    return ToolError(message)


agent_chain: contextvars.ContextVar[tuple[str, ...]] = contextvars.ContextVar("switchboard_agent_chain", default=())
"""The agents whose runs enclose the current code, outermost first (empty outside any agent call)."""

requested_conversation: contextvars.ContextVar[str | None] = contextvars.ContextVar(
    "switchboard_agent_conversation", default=None
)
"""A conversation made ready for the next ``chat-with-`` call (by the HTTP host, so that its client can follow
the run's ``chat-progress`` from the start); taken by that call only, never by the calls nested in it."""


class AgentAttachment(BaseModel):
    """An attachment as nanobot's ``ChatInputSchema`` has it: a URL (``file://`` or a local path here)."""

    model_config = ConfigDict(populate_by_name=True, defer_build=True)

    url: str
    name: str = ""
    mime_type: str = Field("", alias="mimeType")


def attachment_path(item: AgentAttachment | str) -> Path:
    """The local file an attachment names; anything but a file is refused with a sentence saying so."""
    url = item if isinstance(item, str) else item.url
    parts = urlsplit(url)
    if parts.scheme == "file":
        return Path(unquote(parts.path))
    if parts.scheme in ("", None) or (len(parts.scheme) == 1 and url[1:3] in (":\\", ":/")):  # C:\…
        return Path(url)
    raise _tool_error(f"Attachment {url!r} is not a local file; pass a file:// URL or a path to a file.")


class AgentRunner:
    """Runs ``chat-with-<agent>`` calls on ``runtime``."""

    def __init__(self, runtime: Runtime, catalog: AgentCatalog, *, max_depth: int = MAX_DEPTH) -> None:
        self.runtime = runtime
        self.catalog = catalog
        self.max_depth = max_depth

    def _caller_chain(self) -> tuple[str, ...]:
        chain = agent_chain.get()
        if chain:
            return chain
        from desktop_app.runtime.hooks.context import current_tool_call  # with the first agent call

        parent = current_tool_call.get()
        if parent is not None and parent.conversation_id:
            return (self.runtime.conversation_agent(parent.conversation_id),)
        return ()  # an MCP client of the served host: no agent of ours called it

    async def chat(self, agent: str, prompt: str, attachments: list[AgentAttachment | str]) -> str:
        # The hooks' context and payloads load with the first agent call, not with the agents' registration.
        from desktop_app.runtime.hooks.context import current_tool_call
        from desktop_app.runtime.hooks.model import subagent_start_payload, subagent_stop_payload

        definition = self.catalog.get(agent)
        if definition is None:
            raise _tool_error(f"There is no agent named {agent!r}.")
        chain = self._caller_chain()
        if agent in chain:
            path = " → ".join([*chain, agent])
            raise _tool_error(
                f"Agent cycle refused: {path}. '{agent}' is already working on this request higher up the chain; "
                "answer with what you have instead of calling it again."
            )
        if chain and not self.catalog.may_call(chain[-1], agent):
            raise _tool_error(f"Agent '{chain[-1]}' may not call agent '{agent}' (not in its 'agents' list).")
        depth = max(len(chain), 1)  # a direct client call is depth 1 too
        if depth > self.max_depth:
            raise _tool_error(
                f"Agent depth limit reached ({self.max_depth}): {' → '.join([*chain, agent])}. "
                "Answer with what you have instead of calling another agent."
            )
        if not prompt.strip():
            raise _tool_error(f"The prompt for agent '{agent}' is empty; say what it should do.")
        files = [attachment_path(item) for item in attachments]
        parent = current_tool_call.get()
        session = parent.conversation_id if parent is not None else ""
        model = definition.model or self.runtime.agent_provider(agent).model
        hooks = getattr(self.runtime.host, "hooks", None)
        if hooks is not None:
            start = await hooks.run(
                "SubagentStart",
                subagent_start_payload(session_id=session, cwd="", role=agent, model=model, prompt=prompt),
            )
            if start.blocked:
                outcome = start.blocking_outcome
                why = outcome.explanation() if outcome is not None else ""
                raise _tool_error(f"A SubagentStart hook blocked agent '{agent}': {why or 'no reason given'}.")
        child = self._take_conversation(agent)
        parent_run = self._parent_run(session)
        if parent is not None and parent_run is not None:
            self.runtime.notify(
                ev.SubagentStarted(
                    conversation_id=session,
                    run_id=parent_run,
                    tool_call_id=parent.tool_call_id,
                    agent=agent,
                    child_conversation_id=child,
                    depth=depth,
                    prompt=prompt,
                )
            )
        token = agent_chain.set((*chain, agent) if chain else (agent,))
        taken = requested_conversation.set(None)

        def finished(status: str, content: str = "") -> None:
            if parent is not None and parent_run is not None:
                self.runtime.notify(
                    ev.SubagentFinished(
                        conversation_id=session,
                        run_id=parent_run,
                        tool_call_id=parent.tool_call_id,
                        agent=agent,
                        child_conversation_id=child,
                        status=status,
                        content=content,
                    )
                )

        try:
            result = await self.runtime.run(child, prompt, attachments=files)
        except BaseException as exc:  # the parent's run was stopped (or the child's failed to start): say so
            finished("cancelled" if isinstance(exc, asyncio.CancelledError) else "failed")
            raise
        finally:
            requested_conversation.reset(taken)
            agent_chain.reset(token)
        finished(result.status, result.content)
        if hooks is not None:
            await hooks.run(
                "SubagentStop",
                subagent_stop_payload(session_id=session, cwd="", role=agent, model=model, summary=result.content),
            )
        if result.status != "finished":
            why = f": {result.error}" if result.error else ""
            raise _tool_error(f"Agent '{agent}' did not finish ({result.status}{why}). {result.content}".strip())
        return result.content or f"(agent '{agent}' finished without an answer)"

    def _take_conversation(self, agent: str) -> str:
        """The conversation prepared for this call (when it is ``agent``'s and idle), else a new one."""
        ready = requested_conversation.get()
        if ready is not None and self.runtime.conversation_agent(ready) == agent and not self.runtime.is_running(ready):
            return ready
        return self.runtime.new_conversation(agent=agent)

    def _parent_run(self, conversation_id: str) -> str | None:
        if not conversation_id:
            return None
        try:
            return self.runtime.conversation(conversation_id).active_run
        except Exception:  # the parent is not one of this runtime's conversations
            return None


def make_agent_server(runner: AgentRunner, agent: str) -> MCPServer:
    """A new ``switchboard.agent.<agent>`` server with its one tool."""
    definition = runner.catalog.get(agent)
    description = (definition.description if definition is not None else "") or "Chat with the agent"
    from desktop_app import __version__
    from desktop_app.runtime.in_process import in_process_server

    server = in_process_server(
        agent_server_name(agent), version=__version__, log_level="WARNING", instructions=description
    )

    @server.tool(
        name=f"{TOOL_PREFIX}{agent}",
        description=(
            f"Chat with the agent '{agent}': {description}. It works on the prompt with its own tools and "
            "answers with its final reply. attachments: local files (file:// URLs or paths)."
        ),
        structured_output=False,
    )
    async def chat(prompt: str, attachments: list[AgentAttachment | str] | None = None) -> str:
        return await runner.chat(agent, prompt, list(attachments or []))

    return server


def register_agents(host: Any, runner: AgentRunner, *, include_implicit_default: bool = False) -> list[str]:
    """Register the agents' servers (lazily) with ``host``; returns problems (a name already taken).

    The built-in default agent (no definition) is left out unless asked for: inside the app it is the
    conversation's own agent and nobody calls it, while ``switchboard serve`` offers it to its clients."""
    problems: list[str] = []
    for name in runner.catalog.names():
        if runner.catalog.unrestricted(name) and not include_implicit_default:
            continue
        try:
            host.register_builtin(
                agent_server_name(name),
                lambda name=name: make_agent_server(runner, name),
                call_timeout=AGENT_CALL_TIMEOUT,
            )
        except ValueError:
            problems.append(f"Agent '{name}' is left out: an MCP server named '{agent_server_name(name)}' exists.")
    return problems
