"""The Workflows page (View → Workflows…): every workflow found, with its description, inputs and steps, a form
for its inputs and Run; broken files are listed too, with their ``path:line: field: problem`` lines, and cannot be
run. The list is read from disk each time the page opens (and on Refresh).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from desktop_app.ui.chat.common import escape

if TYPE_CHECKING:
    from desktop_app.runtime.workflows.discovery import BrokenWorkflow, WorkflowSet
    from desktop_app.runtime.workflows.model import Workflow

RunRequest = Callable[["Workflow", Mapping[str, str]], Any]


class WorkflowsDialog(QDialog):
    """Lists the workflows ``load()`` finds; Run calls ``run(workflow, inputs)`` and closes the page."""

    def __init__(self, load: Callable[[], WorkflowSet], run: RunRequest, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("workflowsDialog")
        self.setWindowTitle("Workflows")
        self.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self.resize(760, 460)
        self.load = load
        self.run_request = run
        self.found: WorkflowSet | None = None
        self.inputs: dict[str, QLineEdit] = {}
        layout = QHBoxLayout(self)
        self.list = QListWidget()
        self.list.setObjectName("workflowList")
        self.list.setAccessibleName("Workflows")
        self.list.currentItemChanged.connect(lambda _new, _old: self.show_selected())
        layout.addWidget(self.list, 1)
        right = QVBoxLayout()
        self.about = QLabel("")
        self.about.setObjectName("workflowAbout")
        self.about.setWordWrap(True)
        self.about.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        right.addWidget(self.about)
        self.form_box = QWidget()
        self.form = QFormLayout(self.form_box)
        right.addWidget(self.form_box)
        self.problems = QPlainTextEdit()
        self.problems.setObjectName("workflowProblems")
        self.problems.setAccessibleName("What is wrong with this workflow file")
        self.problems.setReadOnly(True)
        self.problems.hide()
        right.addWidget(self.problems, 1)
        right.addStretch(1)
        buttons = QDialogButtonBox()
        self.refresh_button = QPushButton("Refresh")
        self.refresh_button.clicked.connect(self.refresh)
        buttons.addButton(self.refresh_button, QDialogButtonBox.ButtonRole.ResetRole)
        self.run_button = QPushButton("Run")
        self.run_button.setObjectName("runWorkflowButton")
        self.run_button.setDefault(True)
        self.run_button.clicked.connect(self.run_selected)
        buttons.addButton(self.run_button, QDialogButtonBox.ButtonRole.AcceptRole)
        close = buttons.addButton(QDialogButtonBox.StandardButton.Close)
        close.clicked.connect(self.close)
        right.addWidget(buttons)
        layout.addLayout(right, 2)
        self.refresh()

    def refresh(self) -> None:
        self.found = self.load()
        self.list.clear()
        for workflow in self.found.sorted():
            item = QListWidgetItem(workflow.name)
            item.setData(Qt.ItemDataRole.UserRole, ("ok", workflow.name))
            item.setToolTip(workflow.description)
            self.list.addItem(item)
        for broken in self.found.broken:
            item = QListWidgetItem(f"⚠ {broken.name} (broken)")
            item.setData(Qt.ItemDataRole.UserRole, ("broken", broken.name))
            item.setToolTip(f"{broken.file}: cannot run")
            self.list.addItem(item)
        if self.list.count():
            self.list.setCurrentRow(0)
        else:
            self.about.setText(
                "No workflows yet. Put a folder with a SKILL.md in <i>workflows/</i> of your project or of "
                "Switchboard's config folder (see the user guide's Workflows page)."
            )
            self.run_button.setEnabled(False)

    def selected(self) -> tuple[str, str] | None:
        item = self.list.currentItem()
        data = item.data(Qt.ItemDataRole.UserRole) if item is not None else None
        return (str(data[0]), str(data[1])) if isinstance(data, tuple) else None

    def select(self, name: str) -> None:
        for row in range(self.list.count()):
            data = self.list.item(row).data(Qt.ItemDataRole.UserRole)
            if isinstance(data, tuple) and data[1] == name:
                self.list.setCurrentRow(row)
                return

    def _clear_form(self) -> None:
        while self.form.rowCount():
            self.form.removeRow(0)
        self.inputs.clear()

    def show_selected(self) -> None:
        self._clear_form()
        chosen = self.selected()
        if chosen is None or self.found is None:
            return
        kind, name = chosen
        if kind == "broken":
            broken = self.found.broken_named(name)
            if broken is not None:
                self._show_broken(broken)
            return
        workflow = self.found.workflows[name]
        self.problems.hide()
        steps = "".join(f"<li>{escape(s.name)}</li>" for s in workflow.steps)
        self.about.setText(
            f"<b>{escape(workflow.name)}</b><br>{escape(workflow.description)}<br>"
            f"<span style='color: palette(placeholder-text)'>{escape(str(workflow.file))} · {escape(workflow.source)}"
            f"</span><ol>{steps}</ol>"
        )
        for item in workflow.inputs:
            edit = QLineEdit()
            edit.setObjectName(f"workflowInput-{item.name}")
            edit.setAccessibleName(f"Input {item.name}")
            edit.setToolTip(item.description)
            if item.default is not None:
                edit.setPlaceholderText(item.default)
            elif item.required:
                edit.setPlaceholderText("required")
            label = f"{item.name}{' *' if item.required else ''}"
            self.form.addRow(label, edit)
            self.inputs[item.name] = edit
        self.run_button.setEnabled(True)

    def _show_broken(self, broken: BrokenWorkflow) -> None:
        self.about.setText(f"<b>{escape(broken.name)}</b> cannot run: fix these lines in its file, then press Refresh.")
        self.problems.setPlainText("\n".join(str(p) for p in broken.problems))
        self.problems.show()
        self.run_button.setEnabled(False)

    def run_selected(self) -> None:
        chosen = self.selected()
        if chosen is None or chosen[0] != "ok" or self.found is None:
            return
        workflow = self.found.workflows[chosen[1]]
        values = {name: edit.text() for name, edit in self.inputs.items() if edit.text().strip()}
        missing = [i.name for i in workflow.inputs if i.required and i.default is None and i.name not in values]
        if missing:
            self.about.setText(
                self.about.text() + f"<p style='color: palette(link)'>Fill in: {escape(', '.join(missing))}</p>"
            )
            self.inputs[missing[0]].setFocus()
            return
        self.run_request(workflow, values)
        self.close()


__all__ = ["WorkflowsDialog"]
