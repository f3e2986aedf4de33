"""Runtime events → Qt signals for one conversation, with text deltas coalesced on a short timer.

The runtime calls its listeners on the loop thread, which under qasync is the Qt main thread, so the
controller emits directly. Reasoning and answer deltas are buffered and flushed at most every
``FLUSH_INTERVAL_MS`` (and before any other event, so that order is kept), or once ``FLUSH_CHARS`` wait: a
20,000-token answer makes a few hundred view updates, not 20,000 layout passes.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Coroutine, Sequence
from typing import TYPE_CHECKING, Any, Protocol

from PySide6.QtCore import QObject, QTimer, Signal

if TYPE_CHECKING:  # not at run time: the pydantic models cost start-up time before the first paint
    from desktop_app.runtime import events as ev
    from desktop_app.runtime.run.approvals import Grant
    from desktop_app.runtime.settings import ProviderSettings, Settings
    from desktop_app.ui.chat.tool_card import ApprovalAnswer

log = logging.getLogger(__name__)

FLUSH_INTERVAL_MS = 30
FLUSH_CHARS = 1500
"""A stream faster than this many characters per ``FLUSH_INTERVAL_MS`` (a fast local model, or a burst after a
network stall) is flushed as each such piece is in: the view writes it within a frame and keeps up with the
stream, instead of getting thousands of tokens at once every 30 ms."""

# Event ``kind`` -> the signal that carries it (deltas are coalesced separately).
SIGNAL_FOR_KIND = {
    "run_started": "run_started",
    "images_described": "images_described",
    "tool_call": "tool_called",
    "approval_required": "approval_required",
    "approval_decided": "approval_decided",
    "tool_result": "tool_result",
    "hook_notice": "hook_noticed",
    "tool_progress": "tool_progress",
    "retry_scheduled": "retry_scheduled",
    "usage": "usage_reported",
    "run_finished": "run_finished",
    "error": "run_failed",
    "store_failed": "store_failed",
}


SUBAGENT_STATUS_KINDS = frozenset({"approval_required", "approval_decided"})
"""A sub-agent's events that also go out on the ordinary signals (the status line says an approval waits);
all of them go out on ``subagent_event``, which the view nests under the parent's tool card."""


class GrantsLike(Protocol):
    def list(self) -> list[Grant]: ...


class RuntimeLike(Protocol):
    """The part of ``desktop_app.runtime.service.Runtime`` the UI uses."""

    @property
    def provider_settings(self) -> ProviderSettings: ...
    @property
    def settings(self) -> Settings: ...
    @property
    def grants(self) -> GrantsLike: ...

    def subscribe(self, listener: Any) -> Any: ...
    def new_conversation(self) -> str: ...
    async def run(
        self,
        conversation_id: str,
        prompt: str,
        *,
        attachments: Sequence[Any] = (),
        context: Sequence[Any] | None = None,
    ) -> Any: ...
    async def continue_run(self, conversation_id: str) -> Any: ...
    def answer(
        self,
        tool_call_id: str,
        *,
        approved: bool,
        reason: str | None = None,
        scope: Any = "once",
        arguments: dict[str, Any] | None = None,
    ) -> None: ...
    def revoke_grant(self, grant: Grant) -> bool: ...
    def confirm_grant(self, grant: Grant) -> Grant: ...
    def set_auto_approve_read_only(self, enabled: bool) -> None: ...
    def pending_approvals(self, conversation_id: str | None = None) -> list[str]: ...
    def cancel(self, conversation_id: str) -> None: ...
    def retry_now(self, conversation_id: str) -> bool: ...
    def is_running(self, conversation_id: str) -> bool: ...
    def configure_provider(self, settings: ProviderSettings, api_key: str | None) -> None: ...
    async def aclose(self) -> None: ...


