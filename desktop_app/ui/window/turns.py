"""The main window's run controls: the controller's signals in the status bar, stop/retry/continue, approval
answers, and the per-turn actions (copy, regenerate, retry, edit and resend, versions, delete).

A mixin of :class:`~desktop_app.ui.window.main_window.MainWindow` (it uses the window's ``controller``, ``view``,
``composer`` and ``find_bar``); the turn actions themselves live in ``ui.chat.turn_actions``.
"""

from __future__ import annotations

from collections.abc import Coroutine
from typing import TYPE_CHECKING, Any

from desktop_app.runtime.errors import SwitchboardError

if TYPE_CHECKING:
    from desktop_app.runtime import events as ev
    from desktop_app.ui.chat.tool_card import ApprovalAnswer


class WindowTurns:
    """What the window does while a run goes on, and with the turns already shown."""

    controller: Any
    view: Any
    composer: Any
    find_bar: Any
    status: Any
    tasks: Any

    def _on_run_started(self, event: ev.RunStarted) -> None:
        self.set_status(f"Thinking… ({event.model})")

    def _on_content_appended(self, _text: str) -> None:
        if self.status.text() != "Answering…":
            self.set_status("Answering…")

    def _on_retry_scheduled(self, event: ev.RetryScheduled) -> None:
        from desktop_app.ui.chat.retry import retry_headline

        self.set_status(f"Waiting to retry: {retry_headline(event.retry)}")

    def _on_approval_required(self, event: ev.ApprovalRequired) -> None:
        self.set_status(f"Waiting for your approval: {event.tool}")

    def _on_approval_decided(self, event: ev.ApprovalDecided) -> None:
        self.set_status("Running the tool…" if event.approved else "Tool call denied")

    def _on_busy_changed(self, busy: bool) -> None:
        self.composer.set_busy(busy)
        if not busy:
            self.set_status("Ready")
            self.composer.edit.setFocus()
            from desktop_app.ui.chat.turn_actions import show_versions

            show_versions(self)  # a regenerated answer's ‹ n/m › comes once it is written

    def _on_transcript_loaded(self) -> None:
        from desktop_app.ui.chat.turn_actions import show_versions

        show_versions(self)

    def _on_stop_requested(self) -> None:
        """Esc (or Stop): stop the run; with no run, close the find bar."""
        if self.controller is not None and self.controller.busy:
            self.set_status("Stopping…")
            self.controller.stop()
        elif self.find_bar.isVisible():
            self.find_bar.close_bar()

    def _on_retry_now_requested(self) -> None:
        if self.controller is not None and self.controller.busy:
            self.set_status("Retrying now…")
            self.controller.retry_now()

    def _on_decided(self, tool_call_id: str, answer: ApprovalAnswer) -> None:
        if self.controller is None:
            return
        try:
            self.controller.answer(tool_call_id, answer)
        except (SwitchboardError, ValueError) as exc:
            self.view.approval_failed(tool_call_id)
            self.show_exception(exc)

    def _on_continue_requested(self) -> None:
        if self.controller is None or self.controller.busy:
            return
        self.set_status("Continuing…")
        self._continue_run()

    def _continue_run(self) -> None:
        """Continue the turn (Continue, Retry, regenerate): busy (Send → Stop) at once, not when the task runs."""
        if self.controller is not None:
            self.tasks.start(self._continuing(self.controller.continue_run()), name="continue")

    async def _continuing(self, run: Coroutine[Any, Any, Any]) -> None:
        try:
            await run
        except Exception:
            if self.view.paused_line is not None:  # let the user try again
                self.view.paused_line.continue_button.setEnabled(True)
            raise

    def copy_last_answer(self) -> bool:
        """Ctrl+Shift+C: the last answer's Markdown to the clipboard."""
        from PySide6.QtGui import QGuiApplication

        from desktop_app.ui.chat.blocks import AnswerBlock

        answers = [b for b in self.view.blocks() if isinstance(b, AnswerBlock) and not b.isHidden()]
        if not answers or not answers[-1].text:
            self.set_status("No answer to copy yet")
            return False
        QGuiApplication.clipboard().setText(answers[-1].text)
        self.set_status("Copied the last answer (Markdown)")
        return True

    def regenerate_last_answer(self) -> bool:
        from desktop_app.ui.chat import turn_actions

        return turn_actions.regenerate(self)

    def retry_last_run(self) -> bool:
        from desktop_app.ui.chat import turn_actions

        return turn_actions.retry(self)

    def edit_and_resend(self, from_end: int, text: str) -> bool:
        from desktop_app.ui.chat import turn_actions

        return turn_actions.edit_and_resend(self, from_end, text)

    def switch_version(self, from_end: int, version: int, *, answer: bool = False) -> bool:
        from desktop_app.ui.chat import turn_actions

        return turn_actions.switch_version(self, from_end, version, answer=answer)

    def delete_turn(self, from_end: int) -> bool:
        from desktop_app.ui.chat import turn_actions

        return turn_actions.delete_turn(self, from_end)
