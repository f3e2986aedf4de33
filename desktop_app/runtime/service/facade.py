"""The Runtime facade: the only object the UI and the CLI hold.

:class:`Runtime` owns a few collaborators, each owning its state behind a narrow interface:
``settings_ctl`` (:mod:`.settings_control`: settings, keys, policy, provider pool), ``conversations``
(:mod:`.conversations`: conversations by id), ``routing`` (:mod:`.routing`: each conversation's agent,
provider, policy, tools and context budget), ``features`` (:mod:`.features`: servers' requests, roots,
resources, grants), ``compaction`` (:mod:`.compaction_control`), ``runs`` (:mod:`.runs`: one active run per
conversation, approval answers) and ``events`` (:mod:`.event_hub`: the fan-out through the one redaction
step). Its methods are thin delegations that the UI, the CLI and the tests call.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from desktop_app.runtime import events as ev
from desktop_app.runtime.attachments import PathOrAttachment
from desktop_app.runtime.clock import RetrySleeper
from desktop_app.runtime.context import ContextItem
from desktop_app.runtime.conversation import Conversation, RunOutcome, ToolHost
from desktop_app.runtime.credentials import Credentials
from desktop_app.runtime.errors import ConfigError
from desktop_app.runtime.messages import Message, ToolCallRequest
from desktop_app.runtime.providers.pool import ProviderFactory, ProviderPool
from desktop_app.runtime.run.approvals import ApprovalPolicy, Decision, DecisionSource, Grant, GrantStore, Scope
from desktop_app.runtime.service.compaction_control import CompactionControl
from desktop_app.runtime.service.conversations import ConversationTable
from desktop_app.runtime.service.event_hub import EventHub, Listener
from desktop_app.runtime.service.features import ServerFeatures
from desktop_app.runtime.service.routing import Routing
from desktop_app.runtime.service.runs import Runs
from desktop_app.runtime.service.settings_control import SettingsControl
from desktop_app.runtime.service.tasks import ConversationTasks
from desktop_app.runtime.settings import ProviderSettings, Settings

if TYPE_CHECKING:
    from desktop_app.runtime.agents.definitions import AgentCatalog
    from desktop_app.runtime.compaction.budget import ContextBudget
    from desktop_app.runtime.compaction.plan import Compaction
    from desktop_app.runtime.compaction.windows import ModelWindows
    from desktop_app.runtime.host import Host
    from desktop_app.runtime.host.requests import ElicitationAction
    from desktop_app.runtime.tools.deferral import ToolDeferral


class Runtime:
    """Starts runs, answers approvals, cancels, and publishes every event to its subscribers."""

    def __init__(
        self,
        *,
        settings: Settings,
        host: Host | ToolHost,
        credentials: Credentials | None = None,
        settings_path: Path | None = None,
        policy: ApprovalPolicy | None = None,
        grants: GrantStore | None = None,
        provider_factory: ProviderFactory | None = None,
        api_key_override: str | None = None,
        now: Callable[[], datetime] | None = None,
        settings_problem: ConfigError | None = None,
    ) -> None:
        """``settings_problem``: the settings file is broken (the runtime runs on defaults and never saves)."""
        self._host = host
        credentials = credentials or Credentials()
        self.sleeper = RetrySleeper()
        pool = ProviderPool(credentials, self.sleeper, factory=provider_factory, api_key_override=api_key_override)
        self.settings_ctl = SettingsControl(
            settings=settings,
            credentials=credentials,
            providers=pool,
            settings_path=settings_path,
            policy=policy,
            now=now,
            settings_problem=settings_problem,
        )
        self.conversations = ConversationTable(lambda: self.settings_ctl.settings)
        self.events = EventHub(self.conversations, lambda cid: self.routing.conversation_provider(cid))
        self.routing = Routing(
            settings=self.settings_ctl, conversations=self.conversations, host=host, publish=self.events.publish
        )
        self.features = ServerFeatures(settings=self.settings_ctl, host=host, grants=grants)
        tasks = ConversationTasks()
        self._tasks = tasks
        self.compaction = CompactionControl(
            settings=self.settings_ctl,
            conversations=self.conversations,
            routing=self.routing,
            host=host,
            tasks=tasks,
            notify=self.events.publish,
        )
        self.runs = Runs(
            settings=self.settings_ctl,
            conversations=self.conversations,
            routing=self.routing,
            compaction=self.compaction,
            grants=self.features.grants,
            host=host,
            tasks=tasks,
            publish=self.events.publish,
        )

    # -- events ----------------------------------------------------------------------------------------

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        return self.events.subscribe(listener)

    def notify(self, event: ev.Event) -> None:
        """Publish an event that does not come from a run's loop (e.g. ``StoreFailed`` from the store's recorder)."""
        self.events.publish(event)

    # -- runs ------------------------------------------------------------------------------------------

    async def run(
        self,
        conversation_id: str,
        prompt: str,
        *,
        attachments: Sequence[PathOrAttachment] = (),
        context: Sequence[ContextItem] | None = None,
    ) -> RunOutcome:
        """Run one user turn to its end. A second run on a busy conversation is refused.

        ``attachments`` are loaded ``Attachment``s or file paths; ``context`` items go with the prompt in a
        ``<context>`` block (``None``: no block; ``default_context()`` gives date/time/zone and the OS).
        Images for a model that cannot read them go through ``settings.vision_provider``, or the run fails
        before any request (``Error`` event, code ``vision_unavailable``).
        """
        return await self.runs.start(conversation_id, prompt, attachments=attachments, context=context)

    async def prepare_runs(self) -> None:
        """Load what a first run needs beyond what start-up loaded (the app: at the first keystroke)."""
        await self.runs.prepare()

    async def continue_run(self, conversation_id: str) -> RunOutcome:
        """Continue a paused turn: ask again for pending approvals (also after a restart), or, after the
        tool-round limit, give the model another round of N."""
        return await self.runs.start(conversation_id, None)

    def answer(
        self,
        tool_call_id: str,
        *,
        approved: bool,
        reason: str | None = None,
        scope: Scope = "once",
        arguments: dict[str, Any] | None = None,
        source: DecisionSource = "user",
    ) -> None:
        """Answer a pending approval by tool-call id. Unknown or answered ids raise ``UnknownToolCallError``.

        ``scope`` widens an approval (this conversation, this tool always, the whole server);
        ``arguments`` replaces the model's arguments (recorded and shown as an edit). ``source`` says who
        decided: the user, or ``"policy"`` for a rule that answered for them (e.g. no terminal to ask on).
        """
        self.runs.answer(tool_call_id, Decision(approved, reason, source, scope, arguments))

    def retry_now(self, conversation_id: str) -> bool:
        """Cut short the conversation's pending retry wait. Returns whether one was waiting."""
        return self.sleeper.wake(conversation_id)

    def pending_approvals(self, conversation_id: str | None = None) -> list[str]:
        return self.runs.pending_approvals(conversation_id)

    def cancel(self, conversation_id: str) -> None:
        """Stop the conversation's active run (or compaction): closes the stream, drops pending approvals."""
        self._tasks.cancel(conversation_id)

    async def aclose(self) -> None:
        await self._tasks.aclose()
        await self.settings_ctl.providers.aclose()
        closer = getattr(self._host, "aclose", None)
        if closer is not None:
            await closer()

    # -- settings (SettingsControl) --------------------------------------------------------------------

    @property
    def settings(self) -> Settings:
        return self.settings_ctl.settings

    @property
    def _settings(self) -> Settings:
        return self.settings_ctl.settings

    @_settings.setter
    def _settings(self, settings: Settings) -> None:  # tests put settings in force without saving
        self.settings_ctl.set_in_memory(settings)

    @property
    def settings_problem(self) -> ConfigError | None:
        return self.settings_ctl.settings_problem

    @property
    def settings_path(self) -> Path | None:
        return self.settings_ctl.settings_path

    @property
    def provider_settings(self) -> ProviderSettings:
        return self.settings_ctl.settings.provider

    @property
    def host(self) -> Host | ToolHost:
        return self._host

    @property
    def credentials(self) -> Credentials:
        return self.settings_ctl.credentials

    @property
    def policy(self) -> ApprovalPolicy:
        return self.settings_ctl.policy

    def configure_provider(self, settings: ProviderSettings, api_key: str | None) -> None:
        self.settings_ctl.configure_provider(settings, api_key)

    def configure_vision_provider(self, settings: ProviderSettings | None, api_key: str | None = None) -> None:
        self.settings_ctl.configure_vision_provider(settings, api_key)

    def update_settings(self, settings: Settings | None = None, /, **changes: Any) -> Settings:
        return self.settings_ctl.update_settings(settings, **changes)

    def recover_settings(self, settings: Settings, path: Path) -> None:
        self.settings_ctl.recover_settings(settings, path)

    def set_auto_approve_read_only(self, enabled: bool) -> None:
        self.settings_ctl.set_auto_approve_read_only(enabled)

    def api_key(self) -> str | None:
        return self.settings_ctl.api_key()

    def missing_key(self, settings: ProviderSettings | None = None) -> str | None:
        return self.settings_ctl.missing_key(settings)

    def default_context(self) -> list[ContextItem]:
        return self.settings_ctl.default_context()

    # -- conversations (ConversationTable) -------------------------------------------------------------

    @property
    def system_blocks(self) -> list[Callable[[], str]]:
        """Deterministic text appended to the system prompt of new conversations (e.g. the skills index)."""
        return self.conversations.system_blocks

    def new_conversation(self, *, agent: str | None = None) -> str:
        """A new empty conversation, talking to ``agent`` (default: the default agent, with its instructions
        when it is a defined one)."""
        conv = self.conversations.create()
        agent = self.routing.agent_for_new(agent)
        if agent is not None:
            self.routing.set_conversation_agent(conv.id, agent)
        return conv.id

    def conversation(self, conversation_id: str) -> Conversation:
        return self.conversations.conversation(conversation_id)

    def is_running(self, conversation_id: str) -> bool:
        return self.conversations.is_running(conversation_id)

    def load_conversation(
        self, conversation_id: str, messages: list[Message] | Callable[[], list[Message]]
    ) -> Conversation:
        return self.conversations.load_conversation(conversation_id, messages)

    def forget(self, conversation_id: str, user_turn: int, *, what: Literal["answer", "turn"]) -> tuple[int, int]:
        return self.conversations.forget(conversation_id, user_turn, what=what)

    def pending_tool_calls(self, conversation_id: str) -> list[ToolCallRequest]:
        return self.conversations.pending_tool_calls(conversation_id)

    def set_conversation_usage(self, conversation_id: str, usage: ev.TokenUsage) -> None:
        self.conversations.set_conversation_usage(conversation_id, usage)

    # -- routing (Routing) -----------------------------------------------------------------------------

    @property
    def windows(self) -> ModelWindows:
        return self.routing.windows

    @property
    def deferral(self) -> ToolDeferral | None:
        return self.routing.deferral

    def attach_deferral(self, deferral: ToolDeferral) -> None:
        self.routing.attach_deferral(deferral)

    @property
    def agents(self) -> AgentCatalog | None:
        return self.routing.agents

    def attach_agents(self, catalog: AgentCatalog) -> None:
        self.routing.attach_agents(catalog)

    def conversation_agent(self, conversation_id: str) -> str:
        return self.routing.conversation_agent(conversation_id)

    def set_conversation_agent(self, conversation_id: str, agent: str) -> None:
        self.routing.set_conversation_agent(conversation_id, agent)

    def conversation_system_prompt(self, conversation_id: str) -> str:
        return self.routing.conversation_system_prompt(conversation_id)

    def agent_provider(self, agent: str) -> ProviderSettings:
        return self.routing.agent_provider(agent)

    def conversation_provider(self, conversation_id: str) -> ProviderSettings:
        return self.routing.conversation_provider(conversation_id)

    def set_conversation_provider(self, conversation_id: str, settings: ProviderSettings | None) -> None:
        self.routing.set_conversation_provider(conversation_id, settings)

    def stored_provider(self, base_url: str, model: str) -> ProviderSettings:
        return self.routing.stored_provider(base_url, model)

    def context_budget(self, conversation_id: str) -> ContextBudget:
        return self.routing.context_budget(conversation_id)

    # -- compaction (CompactionControl) ----------------------------------------------------------------

    async def compact(self, conversation_id: str) -> Compaction:
        return await self.compaction.compact(conversation_id)

    def undo_compaction(self, conversation_id: str, compaction_id: str | None = None) -> Compaction:
        return self.compaction.undo_compaction(conversation_id, compaction_id)

    def compactions(self, conversation_id: str) -> list[Compaction]:
        return self.compaction.compactions(conversation_id)

    def load_compactions(self, conversation_id: str, compactions: Sequence[Compaction]) -> None:
        self.compaction.load_compactions(conversation_id, compactions)

    # -- servers' requests, roots, resources, grants (ServerFeatures) ----------------------------------

    @property
    def grants(self) -> GrantStore:
        return self.features.grants

    def answer_sampling(self, request_id: str, approved: bool, reason: str | None = None) -> None:
        self.features.answer_sampling(request_id, approved, reason)

    def answer_elicitation(
        self, request_id: str, action: ElicitationAction, content: dict[str, Any] | None = None
    ) -> None:
        self.features.answer_elicitation(request_id, action, content)

    def pending_server_requests(self) -> list[str]:
        return self.features.pending_server_requests()

    def roots(self) -> list[Path]:
        return self.features.roots()

    async def set_roots(self, paths: Sequence[Path], *, save: bool = True) -> None:
        await self.features.set_roots(paths, save=save)

    async def resource_prompt_text(self, server: str, uri: str) -> str:
        return await self.features.resource_prompt_text(server, uri)

    def revoke_grant(self, grant: Grant) -> bool:
        return self.features.revoke_grant(grant)

    def grant_is_stale(self, grant: Grant) -> bool:
        return self.features.grant_is_stale(grant)

    def confirm_grant(self, grant: Grant) -> Grant:
        return self.features.confirm_grant(grant)
