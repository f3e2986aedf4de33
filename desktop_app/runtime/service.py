"""The Runtime facade: the only object the UI and the CLI hold.

:class:`Runtime` is assembled from layers, each in its own module: :mod:`.service_settings` (settings,
provider keys, the approval policy), :mod:`.service_conversations` (conversations by id),
:mod:`.service_routing` (each conversation's agent, provider, policy and tools) and
:mod:`.service_features` (servers' requests, roots, resources, grants). This module owns the runtime's
state (``Runtime.__init__``), the runs (one active run per conversation: start, continue, cancel),
approval answers by tool-call id, and the fan-out of every event to subscribers (through the one
redaction step).
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections.abc import Callable, Sequence
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from desktop_app.runtime import events as ev
from desktop_app.runtime.approvals import (
    ApprovalBroker,
    ApprovalPolicy,
    Decision,
    DecisionSource,
    GrantStore,
    Scope,
)
from desktop_app.runtime.attachments import AttachmentLimits, PathOrAttachment
from desktop_app.runtime.clock import RetrySleeper
from desktop_app.runtime.context import ContextItem
from desktop_app.runtime.conversation import (
    Conversation,
    RunOptions,
    RunOutcome,
    ToolHost,
    pending_tool_calls,
)
from desktop_app.runtime.credentials import Credentials
from desktop_app.runtime.errors import ConfigError, ConversationBusyError
from desktop_app.runtime.hooks.lifecycle import LifecycleHooks
from desktop_app.runtime.messages import ToolMessage
from desktop_app.runtime.provider_pool import ProviderFactory, ProviderPool
from desktop_app.runtime.redaction import redact_event
from desktop_app.runtime.run import RunLoop
from desktop_app.runtime.service_compaction import RuntimeCompaction
from desktop_app.runtime.service_features import RuntimeServerFeatures
from desktop_app.runtime.settings import Settings

if TYPE_CHECKING:
    from desktop_app.runtime.agents.definitions import AgentCatalog
    from desktop_app.runtime.deferral import ToolDeferral
    from desktop_app.runtime.host import Host
    from desktop_app.runtime.host.client_features import ClientFeatures

log = logging.getLogger(__name__)

Listener = Callable[[ev.Event], None]


class Runtime(RuntimeCompaction, RuntimeServerFeatures):
    """Starts runs, answers approvals, cancels, and publishes every event to its subscribers.

    Settings: :class:`RuntimeSettings`; conversations: :class:`RuntimeConversations`; agents, providers,
    policy and tools per conversation: :class:`RuntimeRouting`; server requests, roots, resources and
    grants: :class:`RuntimeServerFeatures`; compaction: :class:`RuntimeCompaction`."""

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
        from desktop_app.runtime.model_windows import ModelWindows

        self.windows = ModelWindows()
        """Context windows: the presets', else what the endpoints' model lists say (learned before a first run)."""

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
        run_host = self._run_host(conv.id, run_id)
        from desktop_app.runtime.compaction_runtime import auto_compaction

        loop = RunLoop(
            conversation=conv,
            run_id=run_id,
            provider=provider,
            host=run_host,
            broker=self._broker,
            policy=self._run_policy(conv.id),
            grants=self.grants,
            options=options,
            emit=self._publish,
            vision_provider=self._get_vision_provider if vision is not None and vision.configured else None,
            hooks=self._lifecycle_hooks(),
            auto_compact=auto_compaction(self, conv, chosen, provider, run_host, self._providers.api_key(chosen)),
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
        if runner is None:
            return None
        transcripts = getattr(runner, "transcripts", None)
        if transcripts is not None and transcripts.messages_of is None:  # Claude Code hooks read the conversation
            transcripts.messages_of = self._transcript_messages
        return LifecycleHooks(runner)

    def _transcript_messages(self, conversation_id: str) -> tuple[Any, ...]:
        conv = self._conversations.get(conversation_id)
        return tuple(conv.messages) if conv is not None else ()

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
