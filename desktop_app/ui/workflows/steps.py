"""A workflow run in the chat: its name and state, then one row per step (pending, running, done, skipped,
failed), each step a collapsible sub-conversation holding its sub-run (the prompt, the answer, its tool cards
and their approvals, live through the view's ``nested`` router, or read from the store after a restart), and
the filled Output at the end.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtWidgets import QFrame, QLabel, QVBoxLayout, QWidget

from desktop_app.ui.chat.common import ERROR_COLOR, OK_COLOR, escape
from desktop_app.ui.chat.subagents import SubConversation, SubTranscript

STEP_TEXT = {
    "pending": "Pending",
    "running": "Running…",
    "done": "Done",
    "skipped": "Skipped",
    "failed": "Failed",
}
RUN_TEXT = {
    "running": "Running",
    "finished": "Finished",
    "failed": "Failed",
    "cancelled": "Stopped",
    "interrupted": "Interrupted (the app closed while it ran)",
}
STEP_STATE = {"running": "running", "done": "finished", "failed": "failed"}
"""A step's status as the sub-conversation's state (its colour); pending and skipped keep their own text."""


class StepRow(SubConversation):
    """One step: ``N. Name``, its status (and why it was skipped or failed), and its sub-run."""

    def __init__(self, number: int, name: str, parent: QWidget | None = None) -> None:
        super().__init__(name, parent=parent)
        self.setObjectName("workflowStep")
        self.step_name = name
        self.title.setText(f"<b>{number}. {escape(name)}</b>")
        self.title.setObjectName("workflowStepTitle")
        self.toggle.setToolTip("Show or hide what this step did")
        self.toggle.setAccessibleName(f"Show or hide the step {name}")
        self.detail = QLabel("")
        self.detail.setObjectName("workflowStepDetail")
        self.detail.setWordWrap(True)
        self.detail.setStyleSheet("QLabel { color: palette(placeholder-text); }")
        self.detail.hide()
        box = self.layout()
        assert isinstance(box, QVBoxLayout)
        box.insertWidget(1, self.detail)
        self.step_status = "pending"
        self.set_expanded(False)
        self.show_status("pending")

    def show_status(self, status: str, detail: str = "") -> None:
        self.step_status = status
        if status in STEP_STATE:
            self.set_state(STEP_STATE[status])
        self.status.setText(STEP_TEXT.get(status, status))
        color = OK_COLOR if status == "done" else ERROR_COLOR if status == "failed" else None
        self.status.setStyleSheet(f"color: {color};" if color else "color: palette(placeholder-text);")
        self.status.setAccessibleName(f"Status of the step {self.step_name}: {STEP_TEXT.get(status, status)}")
        self.detail.setText(escape(detail))
        self.detail.setVisible(bool(detail))


class WorkflowRunBlock(QFrame):
    """One workflow run in the transcript (live from its events, or rebuilt from its record)."""

    def __init__(self, workflow: str, steps: list[str], run_id: str = "", parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("workflowRun")
        self.setAccessibleName(f"Workflow {workflow}")
        self.setStyleSheet(
            "QFrame#workflowRun { border: 1px solid palette(mid); border-radius: 6px; background: palette(base); }"
        )
        self.run_id = run_id
        self.workflow = workflow
        layout = QVBoxLayout(self)
        layout.setContentsMargins(10, 8, 10, 8)
        layout.setSpacing(4)
        self.title = QLabel(f"<b>Workflow</b> {escape(workflow)}")
        self.title.setObjectName("workflowRunTitle")
        layout.addWidget(self.title)
        self.state = QLabel("")
        self.state.setObjectName("workflowRunState")
        self.state.setWordWrap(True)
        layout.addWidget(self.state)
        self.steps = [StepRow(i, name) for i, name in enumerate(steps, start=1)]
        for row in self.steps:
            layout.addWidget(row)
        from desktop_app.ui.chat.markdown_view import MarkdownView  # with the first run, not at start-up

        self.output = MarkdownView()
        self.output.setObjectName("workflowOutput")
        self.output.setAccessibleName(f"The output of the workflow {workflow}")
        self.output.hide()
        layout.addWidget(self.output)
        self.status = "running"
        self.show_run_status("running")

    def show_run_status(self, status: str, error: str = "") -> None:
        self.status = status
        text = RUN_TEXT.get(status, status)
        done = sum(1 for row in self.steps if row.step_status == "done")
        if status != "running":
            text += f" · {done} of {len(self.steps)} steps done"
        if error:
            text += f" · {error}"
        color = OK_COLOR if status == "finished" else ERROR_COLOR if status in ("failed", "cancelled") else None
        self.state.setText(escape(text))
        self.state.setStyleSheet(f"color: {color};" if color else "color: palette(placeholder-text);")

    def show_step(self, index: int, status: str, detail: str = "") -> StepRow | None:
        if not 0 <= index < len(self.steps):
            return None
        row = self.steps[index]
        row.show_status(status, detail)
        return row

    def show_output(self, text: str) -> None:
        if text:
            self.output.set_markdown(text)
            self.output.show()

    @classmethod
    def from_record(
        cls, record: Any, loader: Callable[[str], Callable[[SubTranscript], None] | None]
    ) -> WorkflowRunBlock:
        """The block of a stored run (``WorkflowRunRecord``); ``loader(child conversation)`` reads a step's sub-run
        into its body when the step is first opened (``None``: nothing stored)."""
        block = cls(record.workflow, [s.name for s in record.steps], record.run_id)
        for index, step in enumerate(record.steps):
            row = block.show_step(index, step.status, step.detail)
            load = loader(step.child_conversation_id) if row is not None and step.child_conversation_id else None
            if row is not None and load is not None:
                row.load_later(load)
        block.show_run_status(record.status, record.error if record.status != "finished" else "")
        block.show_output(record.output)
        return block


__all__ = ["RUN_TEXT", "STEP_TEXT", "StepRow", "WorkflowRunBlock"]
