"""What a conversation's run sees: its agent, its provider, its approval policy and its tools.

:class:`Routing` (a collaborator of the :class:`~desktop_app.runtime.service.Runtime` facade) picks, per
conversation, the agent (see :mod:`.agents`), the provider and model (the conversation's own, else its
agent's, else the default), the approval policy (the agent can only make it stricter), the tool host
(scoped to the agent, through the deferred-tool view of :mod:`.deferral`), and the context budget of
the next request.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING

from desktop_app.runtime import events as ev
from desktop_app.runtime.conversation import ToolHost, wire_messages
from desktop_app.runtime.errors import ConversationBusyError, RunError
from desktop_app.runtime.messages import SystemMessage
from desktop_app.runtime.run.approvals import ApprovalPolicy
from desktop_app.runtime.service.conversations import ConversationTable
from desktop_app.runtime.service.settings_control import SettingsControl
from desktop_app.runtime.settings import ProviderSettings, infer_dialect

if TYPE_CHECKING:
    from desktop_app.runtime.agents.definitions import AgentCatalog
    from desktop_app.runtime.compaction.budget import ContextBudget
    from desktop_app.runtime.tools.deferral import ToolDeferral


class Routing:
    """Per-conversation agent, provider, policy, tool host and context budget."""

    def __init__(
        self,
        *,
        settings: SettingsControl,
        conversations: ConversationTable,
        host: ToolHost,
        publish: Callable[[ev.Event], None],
    ) -> None:
        from desktop_app.runtime.compaction.windows import ModelWindows

        self._settings = settings
        self._conversations = conversations
        self._host = host
        self._publish = publish
        self._deferral: ToolDeferral | None = None
        self._agents: AgentCatalog | None = None
        self._conversation_agents: dict[str, str] = {}
        self.windows = ModelWindows()
        """Context windows: the presets', else what the endpoints' model lists say (learned before a first run)."""

    # -- deferred tools --------------------------------------------------------------------------------

    @property
    def deferral(self) -> ToolDeferral | None:
        """The deferred tool catalog and per-conversation promotions (``None``: every tool is always sent)."""
        return self._deferral

    def attach_deferral(self, deferral: ToolDeferral) -> None:
        """Send runs' tools through ``deferral`` (built over this runtime's host and settings)."""
        self._deferral = deferral

    def run_host(self, conversation_id: str, run_id: str) -> ToolHost:
        """The host a run sees, restricted to the conversation's agent (see :mod:`.agents`)."""
        if self._agents is None:
            return self._unscoped_run_host(conversation_id, run_id)
        from desktop_app.runtime.agents.scoped import ScopedToolHost

        agent = self.conversation_agent(conversation_id)
        # A restricted agent sees the host itself (tool_search would offer tools outside its scope).
        inner = self._unscoped_run_host(conversation_id, run_id) if self._agents.unrestricted(agent) else self._host
        return ScopedToolHost(inner, self._agents, agent)

    def _unscoped_run_host(self, conversation_id: str, run_id: str) -> ToolHost:
        """The conversation's deferred-tool view (emitting ``ToolsPromoted``), or the host."""
        if self._deferral is None:
            return self._host
        view = self._deferral.view(conversation_id)

        def promoted(names: list[str], reason: ev.PromotionReason, catalog_hash: str) -> None:
            self._publish(
                ev.ToolsPromoted(
                    conversation_id=conversation_id,
                    run_id=run_id,
                    tools=names,
                    reason=reason,
                    catalog_hash=catalog_hash,
                )
            )

        view.listener = promoted
        return view

    # -- per-conversation providers ----------------------------------------------------------------------

    def conversation_provider(self, conversation_id: str) -> ProviderSettings:
        """The provider a conversation talks to: the one it remembers, else its agent's, else the default."""
        conv = self._conversations.get(conversation_id)
        if conv is not None and conv.provider is not None:
            return conv.provider
        if self._agents is not None:
            return self.agent_provider(self.conversation_agent(conversation_id))
        return self._settings.settings.provider

    # -- agents ------------------------------------------------------------------------------------------

    @property
    def agents(self) -> AgentCatalog | None:
        """The agents (``None``: no agents attached; every run sees the whole host)."""
        return self._agents

    def attach_agents(self, catalog: AgentCatalog) -> None:
        self._agents = catalog

    def agent_for_new(self, agent: str | None) -> str | None:
        """The agent a new conversation talks to: ``agent``, else a defined default agent (its instructions,
        not the settings' prompt), else none (the built-in default)."""
        catalog = self._agents
        if agent is None and catalog is not None and not catalog.unrestricted(catalog.default):
            return catalog.default
        return agent

    def conversation_agent(self, conversation_id: str) -> str:
        """The agent a conversation talks to (the default agent unless the user picked another)."""
        default = self._agents.default if self._agents is not None else ""
        return self._conversation_agents.get(conversation_id, default)

    def set_conversation_agent(self, conversation_id: str, agent: str) -> None:
        """Make the conversation talk to ``agent`` from its next run; a conversation with no messages yet takes
        the agent's instructions as its system prompt."""
        if self._agents is None or self._agents.get(agent) is None:
            raise RunError(f"There is no agent named {agent!r}.")
        conv = self._conversations.get(conversation_id)  # a stored one not loaded yet takes it when it loads
        if conv is not None and conv.active_run is not None:
            raise ConversationBusyError("Stop the run first: a conversation's agent cannot change while it runs.")
        self._conversation_agents[conversation_id] = agent
        if conv is not None:  # its next run starts from the agent's instructions (also a lazily loaded history)
            from desktop_app.runtime.agents.definitions import with_instructions

            text = self.agent_instructions(agent)
            conv.map_messages(lambda messages: with_instructions(messages, text))

    def agent_instructions(self, agent: str) -> str:
        """The system prompt of ``agent``'s conversations: its instructions; for the built-in default agent, the
        settings' system prompt and the system blocks (the skills index), as a new conversation has them."""
        if self._agents is None or self._agents.unrestricted(agent) or self._agents.get(agent) is None:
            return self._conversations.default_system_prompt()
        return self._agents.agents[agent].instructions

    def conversation_system_prompt(self, conversation_id: str) -> str:
        """The system prompt a stored conversation goes on with (the store keeps none): its agent's, built as
        ``new_conversation`` built it (the settings' prompt and the skills index for the built-in default
        agent), so a conversation continued in another process or reopened sends the same bytes."""
        return self.agent_instructions(self.conversation_agent(conversation_id))

    def agent_provider(self, agent: str) -> ProviderSettings:
        """The provider and model ``agent`` runs on (its own, else the default provider with its model)."""
        definition = self._agents.get(agent) if self._agents is not None else None
        if definition is None:
            return self._settings.settings.provider
        provider = definition.provider or self._settings.settings.provider
        return provider.model_copy(update={"model": definition.model}) if definition.model else provider

    def run_policy(self, conversation_id: str) -> ApprovalPolicy:
        """The app's approval policy, made stricter by the agent's own default (never looser)."""
        definition = self._agents.get(self.conversation_agent(conversation_id)) if self._agents is not None else None
        if definition is None or definition.approval is None:
            return self._settings.policy
        strictness = {"always": 0, "ask": 1, "never": 2}
        if strictness[definition.approval] <= strictness[self._settings.policy.mode]:
            return self._settings.policy
        return replace(self._settings.policy, mode=definition.approval)

    def set_conversation_provider(self, conversation_id: str, settings: ProviderSettings | None) -> None:
        """Make a conversation keep ``settings`` (``None``: follow the default provider)."""
        self._conversations.conversation(conversation_id).provider = settings

    def stored_provider(self, base_url: str, model: str) -> ProviderSettings:
        """Provider settings for a conversation stored with ``base_url`` and ``model``: the default's
        options when it is the same endpoint, else the dialect inferred from the URL."""
        default = self._settings.settings.provider
        if base_url.rstrip("/") == default.base_url.rstrip("/"):
            return default.model_copy(update={"model": model or default.model})
        return ProviderSettings(base_url=base_url, model=model, dialect=infer_dialect(base_url))

    def context_budget(self, conversation_id: str) -> ContextBudget:
        """The estimated tokens the conversation's next request would send (system, tools, history,
        attachments; compacted turns as their summary) against its model's context window (the preset's,
        else the endpoint's model list's), for the composer's meter."""
        from desktop_app.runtime.compaction.budget import budget
        from desktop_app.runtime.compaction.plan import request_history

        conv = self._conversations.conversation(conversation_id)
        host: ToolHost = self._deferral.view(conv.id) if self._deferral is not None else self._host
        system_note = getattr(host, "system_note", None)
        note = system_note() if system_note is not None else ""
        history = wire_messages(request_history(conv.messages, conv.compactions))
        messages = [*history, *([SystemMessage(content=note)] if note else [])]
        chosen = self.conversation_provider(conv.id)
        return budget(messages, host.tool_specs(), self.windows.window(chosen.base_url, chosen.model))
