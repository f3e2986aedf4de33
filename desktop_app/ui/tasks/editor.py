"""The task form (New… / Edit… on the Tasks page): name, a prompt or a workflow with inputs, the agent, the
schedule (a cron line or "now", read back in words as it is typed), the zone and the expiration date.

Save hands the fields to ``save(fields)``; a :class:`~desktop_app.runtime.tasks.TaskError` it raises is shown
under the form (what is wrong, what to write) and the form stays open.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QVBoxLayout,
    QWidget,
)

if TYPE_CHECKING:
    from desktop_app.runtime.tasks import Task

Save = Callable[[dict[str, Any]], object]
PRESETS = (
    ("Every weekday at 09:00", "0 9 * * 1-5"),
    ("Every day at 08:00", "0 8 * * *"),
    ("Every Monday at 09:00", "0 9 * * 1"),
    ("Monthly on the 1st at 08:00", "0 8 1 * *"),
    ("Now, then on request", "now"),
)


def _inputs_text(inputs: dict[str, str]) -> str:
    return ", ".join(f"{k}={v}" for k, v in inputs.items())


def parse_inputs(text: str) -> dict[str, str]:
    """``"a=1, b=2"`` as a mapping (a piece without ``=`` is refused by the task's validation as a name)."""
    out: dict[str, str] = {}
    for piece in filter(None, (p.strip() for p in text.split(","))):
        key, _, value = piece.partition("=")
        out[key.strip()] = value.strip()
    return out


class TaskEditor(QDialog):
    """The form; ``task`` given: editing it (its values filled in)."""

    def __init__(self, save: Save, zone: str, parent: QWidget | None = None, task: Task | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("taskEditor")
        self.setWindowTitle("Edit task" if task is not None else "New task")
        self.save = save
        layout = QVBoxLayout(self)
        form = QFormLayout()
        self.name = QLineEdit(task.name if task else "")
        self.name.setObjectName("taskName")
        form.addRow("&Name:", self.name)
        self.kind = QComboBox()
        self.kind.addItems(["Prompt", "Workflow"])
        self.kind.setAccessibleName("What the task runs")
        form.addRow("&Runs:", self.kind)
        self.prompt = QPlainTextEdit(task.prompt if task else "")
        self.prompt.setObjectName("taskPrompt")
        self.prompt.setAccessibleName("Prompt")
        self.prompt.setTabChangesFocus(True)
        self.prompt.setFixedHeight(90)
        form.addRow("&Prompt:", self.prompt)
        self.workflow = QLineEdit(task.workflow or "" if task else "")
        self.workflow.setObjectName("taskWorkflow")
        form.addRow("&Workflow:", self.workflow)
        self.inputs = QLineEdit(_inputs_text(dict(task.inputs)) if task else "")
        self.inputs.setPlaceholderText("name=value, name=value")
        form.addRow("&Inputs:", self.inputs)
        self.agent = QLineEdit(task.agent if task else "")
        self.agent.setPlaceholderText("the default agent")
        form.addRow("&Agent:", self.agent)
        self.preset = QComboBox()
        self.preset.addItem("Choose a common schedule…", "")
        for words, cron in PRESETS:
            self.preset.addItem(words, cron)
        self.preset.currentIndexChanged.connect(self._use_preset)
        form.addRow("", self.preset)
        schedule = task.schedule if task else None
        self.schedule = QLineEdit(schedule.cron if schedule else ("now" if task else "0 9 * * 1-5"))
        self.schedule.setObjectName("taskSchedule")
        self.schedule.setToolTip("M H * * * (daily), M H * * 1-5 (weekly), M H D * * (monthly), M H D MONTH * (once)")
        form.addRow("&Schedule:", self.schedule)
        self.zone = QLineEdit(schedule.zone if schedule else zone)
        self.zone.setObjectName("taskZone")
        form.addRow("&Time zone:", self.zone)
        expires = schedule.expires if schedule is not None and schedule.kind != "once" else None
        self.expires = QLineEdit(expires.isoformat() if expires else "")
        self.expires.setPlaceholderText("YYYY-MM-DD (optional)")
        form.addRow("&Expires:", self.expires)
        self.words = QLabel("")
        self.words.setObjectName("taskScheduleWords")
        form.addRow("", self.words)
        layout.addLayout(form)
        self.error = QLabel("")
        self.error.setObjectName("taskError")
        self.error.setWordWrap(True)
        self.error.setProperty("tone", "danger")
        self.error.hide()
        layout.addWidget(self.error)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self.submit)
        buttons.rejected.connect(self.reject)
        layout.addWidget(buttons)
        self.kind.setCurrentIndex(1 if task is not None and task.workflow else 0)
        self.kind.currentIndexChanged.connect(self._show_kind)
        self.schedule.textChanged.connect(self._show_words)
        self.zone.textChanged.connect(self._show_words)
        self.expires.textChanged.connect(self._show_words)
        self._show_kind()
        self._show_words()

    def _use_preset(self) -> None:
        cron = self.preset.currentData()
        if cron:
            self.schedule.setText(str(cron))

    def _show_kind(self) -> None:
        workflow = self.kind.currentIndex() == 1
        self.prompt.setEnabled(not workflow)
        self.workflow.setEnabled(workflow)
        self.inputs.setEnabled(workflow)

    def _show_words(self) -> None:
        from desktop_app.runtime.tasks.schedule import Schedule, ScheduleError, parse_date

        text = self.schedule.text().strip()
        if text.lower() == "now":
            self.words.setText("Runs once when saved, then only when you choose Run now.")
            return
        try:
            until = parse_date(self.expires.text()) if self.expires.text().strip() else None
            self.words.setText(Schedule.parse(text, self.zone.text().strip() or "UTC", expires=until).describe())
        except ScheduleError as exc:
            self.words.setText(str(exc))

    def fields(self) -> dict[str, Any]:
        workflow = self.kind.currentIndex() == 1
        return {
            "name": self.name.text(),
            "prompt": "" if workflow else self.prompt.toPlainText(),
            "workflow": self.workflow.text().strip() if workflow else "",
            "inputs": parse_inputs(self.inputs.text()) if workflow else {},
            "agent": self.agent.text().strip(),
            "schedule": self.schedule.text().strip(),
            "zone": self.zone.text().strip() or "UTC",
            "expires": self.expires.text().strip(),
        }

    def submit(self) -> None:
        from desktop_app.runtime.tasks import TaskError

        try:
            self.save(self.fields())
        except TaskError as exc:
            self.error.setText(str(exc))
            self.error.show()
            return
        self.accept()
