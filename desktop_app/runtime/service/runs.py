"""The runs: one active run per conversation (start, continue, pause on approvals), and approval answers.

:class:`Runs` builds each turn's :class:`~desktop_app.runtime.run.loop.RunLoop` from what the conversation's
routing says (provider, tool host, policy), holds the conversation while it runs (a second start is
refused), publishes ``RunFinished(cancelled)`` with the partial answer when its caller is cancelled, and owns
the :class:`~desktop_app.runtime.run.approvals.ApprovalBroker` that pending approvals wait on.
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from desktop_app.runtime import events as ev
from desktop_app.runtime.attachments import AttachmentLimits, PathOrAttachment
from desktop_app.runtime.context import ContextItem
from desktop_app.runtime.conversation import RunOptions, RunOutcome, ToolHost, pending_tool_calls
from desktop_app.runtime.errors import ConversationBusyError
from desktop_app.runtime.messages import ToolMessage
from desktop_app.runtime.run.approvals import ApprovalBroker, Decision, GrantStore
from desktop_app.runtime.service.compaction_control import CompactionControl
from desktop_app.runtime.service.conversations import ConversationTable
from desktop_app.runtime.service.routing import Routing
from desktop_app.runtime.service.settings_control import SettingsControl
from desktop_app.runtime.service.tasks import ConversationTasks

if TYPE_CHECKING:  # the run loop and the hooks' runner load with the first run (``Runs.prepare``), not at ready
    from desktop_app.runtime.hooks.lifecycle import LifecycleHooks

log = logging.getLogger("desktop_app.runtime.service")


class Runs:
    """Starts and continues runs (one per conversation) and takes approval answers by tool-call id."""

    def __init__(
        self,
        *,
        settings: SettingsControl,
        conversations: ConversationTable,
        routing: Routing,
        compaction: CompactionControl,
        grants: GrantStore,
        host: ToolHost,
        tasks: ConversationTasks,
        publish: Callable[[ev.Event], None],
    ) -> None:
        self._settings = settings
        self._conversations = conversations
        self._routing = routing
        self._compaction = compaction
        self._grants = grants
        self._host = host
        self._tasks = tasks
        self._publish = publish
        self._broker = ApprovalBroker()
        self.extra_context: Callable[[str], list[ContextItem]] | None = None
        """Context items a new prompt takes along besides its own (MCP App views' model context), by
        conversation id; taken when the prompt is sent."""

    async def prepare(self) -> None:
        """Load what a run needs beyond what start-up loaded: the event classes, the run loop, the compactor and
        the hooks' modules (imported in a worker thread), then the hooks' runner and its files (a runner the host
        was told to build on first use is built here, on the event loop's thread). The app calls it at the first
        keystroke, so a prompt typed after start-up does not wait for them; a run started sooner loads them."""
        await asyncio.to_thread(_import_run_path)
        getattr(self._host, "hooks", None)

    def answer(self, tool_call_id: str, decision: Decision) -> None:
        self._broker.answer(tool_call_id, decision)

    def pending_approvals(self, conversation_id: str | None = None) -> list[str]:
        return self._broker.pending(conversation_id)

    def _options(self, conversation_id: str) -> RunOptions:
        settings = self._settings.settings
        chosen = self._routing.conversation_provider(conversation_id)
        return RunOptions(
            model=chosen.model,
            max_tool_rounds=settings.max_tool_rounds,
            tool_result_replay_limit=settings.tool_result_replay_limit,
            thinking=chosen.thinking,
            reasoning_effort=chosen.reasoning_effort,
            supports_images=chosen.takes_images,
            vision_model=settings.vision_provider.model if settings.vision_provider else "",
            attachment_limits=AttachmentLimits.from_settings(settings),
        )

    async def start(
        self,
        conversation_id: str,
        prompt: str | None,
        *,
        attachments: Sequence[PathOrAttachment] = (),
        context: Sequence[ContextItem] | None = None,
    ) -> RunOutcome:
        """Run a turn (``prompt``) or continue a paused one (``None``) to its end or its next pause."""
        from desktop_app.runtime.run.loop import RunLoop

        conv = self._conversations.conversation(conversation_id)
        if conv.active_run is not None:
            raise ConversationBusyError(
                f"A run is already active in this conversation (run {conv.active_run}). "
                "Wait for it to finish or stop it first."
            )
        # Everything that can fail comes before the conversation changes: a refused start leaves it as it was.
        chosen = self._routing.conversation_provider(conversation_id)
        options = self._options(conversation_id)
        provider = self._settings.providers.get(chosen)
        pending = pending_tool_calls(conv.messages)
        if prompt is not None:
            # A new prompt abandons a paused turn: its calls go back to the model as not run.
            for call in pending:
                conv.messages.append(
                    ToolMessage(tool_call_id=call.id, content="Not run: the user moved on.", is_error=True)
                )
            pending = []
        if prompt is not None and self.extra_context is not None:
            extra = self.extra_context(conversation_id)
            if extra:
                context = [*(context or []), *extra]
        run_id = uuid.uuid4().hex
        vision = self._settings.settings.vision_provider
        run_host = self._routing.run_host(conv.id, run_id)
        loop = RunLoop(
            conversation=conv,
            run_id=run_id,
            provider=provider,
            host=run_host,
            broker=self._broker,
            policy=self._routing.run_policy(conv.id),
            grants=self._grants,
            options=options,
            emit=self._publish,
            vision_provider=(self._settings.get_vision_provider if vision is not None and vision.configured else None),
            hooks=self._lifecycle_hooks(),
            auto_compact=self._compaction.auto_compaction(conv, chosen, provider, run_host),
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
        self._tasks.track(conversation_id, task)
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
            self._tasks.untrack(conversation_id, task)

    def _lifecycle_hooks(self) -> LifecycleHooks | None:
        """The host's hook runner as the run loop uses it (``None``: no hooks configured)."""
        runner: Any = getattr(self._host, "hooks", None)
        if runner is None:
            return None
        from desktop_app.runtime.hooks.lifecycle import LifecycleHooks

        transcripts = getattr(runner, "transcripts", None)
        if transcripts is not None and transcripts.messages_of is None:  # Claude Code hooks read the conversation
            transcripts.messages_of = self._conversations.transcript_messages
        return LifecycleHooks(runner)


def _import_run_path() -> None:
    import desktop_app.runtime.compaction.compactor
    import desktop_app.runtime.events.protocol
    import desktop_app.runtime.hooks.lifecycle
    import desktop_app.runtime.hooks.sources
    import desktop_app.runtime.run.loop  # noqa: F401


def _current_task_cancelling() -> bool:
    task = asyncio.current_task()
    return task is not None and task.cancelling() > 0
