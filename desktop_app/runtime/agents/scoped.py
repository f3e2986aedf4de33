"""The host as one agent's run sees it: only its servers, its allowlisted tools and the agents it may call.

Wrapped around the run loop's ``ToolHost``. A tool outside the scope is neither listed to the model nor
found by name, and a direct ``call`` to it is refused with an error result, so an agent cannot reach it even
by naming it. For the unrestricted default agent only the agent tools are filtered (it may not call itself).
"""

from __future__ import annotations

from typing import Any

from desktop_app.runtime.agents.definitions import AgentCatalog, tool_allowed
from desktop_app.runtime.conversation import ProgressCallback, ToolHost, ToolOutcome, ToolTarget
from desktop_app.runtime.host.outcomes import error_outcome
from desktop_app.runtime.messages import ToolSpec

AGENT_SERVER_PREFIX = "switchboard.agent."
TOOL_PREFIX = "chat-with-"


def agent_server_name(agent: str) -> str:
    return f"{AGENT_SERVER_PREFIX}{agent}"


def agent_of_server(server: str) -> str | None:
    """The agent a ``switchboard.agent.<name>`` server serves, else ``None``."""
    return server[len(AGENT_SERVER_PREFIX) :] if server.startswith(AGENT_SERVER_PREFIX) else None


class ScopedToolHost:
    """``inner`` restricted to what ``agent`` may use."""

    def __init__(self, inner: ToolHost, catalog: AgentCatalog, agent: str) -> None:
        self._inner = inner
        self._catalog = catalog
        self.agent = agent

    def allows(self, server: str, tool: str, model_name: str) -> bool:
        callee = agent_of_server(server)
        if callee is not None:
            return self._catalog.may_call(self.agent, callee)
        if self._catalog.unrestricted(self.agent):
            return True
        definition = self._catalog.get(self.agent)
        return definition is not None and tool_allowed(definition, server, tool, model_name)

    def tool_specs(self) -> list[ToolSpec]:
        specs = self._inner.tool_specs()
        if self._catalog.unrestricted(self.agent):  # only agent tools (bare chat-with-* names) can be filtered
            return [s for s in specs if not s.name.startswith(TOOL_PREFIX) or self._listed(s.name)]
        kept = []
        for spec in specs:
            target = self._inner.lookup(spec.name)
            if target is None or self.allows(target.server, target.tool, spec.name):
                kept.append(spec)  # a spec without a target (tool_search) belongs to the inner view
        return kept

    def _listed(self, model_name: str) -> bool:
        target = self._inner.lookup(model_name)
        return target is None or self.allows(target.server, target.tool, model_name)

    def lookup(self, model_name: str) -> ToolTarget | None:
        target = self._inner.lookup(model_name)
        if target is None or not self.allows(target.server, target.tool, model_name):
            return None
        return target

    async def call(
        self, server: str, tool: str, arguments: dict[str, Any], *, progress: ProgressCallback | None = None
    ) -> ToolOutcome:
        if not self.allows(server, tool, tool):
            return error_outcome(
                f"Agent '{self.agent}' may not use '{tool}' of MCP server '{server}': it is outside the agent's "
                "servers and tool allowlist. Use one of the tools that are listed."
            )
        return await self._inner.call(server, tool, arguments, progress=progress)

    def system_note(self) -> str:
        note = getattr(self._inner, "system_note", None)
        return str(note() or "") if note is not None and self._catalog.unrestricted(self.agent) else ""

    def server_identity(self, server: str) -> str | None:
        """The inner host's identity of ``server``: a sub-agent's grants are checked like any run's."""
        return self._inner.server_identity(server)

    def __getattr__(self, name: str) -> Any:  # the inner host's other attributes
        return getattr(self._inner, name)
