"""The Runtime facade: the only object the UI and the CLI hold.

It owns the conversations, the MCP host, the approval broker and the provider settings; it starts runs
(one active run per conversation), fans events out to subscribers and takes approval answers by
tool-call id.
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections.abc import Callable, Sequence
from dataclasses import replace
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from desktop_app.runtime import events as ev
from desktop_app.runtime.approvals import (
    ApprovalBroker,
    ApprovalPolicy,
    Decision,
    DecisionSource,
    Grant,
    GrantStore,
    Scope,
)
from desktop_app.runtime.attachments import AttachmentLimits, PathOrAttachment
from desktop_app.runtime.clock import RetrySleeper
from desktop_app.runtime.context import ContextItem, default_context
from desktop_app.runtime.conversation import (
    Conversation,
    RunOptions,
    RunOutcome,
    ToolHost,
    pending_tool_calls,
    wire_messages,
)
from desktop_app.runtime.credentials import Credentials
from desktop_app.runtime.errors import ConfigError, ConversationBusyError, RunError
from desktop_app.runtime.hooks.lifecycle import LifecycleHooks
from desktop_app.runtime.messages import Message, SystemMessage, ToolCallRequest, ToolMessage, UserMessage
from desktop_app.runtime.provider_pool import ProviderFactory, ProviderPool
from desktop_app.runtime.providers.base import Provider
from desktop_app.runtime.redaction import redact_event
from desktop_app.runtime.run import RunLoop
from desktop_app.runtime.settings import ProviderSettings, Settings, infer_dialect, save_settings

if TYPE_CHECKING:
    from desktop_app.runtime.agents.definitions import AgentCatalog
    from desktop_app.runtime.context_budget import ContextBudget
    from desktop_app.runtime.deferral import ToolDeferral
    from desktop_app.runtime.host import Host
    from desktop_app.runtime.host.client_features import ClientFeatures
    from desktop_app.runtime.host.requests import ElicitationAction

log = logging.getLogger(__name__)

Listener = Callable[[ev.Event], None]


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
        self._settings = settings
        self.settings_problem = settings_problem
        self._host = host
        self._credentials = credentials or Credentials()
        self._settings_path = settings_path
        self._policy = policy or ApprovalPolicy("ask", auto_approve_read_only=settings.auto_approve_read_only)
        self._broker = ApprovalBroker()
        self.grants = grants or GrantStore()
        self.sleeper = RetrySleeper()
        self._listeners: list[Listener] = []
        self._conversations: dict[str, Conversation] = {}
        self._tasks: dict[str, asyncio.Task[RunOutcome]] = {}
        self._providers = ProviderPool(
            self._credentials, self.sleeper, factory=provider_factory, api_key_override=api_key_override
        )
        self._now = now
        self._features: ClientFeatures | None = self._wire_client_features()
        self._deferral: ToolDeferral | None = None
        self._agents: AgentCatalog | None = None
        self._conversation_agents: dict[str, str] = {}
        self.system_blocks: list[Callable[[], str]] = []
        """Deterministic text appended to the system prompt of new conversations (e.g. the skills index)."""

    # -- settings --------------------------------------------------------------------------------------

    @property
    def settings(self) -> Settings:
        return self._settings

    @property
    def provider_settings(self) -> ProviderSettings:
        return self._settings.provider

    @property
    def host(self) -> Host | ToolHost:
        return self._host

    @property
    def credentials(self) -> Credentials:
        return self._credentials

    def configure_provider(self, settings: ProviderSettings, api_key: str | None) -> None:
        """Save the provider settings (file) and the key (keyring; never a file). ``None`` keeps the key."""
        self._store_key(settings, api_key)
        self._settings = self._settings.model_copy(update={"provider": settings})
        self._save_settings()
        self._providers.retire_all()

    def _store_key(self, settings: ProviderSettings, api_key: str | None) -> None:
        """Keep ``api_key`` in the keyring for ``settings``' endpoint: ``""`` deletes it, ``None`` keeps it."""
        if api_key is None:
            return
        api_key = api_key.strip()  # pasted keys often carry a newline or a CR
        if api_key:
            self._credentials.set(settings.key_name, api_key)
        else:
            self._credentials.delete(settings.key_name)

    @property
    def settings_path(self) -> Path | None:
        """The settings file this runtime saves to (``None``: not saved, e.g. a broken file or a test)."""
        return self._settings_path

    def update_settings(self, settings: Settings | None = None, /, **changes: Any) -> Settings:
        """Save new settings atomically, then put them in force; returns them.

        ``settings`` replaces them all (the Settings window); ``changes`` set top-level fields (validated
        like the file). A failed write leaves the old settings in force. With a broken settings file
        (``settings_problem``) nothing is written, since that file is never overwritten: the change holds
        for this session (the Settings window refuses to save instead).
        """
        base = settings if settings is not None else self._settings
        new = Settings.model_validate({**base.model_dump(), **changes}) if changes else base
        if self._settings_path is not None:
            save_settings(self._settings_path, new)
        self._apply_settings(new)
        return new

    def _apply_settings(self, settings: Settings) -> None:
        old, self._settings = self._settings, settings
        self._policy = replace(self._policy, auto_approve_read_only=settings.auto_approve_read_only)
        if (old.provider, old.vision_provider) != (settings.provider, settings.vision_provider):
            self._providers.retire_all()

    def recover_settings(self, settings: Settings, path: Path) -> None:
        """A broken settings file was fixed and read again: run on it and save to it from now on."""
        self.settings_problem = None
        self._settings_path = path
        self._apply_settings(settings)

    def _save_settings(self) -> None:
        if self._settings_path is not None:
            save_settings(self._settings_path, self._settings)

    @property
    def policy(self) -> ApprovalPolicy:
        return self._policy

    def set_auto_approve_read_only(self, enabled: bool) -> None:
        """Turn auto-approval of ``readOnlyHint`` tools on or off (saved with the settings)."""
        self._settings = self._settings.model_copy(update={"auto_approve_read_only": enabled})
        self._policy = replace(self._policy, auto_approve_read_only=enabled)
        self._save_settings()

    def api_key(self) -> str | None:
        """The default provider's key (environment variable, else keyring)."""
        return self._providers.api_key(self._settings.provider)

    def missing_key(self, settings: ProviderSettings | None = None) -> str | None:
        """Why ``settings`` (default: the default provider) cannot run, when it is a hosted endpoint that needs
        an API key and none is set (e.g. no keyring kept it from the last session); else ``None``."""
        from desktop_app.runtime.providers.presets import key_required, match_preset

        chosen = settings or self._settings.provider
        if not chosen.configured or not key_required(chosen.base_url) or self._providers.api_key(chosen):
            return None
        kept = "" if self._credentials.check() else " (without a working system keyring it was kept for one session)"
        return f"{match_preset(chosen.base_url).name} needs an API key and none is set{kept}. Enter it to start."

    def _get_provider(self) -> Provider:
        return self._providers.get(self._settings.provider)

    # -- deferred tools --------------------------------------------------------------------------------

    @property
    def deferral(self) -> ToolDeferral | None:
        """The deferred tool catalog and per-conversation promotions (``None``: every tool is always sent)."""
        return self._deferral

    def attach_deferral(self, deferral: ToolDeferral) -> None:
        """Send runs' tools through ``deferral`` (built over this runtime's host and settings)."""
        self._deferral = deferral

    def _run_host(self, conversation_id: str, run_id: str) -> ToolHost:
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
        return self._settings.provider

    # -- agents ------------------------------------------------------------------------------------------

    @property
    def agents(self) -> AgentCatalog | None:
        """The agents (``None``: no agents attached; every run sees the whole host)."""
        return self._agents

    def attach_agents(self, catalog: AgentCatalog) -> None:
        self._agents = catalog

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
        if conv is not None and conv.loaded and all(isinstance(m, SystemMessage) for m in conv.messages):
            instructions = self._agents.agents[agent].instructions
            conv.messages = [SystemMessage(content=instructions)] if instructions else []

    def agent_provider(self, agent: str) -> ProviderSettings:
        """The provider and model ``agent`` runs on (its own, else the default provider with its model)."""
        definition = self._agents.get(agent) if self._agents is not None else None
        if definition is None:
            return self._settings.provider
        provider = definition.provider or self._settings.provider
        return provider.model_copy(update={"model": definition.model}) if definition.model else provider

    def _run_policy(self, conversation_id: str) -> ApprovalPolicy:
        """The app's approval policy, made stricter by the agent's own default (never looser)."""
        definition = self._agents.get(self.conversation_agent(conversation_id)) if self._agents is not None else None
        if definition is None or definition.approval is None:
            return self._policy
        strictness = {"always": 0, "ask": 1, "never": 2}
        if strictness[definition.approval] <= strictness[self._policy.mode]:
            return self._policy
        return replace(self._policy, mode=definition.approval)

    def set_conversation_provider(self, conversation_id: str, settings: ProviderSettings | None) -> None:
        """Make a conversation keep ``settings`` (``None``: follow the default provider)."""
        self.conversation(conversation_id).provider = settings

    def stored_provider(self, base_url: str, model: str) -> ProviderSettings:
        """Provider settings for a conversation stored with ``base_url`` and ``model``: the default's
        options when it is the same endpoint, else the dialect inferred from the URL."""
        default = self._settings.provider
        if base_url.rstrip("/") == default.base_url.rstrip("/"):
            return default.model_copy(update={"model": model or default.model})
        return ProviderSettings(base_url=base_url, model=model, dialect=infer_dialect(base_url))

    # -- vision and context ----------------------------------------------------------------------------

    def configure_vision_provider(self, settings: ProviderSettings | None, api_key: str | None = None) -> None:
        """Save (or with ``None`` remove) the provider that describes images for a model that cannot read them.

        Its key goes to the keyring like the main provider's; ``None`` keeps the stored key.
        """
        if settings is not None:
            self._store_key(settings, api_key)
        self._settings = self._settings.model_copy(update={"vision_provider": settings})
        self._save_settings()
        self._providers.retire_all()

    def _get_vision_provider(self) -> Provider:
        vision = self._settings.vision_provider
        if vision is None:  # pragma: no cover - only called when configured
            raise RunError("No vision provider is configured.")
        return self._providers.get(vision)

    def default_context(self) -> list[ContextItem]:
        """The context items a prompt gets unless the user removes them (date/time/zone and OS, per settings)."""
        return default_context(
            now=self._now() if self._now is not None else None,
            include_datetime=self._settings.context_datetime,
            include_os=self._settings.context_os,
        )

    # -- events ----------------------------------------------------------------------------------------

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        self._listeners.append(listener)

        def unsubscribe() -> None:
            if listener in self._listeners:
                self._listeners.remove(listener)

        return unsubscribe

    def notify(self, event: ev.Event) -> None:
        """Publish an event that does not come from a run's loop (e.g. ``StoreFailed`` from the store's recorder)."""
        self._publish(event)

    def _publish(self, event: ev.Event) -> None:
        event = self._account(event)
        event = redact_event(event)  # the one redaction step before the store, the UI and the CLI see it
        if isinstance(event, ev.Error):
            log.warning("run %s failed (%s): %s", event.run_id, event.code, event.message)
        for listener in list(self._listeners):
            try:
                listener(event)
            except Exception:  # a broken listener must not break the run or the other listeners
                log.exception("event listener failed on %s", event.kind)

    def _account(self, event: ev.Event) -> ev.Event:
        """Add ``Usage`` to the conversation's totals; put the totals, hit rate and cost on ``RunFinished``."""
        from desktop_app.runtime.usage import add_usage, summarize

        conv = self._conversations.get(event.conversation_id) if isinstance(event, ev.Usage | ev.RunFinished) else None
        if conv is None:
            return event
        if isinstance(event, ev.Usage):
            conv.usage = add_usage(conv.usage, event.usage)
            return event
        chosen = self.conversation_provider(conv.id)
        return event.model_copy(update={"conversation_usage": summarize(conv.usage, chosen.base_url, chosen.model)})

    def context_budget(self, conversation_id: str) -> ContextBudget:
        """The estimated tokens the conversation's next request would send (system, tools, history,
        attachments) against its model's context window, for the composer's meter."""
        from desktop_app.runtime.context_budget import budget, context_window

        conv = self.conversation(conversation_id)
        host: ToolHost = self._deferral.view(conv.id) if self._deferral is not None else self._host
        system_note = getattr(host, "system_note", None)
        note = system_note() if system_note is not None else ""
        messages = [*wire_messages(conv.messages), *([SystemMessage(content=note)] if note else [])]
        chosen = self.conversation_provider(conv.id)
        return budget(messages, host.tool_specs(), context_window(chosen.base_url, chosen.model))

    def set_conversation_usage(self, conversation_id: str, usage: ev.TokenUsage) -> None:
        """Start a reopened conversation's usage totals from what the store recorded of its earlier runs."""
        self.conversation(conversation_id).usage = usage

    # -- conversations and runs ------------------------------------------------------------------------

    def new_conversation(self, *, agent: str | None = None) -> str:
        """A new empty conversation, talking to ``agent`` (default: the default agent)."""
        conv = Conversation(id=uuid.uuid4().hex)
        system = "\n\n".join(
            text for text in [self._settings.system_prompt, *(b() for b in self.system_blocks)] if text
        )
        if system:
            conv.messages.append(SystemMessage(content=system))
        self._conversations[conv.id] = conv
        if agent is not None:
            self.set_conversation_agent(conv.id, agent)
        return conv.id

    def conversation(self, conversation_id: str) -> Conversation:
        try:
            return self._conversations[conversation_id]
        except KeyError:
            raise RunError(f"Conversation {conversation_id!r} does not exist.") from None

    def is_running(self, conversation_id: str) -> bool:
        conv = self._conversations.get(conversation_id)
        return conv is not None and conv.active_run is not None

    def load_conversation(
        self, conversation_id: str, messages: list[Message] | Callable[[], list[Message]]
    ) -> Conversation:
        """Make a stored conversation (e.g. from the store after a restart) available to runs. ``messages``
        may be a loader, called when the history is first needed (see ``Conversation``)."""
        history = messages if callable(messages) else list(messages)
        conv = self._conversations.get(conversation_id)
        if conv is None:
            conv = Conversation(id=conversation_id, messages=history)
            self._conversations[conversation_id] = conv
        elif conv.active_run is None:
            conv.messages = history
        return conv

    def forget(self, conversation_id: str, user_turn: int, *, what: Literal["answer", "turn"]) -> tuple[int, int]:
        """Drop part of the history: the answer to the ``user_turn``-th user message (0-based; everything up
        to the next user message), or the whole turn (that message too). Regenerating an answer or retrying
        a failed run is ``forget(..., what="answer")`` on the last turn, then ``continue_run``, which asks the
        model again. Refused while a run is active. Returns the (start, end) indexes removed; the store is the
        caller's to change the same way (``Store.delete_message_range``)."""
        conv = self.conversation(conversation_id)
        if conv.active_run is not None:
            raise ConversationBusyError("Stop the run first: its conversation cannot change while it runs.")
        prompts = [i for i, m in enumerate(conv.messages) if isinstance(m, UserMessage)]
        if not 0 <= user_turn < len(prompts):
            raise RunError(f"The conversation has no user message {user_turn + 1}.")
        start = prompts[user_turn] + (1 if what == "answer" else 0)
        end = prompts[user_turn + 1] if user_turn + 1 < len(prompts) else len(conv.messages)
        conv.messages = conv.messages[:start] + conv.messages[end:]
        return start, end

    def pending_tool_calls(self, conversation_id: str) -> list[ToolCallRequest]:
        """Tool calls of a paused turn that have no result yet (they wait for ``continue_run``)."""
        return pending_tool_calls(self.conversation(conversation_id).messages)

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
        return await self._start(conversation_id, prompt, attachments=attachments, context=context)

    async def continue_run(self, conversation_id: str) -> RunOutcome:
        """Continue a paused turn: ask again for pending approvals (also after a restart), or, after the
        tool-round limit, give the model another round of N."""
        return await self._start(conversation_id, None)

    async def _start(
        self,
        conversation_id: str,
        prompt: str | None,
        *,
        attachments: Sequence[PathOrAttachment] = (),
        context: Sequence[ContextItem] | None = None,
    ) -> RunOutcome:
        conv = self.conversation(conversation_id)
        if conv.active_run is not None:
            raise ConversationBusyError(
                f"A run is already active in this conversation (run {conv.active_run}). "
                "Wait for it to finish or stop it first."
            )
        # Everything that can fail comes before the conversation changes: a refused start leaves it as it was.
        chosen = self.conversation_provider(conversation_id)
        options = RunOptions(
            model=chosen.model,
            max_tool_rounds=self._settings.max_tool_rounds,
            tool_result_replay_limit=self._settings.tool_result_replay_limit,
            thinking=chosen.thinking,
            reasoning_effort=chosen.reasoning_effort,
            supports_images=chosen.takes_images,
            vision_model=self._settings.vision_provider.model if self._settings.vision_provider else "",
            attachment_limits=AttachmentLimits.from_settings(self._settings),
        )
        provider = self._providers.get(chosen)
        pending = pending_tool_calls(conv.messages)
        if prompt is not None:
            # A new prompt abandons a paused turn: its calls go back to the model as not run.
            for call in pending:
                conv.messages.append(
                    ToolMessage(tool_call_id=call.id, content="Not run: the user moved on.", is_error=True)
                )
            pending = []
        run_id = uuid.uuid4().hex
        vision = self._settings.vision_provider
        loop = RunLoop(
            conversation=conv,
            run_id=run_id,
            provider=provider,
            host=self._run_host(conv.id, run_id),
            broker=self._broker,
            policy=self._run_policy(conv.id),
            grants=self.grants,
            options=options,
            emit=self._publish,
            vision_provider=self._get_vision_provider if vision is not None and vision.configured else None,
            hooks=self._lifecycle_hooks(),
        )
        # Built-in servers are lazy (created on first use): connect them before the run's first model request,
        # so that their tools are listed to the model and paused calls to them are found. Hosts without
        # built-ins (test fakes) skip this.
        ensure_builtins = getattr(self._host, "ensure_builtins", None)

        async def execute() -> RunOutcome:
            if ensure_builtins is not None:
                await ensure_builtins()
            return await loop.execute(prompt, pending=pending, attachments=attachments, context=context)

        conv.active_run = run_id
        task = asyncio.ensure_future(execute())
        self._tasks[conversation_id] = task
        try:
            return await asyncio.shield(task)
        except asyncio.CancelledError:
            if not task.done():
                # Our caller was cancelled: stop the run too, and let it unwind (its running tool call is
                # cancelled and recorded) before the conversation is released and the end is published.
                task.cancel()
                await asyncio.wait({task})
            if not task.cancelled():
                failure = task.exception()
                if failure is None:
                    raise  # the run ended by itself (and said so) just as our caller was cancelled
                log.error("run %s failed while it was being cancelled", run_id, exc_info=failure)
            content = loop.keep_partial()
            self._publish(ev.RunFinished(conversation_id=conv.id, run_id=run_id, reason="cancelled", content=content))
            if task.cancelled() and not _current_task_cancelling():
                return RunOutcome(run_id, "cancelled", content)
            raise
        finally:
            conv.active_run = None
            self._tasks.pop(conversation_id, None)

    def _lifecycle_hooks(self) -> LifecycleHooks | None:
        """The host's hook runner as the run loop uses it (``None``: no hooks configured)."""
        runner = getattr(self._host, "hooks", None)
        return LifecycleHooks(runner) if runner is not None else None

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
        self._broker.answer(tool_call_id, Decision(approved, reason, source, scope, arguments))

    # -- MCP client features: server requests, roots, resources --------------------------------------

    def _wire_client_features(self) -> ClientFeatures | None:
        """Serve servers' sampling/elicitation requests (see :mod:`.server_requests`); a real host only."""
        features = getattr(self._host, "client_features", None)
        if features is None:
            return None
        from desktop_app.runtime.server_requests import wire_client_features

        wire_client_features(
            features,
            provider=self._get_provider,
            model=lambda: self._settings.provider.model,
            mode=lambda: self._policy.mode,
        )
        return features  # type: ignore[no-any-return]

    def _client_features(self) -> ClientFeatures:
        if self._features is None:
            raise RunError("This runtime's tool host is not an MCP host; it has no server requests or roots.")
        return self._features

    def answer_sampling(self, request_id: str, approved: bool, reason: str | None = None) -> None:
        """Answer a ``SamplingRequested`` host event. Approved: the request runs on the user's provider and
        the completion goes to the server; declined: the server gets a "user rejected" error with ``reason``.
        Unknown or answered ids raise ``UnknownServerRequestError``."""
        self._client_features().answer_sampling(request_id, approved, reason)

    def answer_elicitation(
        self, request_id: str, action: ElicitationAction, content: dict[str, Any] | None = None
    ) -> None:
        """Answer an ``ElicitationRequested`` host event with ``accept`` (and the form ``content``),
        ``decline`` or ``cancel``. Content that does not match the requested schema raises
        ``InvalidElicitationResponseError`` before anything is sent (the request stays open)."""
        self._client_features().answer_elicitation(request_id, action, content)

    def pending_server_requests(self) -> list[str]:
        """Ids of the sampling/elicitation requests still waiting for the user, oldest first."""
        return self._features.pending_requests() if self._features is not None else []

    def roots(self) -> list[Path]:
        """The folders granted to MCP servers."""
        return self._features.roots if self._features is not None else []

    async def set_roots(self, paths: Sequence[Path], *, save: bool = True) -> None:
        """Grant these folders to MCP servers (answered to ``roots/list`` as ``file://`` URIs); connected
        handshake-era servers are told that the list changed. ``save`` keeps them in the settings."""
        self._client_features()  # refuse before saving anything when the host has no roots
        if save:
            self._settings = self._settings.model_copy(update={"roots": [str(p) for p in paths]})
            self._save_settings()
        set_roots = getattr(self._host, "set_roots", None)
        if set_roots is not None:
            await set_roots(paths)

    async def resource_prompt_text(self, server: str, uri: str) -> str:
        """Read a server's resource and return it as prompt text (to attach it to a message)."""
        read_resource = getattr(self._host, "read_resource", None)
        if read_resource is None:
            raise RunError("This runtime's tool host is not an MCP host; it cannot read resources.")
        read = await read_resource(server, uri)
        text: str = read.as_prompt_text()
        return text

    def revoke_grant(self, grant: Grant) -> bool:
        return self.grants.revoke(grant)

    def grant_is_stale(self, grant: Grant) -> bool:
        """Whether ``grant`` no longer applies because its server's definition changed (command and
        arguments, or URL) or the server is gone; it applies again once ``confirm_grant``-ed."""
        identity = getattr(self._host, "server_identity", None)
        if identity is None:
            return False  # a host without identities (test fakes): grants follow the name only
        current = identity(grant.server)
        return current is None or grant.identity != current

    def confirm_grant(self, grant: Grant) -> Grant:
        """Bind a stale grant to the server as it is now, so it applies again (the user looked at the change)."""
        identity = getattr(self._host, "server_identity", None)
        return self.grants.confirm(grant, identity(grant.server) if identity is not None else grant.identity)

    def retry_now(self, conversation_id: str) -> bool:
        """Cut short the conversation's pending retry wait. Returns whether one was waiting."""
        return self.sleeper.wake(conversation_id)

    def pending_approvals(self, conversation_id: str | None = None) -> list[str]:
        return self._broker.pending(conversation_id)

    def cancel(self, conversation_id: str) -> None:
        """Stop the conversation's active run: closes the stream, drops pending approvals."""
        task = self._tasks.get(conversation_id)
        if task is not None and not task.done():
            task.cancel()

    async def aclose(self) -> None:
        for conversation_id in list(self._tasks):
            self.cancel(conversation_id)
        tasks = [t for t in self._tasks.values() if not t.done()]
        if tasks:
            await asyncio.gather(*tasks, return_exceptions=True)
        await self._providers.aclose()
        closer = getattr(self._host, "aclose", None)
        if closer is not None:
            await closer()


def _current_task_cancelling() -> bool:
    task = asyncio.current_task()
    return task is not None and task.cancelling() > 0