class ChatController(QObject):
    """Turns the runtime's events for the current conversation into Qt signals, and forwards user intent.

    Signals:
        run_started(object): a ``RunStarted`` event (a new assistant turn begins).
        reasoning_appended(str): coalesced reasoning text to append.
        content_appended(str): coalesced answer text to append.
        tool_called(object): a ``ToolCall`` event.
        approval_required(object): an ``ApprovalRequired`` event; answer it with ``answer()``.
        approval_decided(object): an ``ApprovalDecided`` event.
        tool_result(object): a ``ToolResult`` event.
        tool_progress(object): a ``ToolProgress`` event (a running tool reported progress).
        retry_scheduled(object): a ``RetryScheduled`` event.
        usage_reported(object): a ``Usage`` event.
        run_finished(object): a ``RunFinished`` event.
        run_failed(object): an ``Error`` event.
        images_described(object): an ``ImagesDescribed`` event (a vision model described the attached images).
        busy_changed(bool): a run of this conversation started (True) or ended (False).
        store_failed(object): a ``StoreFailed`` event (the store could not write this conversation's run).
        subagent_event(object): an event of an agent this conversation called (``SubagentStarted``/``Finished``
            on the parent's tool call, then the agent's own run; its text deltas coalesced like the parent's).
            A workflow step's sub-run comes the same way (its conversation known from ``WorkflowStep``).
        workflow_event(object): a ``WorkflowStarted``/``WorkflowStep``/``WorkflowFinished`` of this conversation.
    """

    run_started = Signal(object)
    reasoning_appended = Signal(str)
    content_appended = Signal(str)
    tool_called = Signal(object)
    approval_required = Signal(object)
    approval_decided = Signal(object)
    tool_result = Signal(object)
    hook_noticed = Signal(object)
    tool_progress = Signal(object)
    retry_scheduled = Signal(object)
    usage_reported = Signal(object)
    run_finished = Signal(object)
    run_failed = Signal(object)
    images_described = Signal(object)
    busy_changed = Signal(bool)
    store_failed = Signal(object)
    subagent_event = Signal(object)
    workflow_event = Signal(object)

    def __init__(self, runtime: RuntimeLike, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("chatController")
        self.runtime = runtime
        self.conversation_id = runtime.new_conversation()
        self._busy = False
        self._subagents: dict[str, str] = {}  # a sub-agent's conversation -> the conversation whose view shows it
        self._reasoning: list[str] = []
        self._content: list[str] = []
        self._child_deltas: list[tuple[ev.Event, list[str]]] = []  # a sub-agent's deltas, coalesced in order
        self._buffered = 0  # characters in the two buffers
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(FLUSH_INTERVAL_MS)
        self._timer.timeout.connect(self.flush)
        self.stoppers: list[Callable[[str], object]] = []
        """What else Stop stops in the conversation (a workflow run: ``ui.workflows``)."""
        self._unsubscribe = runtime.subscribe(self._on_event)

    # -- user intent -------------------------------------------------------------------------------------

    @property
    def busy(self) -> bool:
        return self._busy

    def send(
        self, prompt: str, *, attachments: Sequence[Any] = (), context: Sequence[Any] | None = None
    ) -> Coroutine[Any, Any, Any]:
        """Mark the conversation busy now and return the coroutine that runs the turn (start it as a task).

        Busy is set before the task starts, so Send turns into Stop at once and a second Ctrl+Enter in the
        same event-loop iteration cannot start a second run. ``attachments`` and ``context`` go to
        ``Runtime.run`` (only when given, so runtimes without them keep working).
        """
        self._set_busy(True)
        if attachments or context is not None:
            return self._run_with(self.conversation_id, prompt, attachments, context)
        return self._run(self.conversation_id, prompt)

    async def _run_with(
        self, conversation_id: str, prompt: str, attachments: Sequence[Any], context: Sequence[Any] | None
    ) -> Any:
        try:
            return await self.runtime.run(conversation_id, prompt, attachments=attachments, context=context)
        finally:
            self.flush()
            if conversation_id == self.conversation_id:
                self._set_busy(False)

    def continue_run(self) -> Coroutine[Any, Any, Any]:
        """Like ``send``, for a paused turn: busy now, and the coroutine that continues it."""
        self._set_busy(True)
        return self._run(self.conversation_id, None)

    async def _run(self, conversation_id: str, prompt: str | None) -> Any:
        try:
            if prompt is None:
                return await self.runtime.continue_run(conversation_id)
            return await self.runtime.run(conversation_id, prompt)
        finally:
            self.flush()
            if conversation_id == self.conversation_id:
                self._set_busy(False)

    def stop(self) -> None:
        if self.runtime.is_running(self.conversation_id):
            self.runtime.cancel(self.conversation_id)
        for stopper in self.stoppers:
            stopper(self.conversation_id)

    def set_busy(self, busy: bool) -> None:
        """Work other than a run holds the conversation (a workflow run): Send is Stop while it does."""
        self._set_busy(busy)

    def retry_now(self) -> bool:
        """Cut the pending retry wait short. Returns whether a retry was waiting."""
        return self.runtime.retry_now(self.conversation_id)

    def answer(self, tool_call_id: str, answer: ApprovalAnswer) -> None:
        """Hand the user's answer to the runtime (``arguments`` only with an approval that edited them)."""
        self.runtime.answer(
            tool_call_id,
            approved=answer.approved,
            reason=answer.reason,
            scope=answer.scope,
            arguments=answer.arguments if answer.approved else None,
        )

    def new_conversation(self) -> str:
        """Switch to a fresh conversation; events of the old one are ignored from now on."""
        self.flush()
        self.conversation_id = self.runtime.new_conversation()
        self._set_busy(False)
        return self.conversation_id

    def close(self) -> None:
        self._timer.stop()
        self._unsubscribe()

    # -- runtime events ----------------------------------------------------------------------------------

    def _on_event(self, event: ev.Event) -> None:
        kind = event.kind
        if kind in ("workflow_started", "workflow_step", "workflow_finished"):
            child = getattr(event, "child_conversation_id", "")
            if child:  # the step's sub-run nests in this conversation's view, as a sub-agent's run does
                self._subagents[child] = self._subagents.get(event.conversation_id, event.conversation_id)
            if event.conversation_id == self.conversation_id:
                self.flush()
                self.workflow_event.emit(event)
            return
        if kind in ("subagent_started", "subagent_finished"):
            root = self._subagents.get(event.conversation_id, event.conversation_id)
            if event.kind == "subagent_started":
                self._subagents[event.child_conversation_id] = root  # nested agents show in the same view
            if root == self.conversation_id:
                self.flush()
                self.subagent_event.emit(event)
            return
        if event.conversation_id != self.conversation_id:
            if self._subagents.get(event.conversation_id) == self.conversation_id:
                self._on_subagent_event(event)
            return
        if event.kind == "reasoning_delta":
            if self._content:  # keep order: answer text before this reasoning goes out first
                self.flush()
            self._reasoning.append(event.text)
            self._buffered += len(event.text)
            self._schedule()
        elif event.kind == "content_delta":
            if self._reasoning:
                self.flush()
            self._content.append(event.text)
            self._buffered += len(event.text)
            self._schedule()
        else:
            self.flush()
            name = SIGNAL_FOR_KIND.get(kind)
            if name is None:
                log.debug("ignoring event %s", kind)
            else:
                if kind == "error":  # a missing key: what to do in the window, not at the command line
                    from desktop_app.ui.window.key_banner import in_window_words

                    event = in_window_words(event)
                getattr(self, name).emit(event)

    def _on_subagent_event(self, event: ev.Event) -> None:
        kind = event.kind
        if event.kind == "reasoning_delta" or event.kind == "content_delta":
            last = self._child_deltas[-1] if self._child_deltas else None
            if last is not None and (last[0].conversation_id, last[0].kind) == (event.conversation_id, kind):
                last[1].append(event.text)
            else:
                self._child_deltas.append((event, [event.text]))
            self._schedule()
            return
        self.flush()
        self.subagent_event.emit(event)
        if kind in SUBAGENT_STATUS_KINDS:
            getattr(self, SIGNAL_FOR_KIND[kind]).emit(event)

    def _schedule(self) -> None:
        if self._buffered >= FLUSH_CHARS:  # a fast stream: hand it over in pieces the view writes in a frame
            self.flush()
        elif not self._timer.isActive():
            self._timer.start()

    def flush(self) -> None:
        """Emit the buffered reasoning and answer text now."""
        self._buffered = 0
        self._timer.stop()
        if self._reasoning:
            text = "".join(self._reasoning)
            self._reasoning.clear()
            self.reasoning_appended.emit(text)
        if self._content:
            text = "".join(self._content)
            self._content.clear()
            self.content_appended.emit(text)
        if self._child_deltas:
            deltas, self._child_deltas = self._child_deltas, []
            for first, texts in deltas:
                self.subagent_event.emit(first.model_copy(update={"text": "".join(texts)}))

    def _set_busy(self, busy: bool) -> None:
        if busy != self._busy:
            self._busy = busy
            self.busy_changed.emit(busy)
