"""The main window's run controls: the controller's signals in the status bar, stop/retry/continue, approval
answers, and the per-turn actions (copy, regenerate, retry, edit and resend, versions, delete).

:class:`TurnControl` is one collaborator of :class:`~desktop_app.ui.window.main_window.MainWindow`
(``window.turns``); it reads the window's ``controller``, ``view``, ``composer``, ``find_bar``, ``status`` and
``tasks``. The turn actions themselves live in ``ui.chat.turn_actions``.
"""

from __future__ import annotations

from collections.abc import Coroutine
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from desktop_app.runtime import events as ev
    from desktop_app.ui.chat.tool_card import ApprovalAnswer
    from desktop_app.ui.window.main_window import MainWindow


class TurnControl:
    """What the window does while a run goes on, and with the turns already shown."""

    def __init__(self, window: MainWindow) -> None:
        self.window = window

    def connect(self, controller: Any) -> None:
        """The controller's run signals and the view's per-turn requests, to this object's slots."""
        view = self.window.view
        controller.run_started.connect(self.on_run_started)
        controller.content_appended.connect(self.on_content_appended)
        controller.approval_required.connect(self.on_approval_required)
        controller.retry_scheduled.connect(self.on_retry_scheduled)
        controller.approval_decided.connect(self.on_approval_decided)
        controller.busy_changed.connect(self.on_busy_changed)
        view.decided.connect(self.on_decided)
        view.retry_now_requested.connect(self.on_retry_now_requested)
        view.stop_requested.connect(self.on_stop_requested)
        view.continue_requested.connect(self.on_continue_requested)
        view.regenerate_requested.connect(self.regenerate_last_answer)
        view.retry_run_requested.connect(self.retry_last_run)
        view.delete_turn_requested.connect(self.delete_turn)
        view.edit_requested.connect(self.edit_and_resend)
        view.version_requested.connect(self.switch_version)
        view.transcript_loaded.connect(self.show_versions)  # "Show earlier": the answers' ‹ n/m ›

    def on_run_started(self, event: ev.RunStarted) -> None:
        self.window.set_status(f"Thinking… ({event.model})")

    def on_content_appended(self, _text: str) -> None:
        if self.window.status.text() != "Answering…":
            self.window.set_status("Answering…")

    def on_retry_scheduled(self, event: ev.RetryScheduled) -> None:
        from desktop_app.ui.chat.retry import retry_headline

        self.window.set_status(f"Waiting to retry: {retry_headline(event.retry)}")

    def on_approval_required(self, event: ev.ApprovalRequired) -> None:
        self.window.set_status(f"Waiting for your approval: {event.tool}")

    def on_approval_decided(self, event: ev.ApprovalDecided) -> None:
        self.window.set_status("Running the tool…" if event.approved else "Tool call denied")

    def on_busy_changed(self, busy: bool) -> None:
        w = self.window
        w.composer.set_busy(busy)
        if not busy:
            w.set_status("Ready")
            w.composer.edit.setFocus()
            self.show_versions()  # a regenerated answer's ‹ n/m › comes once it is written

    def show_versions(self) -> None:
        from desktop_app.ui.chat.turn_actions import show_versions

        show_versions(self.window)

    def on_stop_requested(self) -> None:
        """Esc (or Stop): stop the run; with no run, close the find bar."""
        w = self.window
        if w.controller is not None and w.controller.busy:
            w.set_status("Stopping…")
            w.controller.stop()
        elif w.find_bar.isVisible():
            w.find_bar.close_bar()

    def on_retry_now_requested(self) -> None:
        w = self.window
        if w.controller is not None and w.controller.busy:
            w.set_status("Retrying now…")
            w.controller.retry_now()

    def on_decided(self, tool_call_id: str, answer: ApprovalAnswer) -> None:
        w = self.window
        if w.controller is None:
            return
        from desktop_app.runtime.errors import SwitchboardError

        try:
            w.controller.answer(tool_call_id, answer)
        except (SwitchboardError, ValueError) as exc:
            w.view.approval_failed(tool_call_id)
            w.show_exception(exc)

    def on_continue_requested(self) -> None:
        w = self.window
        if w.controller is None or w.controller.busy:
            return
        w.set_status("Continuing…")
        self.continue_run()

    def continue_run(self) -> None:
        """Continue the turn (Continue, Retry, regenerate): busy (Send → Stop) at once, not when the task runs."""
        w = self.window
        if w.controller is not None:
            w.tasks.start(self._continuing(w.controller.continue_run()), name="continue")

    async def _continuing(self, run: Coroutine[Any, Any, Any]) -> None:
        try:
            await run
        except Exception:
            paused = self.window.view.paused_line
            if paused is not None:  # let the user try again
                paused.continue_button.setEnabled(True)
            raise

    def copy_last_answer(self) -> bool:
        """Ctrl+Shift+C: the last answer's Markdown to the clipboard."""
        from PySide6.QtGui import QGuiApplication

        from desktop_app.ui.chat.blocks import AnswerBlock

        w = self.window
        answers = [b for b in w.view.blocks() if isinstance(b, AnswerBlock) and not b.isHidden()]
        if not answers or not answers[-1].text:
            w.set_status("No answer to copy yet")
            return False
        QGuiApplication.clipboard().setText(answers[-1].text)
        w.set_status("Copied the last answer (Markdown)")
        return True

    def regenerate_last_answer(self) -> bool:
        from desktop_app.ui.chat import turn_actions

        return turn_actions.regenerate(self.window)

    def retry_last_run(self) -> bool:
        from desktop_app.ui.chat import turn_actions

        return turn_actions.retry(self.window)

    def edit_and_resend(self, from_end: int, text: str) -> bool:
        from desktop_app.ui.chat import turn_actions

        return turn_actions.edit_and_resend(self.window, from_end, text)

    def switch_version(self, from_end: int, version: int, *, answer: bool = False) -> bool:
        from desktop_app.ui.chat import turn_actions

        return turn_actions.switch_version(self.window, from_end, version, answer=answer)

    def delete_turn(self, from_end: int) -> bool:
        from desktop_app.ui.chat import turn_actions

        return turn_actions.delete_turn(self.window, from_end)
