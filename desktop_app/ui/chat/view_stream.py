"""The chat view's slots for a ``ChatController``'s stream: one ``_on_<signal>`` per followed signal.

``StreamSlots`` is mixed into ``view.ChatView`` (before ``QScrollArea``): it turns run events into blocks
through the view's building methods (``_add``, ``_card``, ``end_segment``, ``settle_retry``, ``add_paused``…)
and keeps the view's per-turn state (the open reasoning and answer blocks, the retry line, whether a run is
going). ``follow(controller)`` connects every signal in ``FOLLOWED_SIGNALS`` to its slot.

While a run waits for the model (from its start, after its tool results, through a stall and its retry) a
``WorkingLine`` stands last in the transcript; the model's output, a tool call or the end of the run removes it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from shiboken6 import isValid

from desktop_app.ui.chat.blocks import AnswerBlock, ReasoningBlock
from desktop_app.ui.chat.retry import RetryLine
from desktop_app.ui.chat.working import WorkingLine

if TYPE_CHECKING:
    from desktop_app.runtime import events as ev
    from desktop_app.ui.chat.tool_card import ToolCard

INCOMPLETE_NOTICES = {
    "max_tokens": "The answer hit the model's token limit and may be cut short.",
    "content_filter": "The provider's content filter stopped this answer; it is incomplete.",
}
"""The notice under an answer that ended incomplete, by ``RunFinished.reason`` (live and on replay)."""


FOLLOWED_SIGNALS = (
    "run_started",
    "reasoning_appended",
    "content_appended",
    "tool_called",
    "approval_required",
    "approval_decided",
    "tool_result",
    "hook_noticed",
    "tool_progress",
    "retry_scheduled",
    "usage_reported",
    "run_finished",
    "run_failed",
    "subagent_event",
)
"""The ``ChatController`` signals a view renders, each into its ``_on_<signal>`` slot (see ``follow``)."""


class StreamSlots:
    """Render a controller's stream into the view (a mixin of ``ChatView``; see the module docstring)."""

    _layout: Any
    reasoning: ReasoningBlock | None
    answer: AnswerBlock | None
    last_answer: AnswerBlock | None
    retry_line: RetryLine | None
    retry_run_row: Any
    footer: Any
    cards: dict[str, ToolCard]
    empty_hint: Any
    max_tool_rounds: int | None
    clock: Any
    retry_now_requested: Any
    stop_requested: Any
    _running: bool
    _turn_answered: bool
    working: WorkingLine | None = None
    nested: Any  # subagents.SubagentNesting: sub-agent runs under their tool cards

    def follow(self, controller: Any) -> None:
        """Render what ``controller`` (a ``ChatController``) streams: one slot per followed signal."""
        for name in FOLLOWED_SIGNALS:
            getattr(controller, name).connect(getattr(self, f"_on_{name}"))

    def _on_run_started(self, event: ev.RunStarted) -> None:
        self._running = True
        if self.retry_run_row is not None:
            self.retry_run_row.hide()
        self.refresh_actions()
        self.end_segment()
        self._turn_answered = False
        self.last_answer = None
        self.empty_hint.hide()
        self.settle_paused("Continued" if event.continued else None)
        self.show_working()

    def show_working(self) -> WorkingLine | None:
        """The model is working and nothing shows it yet: put the working line last (made once per wait)."""
        if not self._running:
            return None
        line = self.working
        if line is not None and isValid(line) and self._layout.indexOf(line) >= 0:
            self._layout.removeWidget(line)  # already waiting: move it under what was added since
        else:
            line = self.working = WorkingLine(clock=self.clock)
        self._add(line)
        return line

    def hide_working(self) -> None:
        """Output arrived, or the run ended: the working line goes."""
        line, self.working = self.working, None
        if line is not None and isValid(line):  # (``clear()`` may have deleted it)
            line.stop()
            self._layout.removeWidget(line)
            line.hide()
            line.deleteLater()

    def _on_reasoning_appended(self, text: str) -> None:
        self.hide_working()
        self.settle_retry()
        if self.answer is not None:  # reasoning after an answer part: a new segment
            self.end_segment()
        if self.reasoning is None:
            self.reasoning = ReasoningBlock(clock=self.clock)
            self._add(self.reasoning)
        self.reasoning.append(text)

    def _on_content_appended(self, text: str) -> None:
        if self.reasoning is not None and self.reasoning.live:
            self.reasoning.finish(collapse=True)
        self.hide_working()
        self.settle_retry()
        self._turn_answered = True
        if self.answer is None:
            self.answer = AnswerBlock()
            self.last_answer = self.answer
            self._add(self.answer)
        self.answer.append(text)

    def _on_tool_called(self, event: ev.ToolCall) -> None:
        self.hide_working()
        card = self._card(event.tool_call_id, event.server, event.tool, event.arguments)
        card.model_call_id = event.model_call_id or event.tool_call_id

    def _on_subagent_event(self, event: ev.Event) -> None:
        self.nested.on_event(event)

    def _on_approval_required(self, event: ev.ApprovalRequired) -> ToolCard | None:
        if self.nested.owns(event.conversation_id):  # a sub-agent's: its card is nested (``subagents``)
            found: ToolCard | None = self.nested.find_card(event.tool_call_id)
            return found
        self.hide_working()
        card = self._card(event.tool_call_id, event.server, event.tool, event.arguments)
        card.ask()
        return card

    def _on_approval_decided(self, event: ev.ApprovalDecided) -> ToolCard | None:
        if self.nested.owns(event.conversation_id):
            found: ToolCard | None = self.nested.find_card(event.tool_call_id)
            return found
        card = self._card(event.tool_call_id, "", "tool call", {})
        card.show_decision(event.approved, event.reason, event.source, event.scope, event.edited_arguments)
        return card

    def _on_tool_result(self, event: ev.ToolResult) -> None:
        card = self._card(event.tool_call_id, event.server, event.tool, {})
        card.show_result(event.text, is_error=event.is_error, media=list(getattr(event, "media", None) or []))
        if event.hooks:
            card.show_hook_notices(list(event.hooks))
        if not self.nested.owns(event.conversation_id) and not self.pending_cards():
            self.show_working()  # the result goes back to the model: it works on the next answer

    def _on_hook_noticed(self, event: ev.HookNoticeEvent) -> None:
        """A notice about the turn itself (a prompt changed or blocked, a Stop hook failed); a tool call's
        notices arrive with its result and go on its card."""
        if event.tool_call_id:
            return
        self.add_hook_notice(event.notice)

    def _on_tool_progress(self, event: ev.ToolProgress) -> None:
        card = self.cards.get(event.tool_call_id)
        if card is not None and card.state in ("running", "approved"):
            card.show_progress(event.progress, event.total, event.message)

    def _on_retry_scheduled(self, event: ev.RetryScheduled) -> RetryLine:
        line = self._retry_line(event.retry)
        if self.working is not None:
            self.show_working()  # the stall is waited out below the retry line
        return line

    def _retry_line(self, info: ev.RetryInfo) -> RetryLine:
        discarded = False
        if info.stream_reset:  # the partial output of the reset attempt is void: drop its open blocks
            for block in (self.reasoning, self.answer):
                if block is not None:
                    discarded = discarded or bool(block.text)
                    self._layout.removeWidget(block)
                    block.deleteLater()
            if self.last_answer is self.answer:
                self.last_answer = None
            self.reasoning = self.answer = None
        if self.retry_line is not None:
            self.retry_line.schedule(info, discarded=discarded)
            return self.retry_line
        self.empty_hint.hide()
        line = RetryLine(info, clock=self.clock, discarded=discarded)
        line.retry_now_clicked.connect(self.retry_now_requested)
        line.stop_clicked.connect(self.stop_requested)
        self.retry_line = line
        self._add(line)
        return line

    def _on_usage_reported(self, event: ev.Usage) -> None:
        self.add_usage(event.usage)

    def _on_run_finished(self, event: ev.RunFinished) -> None:
        self._running = False
        self.hide_working()
        try:
            self._finish_run(event)
        finally:
            self.refresh_actions()

    def _finish_run(self, event: ev.RunFinished) -> None:
        if not self._turn_answered and event.content:  # an answer that arrived without deltas
            self._on_content_appended(event.content)
        self.end_segment()
        if event.conversation_usage is not None and self.footer is not None:
            self.footer.set_conversation(event.conversation_usage)
        if event.reason == "cancelled":
            waiting = self.pending_cards()
            for card in waiting:
                card.disarm("Not answered — the run was stopped")
            self._mark_stopped()
            if waiting:
                calls = "A tool call waits" if len(waiting) == 1 else f"{len(waiting)} tool calls wait"
                self.add_paused(f"{calls} for your approval. Continue to answer.")
            return
        self.settle_retry()
        if event.reason in INCOMPLETE_NOTICES:
            self.add_notice(INCOMPLETE_NOTICES[event.reason])
        elif event.reason == "tool_round_limit":
            n = self.max_tool_rounds
            rounds = f"{n} tool round{'' if n == 1 else 's'}" if n else "the tool-round limit"
            self.add_paused(f"Paused after {rounds}. Continue to let the model go on.")

    def _mark_stopped(self) -> None:
        waiting = self.retry_line is not None
        self.settle_retry("Stopped while waiting to retry")
        answer = self.last_answer
        if answer is not None:
            answer.mark_stopped()
            self.add_notice("Stopped — the partial answer above is kept. Send a new message to go on.", "stopped")
        elif not waiting:
            self.add_notice("Stopped before the answer started.", "stopped")
        self.add_retry_run()

    def _on_run_failed(self, event: ev.Error) -> None:
        self.hide_working()
        self.settle_retry()
        for card in self.pending_cards():
            card.disarm("Not answered — the run failed")
        text = event.message
        if event.retryable:
            text += " Retry sends the message again."
        self.show_error(text)
        if getattr(event, "details", None):  # the raw answer, one click away
            from desktop_app.ui.chat.error_details import ErrorDetails

            self._add(ErrorDetails(event.details))
        self._running = False
        self.add_retry_run()
        self.refresh_actions()
