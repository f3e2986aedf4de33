"""The chat view's renderer of a ``ChatController``'s stream: one ``on_<signal>`` slot per followed signal.

``StreamRenderer`` is a collaborator of ``view.ChatView`` (``view.stream``): it turns run events into blocks
through the view's building methods (``_add``, ``_card``, ``end_segment``, ``settle_retry``, ``add_paused``…),
updating the view's open reasoning and answer blocks and retry line, and owns the stream's own state (whether a
run is going, whether this turn was answered, the working line). ``follow(controller)`` connects every signal
in ``FOLLOWED_SIGNALS`` to its slot; the view keeps ``_on_<signal>`` names that pass through to it.

While a run waits for the model (from its start, after its tool results, through a stall and its retry) a
``WorkingLine`` stands last in the transcript; the model's output, a tool call or the end of the run removes it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from shiboken6 import isValid

if TYPE_CHECKING:  # the blocks load with the first of them, after the first paint
    from desktop_app.runtime import events as ev
    from desktop_app.ui.chat.retry import RetryLine
    from desktop_app.ui.chat.tool_card import ToolCard
    from desktop_app.ui.chat.view import ChatView
    from desktop_app.ui.chat.working import WorkingLine

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
"""The ``ChatController`` signals a view renders, each into its ``on_<signal>`` slot (see ``follow``)."""


class StreamRenderer:
    """Render a controller's stream into a ``ChatView`` (its ``view.stream``; see the module docstring)."""

    def __init__(self, view: ChatView) -> None:
        self.view = view
        self.running = False
        self.turn_answered = False
        self.working: WorkingLine | None = None

    def follow(self, controller: Any) -> None:
        """Render what ``controller`` (a ``ChatController``) streams: one slot per followed signal."""
        for name in FOLLOWED_SIGNALS:
            getattr(controller, name).connect(getattr(self, f"on_{name}"))

    def on_run_started(self, event: ev.RunStarted) -> None:
        self.running = True
        if self.view.retry_run_row is not None:
            self.view.retry_run_row.hide()
        self.view.refresh_actions()
        self.view.end_segment()
        self.turn_answered = False
        self.view.last_answer = None
        self.view.empty_hint.hide()
        self.view.settle_paused("Continued" if event.continued else None)
        self.show_working()

    def show_working(self) -> WorkingLine | None:
        """The model is working and nothing shows it yet: put the working line last (made once per wait)."""
        if not self.running:
            return None
        line = self.working
        if line is not None and isValid(line) and self.view._layout.indexOf(line) >= 0:
            self.view._layout.removeWidget(line)  # already waiting: move it under what was added since
        else:
            from desktop_app.ui.chat.working import WorkingLine

            line = self.working = WorkingLine(clock=self.view.clock)
        self.view._add(line)
        return line

    def hide_working(self) -> None:
        """Output arrived, or the run ended: the working line goes."""
        line, self.working = self.working, None
        if line is not None and isValid(line):  # (``clear()`` may have deleted it)
            line.stop()
            self.view._layout.removeWidget(line)
            line.hide()
            line.deleteLater()

    def on_reasoning_appended(self, text: str) -> None:
        self.hide_working()
        self.view.settle_retry()
        if self.view.answer is not None:  # reasoning after an answer part: a new segment
            self.view.end_segment()
        if self.view.reasoning is None:
            from desktop_app.ui.chat.blocks import ReasoningBlock

            self.view.reasoning = ReasoningBlock(clock=self.view.clock)
            self.view._add(self.view.reasoning)
        self.view.reasoning.append(text)

    def on_content_appended(self, text: str) -> None:
        if self.view.reasoning is not None and self.view.reasoning.live:
            self.view.reasoning.finish(collapse=True)
        self.hide_working()
        self.view.settle_retry()
        self.turn_answered = True
        if self.view.answer is None:
            from desktop_app.ui.chat.blocks import AnswerBlock

            self.view.answer = AnswerBlock()
            self.view.last_answer = self.view.answer
            self.view._add(self.view.answer)
        self.view.answer.append(text)

    def on_tool_called(self, event: ev.ToolCall) -> None:
        self.hide_working()
        card = self.view._card(event.tool_call_id, event.server, event.tool, event.arguments)
        card.model_call_id = event.model_call_id or event.tool_call_id

    def on_subagent_event(self, event: ev.Event) -> None:
        self.view.nested.on_event(event)

    def on_approval_required(self, event: ev.ApprovalRequired) -> ToolCard | None:
        if self.view.nested.owns(event.conversation_id):  # a sub-agent's: its card is nested (``subagents``)
            found: ToolCard | None = self.view.nested.find_card(event.tool_call_id)
            return found
        self.hide_working()
        card = self.view._card(event.tool_call_id, event.server, event.tool, event.arguments)
        card.ask()
        return card

    def on_approval_decided(self, event: ev.ApprovalDecided) -> ToolCard | None:
        if self.view.nested.owns(event.conversation_id):
            found: ToolCard | None = self.view.nested.find_card(event.tool_call_id)
            return found
        card = self.view._card(event.tool_call_id, "", "tool call", {})
        card.show_decision(event.approved, event.reason, event.source, event.scope, event.edited_arguments)
        return card

    def on_tool_result(self, event: ev.ToolResult) -> None:
        card = self.view._card(event.tool_call_id, event.server, event.tool, {})
        card.show_result(event.text, is_error=event.is_error, media=list(getattr(event, "media", None) or []))
        if event.hooks:
            card.show_hook_notices(list(event.hooks))
        if not self.view.nested.owns(event.conversation_id) and not self.view.pending_cards():
            self.show_working()  # the result goes back to the model: it works on the next answer

    def on_hook_noticed(self, event: ev.HookNoticeEvent) -> None:
        """A notice about the turn itself (a prompt changed or blocked, a Stop hook failed); a tool call's
        notices arrive with its result and go on its card."""
        if event.tool_call_id:
            return
        self.view.add_hook_notice(event.notice)

    def on_tool_progress(self, event: ev.ToolProgress) -> None:
        card = self.view.cards.get(event.tool_call_id)
        if card is not None and card.state in ("running", "approved"):
            card.show_progress(event.progress, event.total, event.message)

    def on_retry_scheduled(self, event: ev.RetryScheduled) -> RetryLine:
        line = self._retry_line(event.retry)
        if self.working is not None:
            self.show_working()  # the stall is waited out below the retry line
        return line

    def _retry_line(self, info: ev.RetryInfo) -> RetryLine:
        discarded = False
        if info.stream_reset:  # the partial output of the reset attempt is void: drop its open blocks
            for block in (self.view.reasoning, self.view.answer):
                if block is not None:
                    discarded = discarded or bool(block.text)
                    self.view._layout.removeWidget(block)
                    block.deleteLater()
            if self.view.last_answer is self.view.answer:
                self.view.last_answer = None
            self.view.reasoning = self.view.answer = None
        if self.view.retry_line is not None:
            self.view.retry_line.schedule(info, discarded=discarded)
            return self.view.retry_line
        self.view.empty_hint.hide()
        from desktop_app.ui.chat.retry import RetryLine

        line = RetryLine(info, clock=self.view.clock, discarded=discarded)
        line.retry_now_clicked.connect(self.view.retry_now_requested)
        line.stop_clicked.connect(self.view.stop_requested)
        self.view.retry_line = line
        self.view._add(line)
        return line

    def on_usage_reported(self, event: ev.Usage) -> None:
        self.view.add_usage(event.usage)

    def on_run_finished(self, event: ev.RunFinished) -> None:
        self.running = False
        self.hide_working()
        try:
            self._finish_run(event)
        finally:
            self.view.refresh_actions()

    def _finish_run(self, event: ev.RunFinished) -> None:
        if not self.turn_answered and event.content:  # an answer that arrived without deltas
            self.on_content_appended(event.content)
        self.view.end_segment()
        if event.conversation_usage is not None and self.view.footer is not None:
            self.view.footer.set_conversation(event.conversation_usage)
        if event.reason == "cancelled":
            waiting = self.view.pending_cards()
            for card in waiting:
                card.disarm("Not answered — the run was stopped")
            self._mark_stopped()
            if waiting:
                calls = "A tool call waits" if len(waiting) == 1 else f"{len(waiting)} tool calls wait"
                self.view.add_paused(f"{calls} for your approval. Continue to answer.")
            return
        self.view.settle_retry()
        if event.reason in INCOMPLETE_NOTICES:
            self.view.add_notice(INCOMPLETE_NOTICES[event.reason])
        elif event.reason == "tool_round_limit":
            n = self.view.max_tool_rounds
            rounds = f"{n} tool round{'' if n == 1 else 's'}" if n else "the tool-round limit"
            self.view.add_paused(f"Paused after {rounds}. Continue to let the model go on.")

    def _mark_stopped(self) -> None:
        waiting = self.view.retry_line is not None
        self.view.settle_retry("Stopped while waiting to retry")
        answer = self.view.last_answer
        if answer is not None:
            answer.mark_stopped()
            self.view.add_notice("Stopped — the partial answer above is kept. Send a new message to go on.", "stopped")
        elif not waiting:
            self.view.add_notice("Stopped before the answer started.", "stopped")
        self.view.add_retry_run()

    def on_run_failed(self, event: ev.Error) -> None:
        self.hide_working()
        retried = self.view.retry_line
        self.view.settle_retry()
        if retried is not None and event.details:
            retried.drop_details()  # one Details toggle: the error's, under it, with the same answer
        for card in self.view.pending_cards():
            card.disarm("Not answered — the run failed")
        text = event.message
        if event.retryable:
            text += " Retry sends the message again."
        self.view.show_error(text)
        self.running = False
        row = self.view.add_retry_run(primary=True)  # Retry, the error's one action, right under it
        if event.details:  # the raw answer, one click away: its toggle beside Retry, its text under the row
            from PySide6.QtWidgets import QHBoxLayout

            from desktop_app.ui.chat.error_details import ErrorDetails

            details = ErrorDetails(event.details)
            layout = row.layout()
            assert isinstance(layout, QHBoxLayout)
            layout.insertWidget(1, details.button)
            self.view._add(details)
        self.view.refresh_actions()
