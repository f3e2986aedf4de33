"""The Tasks page (View → Tasks…): every task with its schedule in words, next run and last result; enable or
disable one (its check box), New…, Edit…, Run now, Delete; the selected task's history below (double-click a
run to open its conversation). Runs cut short by a stopped app, fire times missed while it was closed and fires
skipped because a run was still going are listed with their reason. It refreshes on every run change.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import (
    QDialog,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

if TYPE_CHECKING:
    from desktop_app.runtime.tasks import Task, TaskRun, Tasks

COLUMNS = ("Task", "Schedule", "Next run", "Last result")


def when(instant: float | None, task: Task | None = None) -> str:
    if instant is None:
        return "—"
    zone = task.schedule.tz if task is not None and task.schedule is not None else None
    return datetime.fromtimestamp(instant, zone).strftime("%Y-%m-%d %H:%M")


def next_text(task: Task) -> str:
    if not task.enabled:
        return "disabled"
    if task.schedule is None:
        return "on request"
    nxt = task.next_run()
    return "expired" if nxt is None else when(nxt, task)


def run_line(run: TaskRun, task: Task | None = None) -> str:
    from desktop_app.runtime.tasks.server import result_text

    trigger = {"schedule": "", "catch_up": " (catch-up)", "manual": " (run now)"}[run.trigger]
    live = {"running": "running…", "waiting": "waiting for you"}.get(run.status)
    return f"{when(run.started_at, task)}{trigger}  {live or result_text(run)}"


class TasksPage(QDialog):
    """The page over ``tasks``; ``open_run(conversation_id)`` shows a run's conversation; ``edit(task)`` opens
    the form (``None``: a new task)."""

    def __init__(
        self,
        tasks: Tasks,
        open_run: Callable[[str], None],
        edit: Callable[[Task | None], Any],
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("tasksPage")
        self.setWindowTitle("Tasks")
        self.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self.resize(900, 560)
        self.tasks = tasks
        self.open_run = open_run
        self.edit = edit
        self._filling = False
        layout = QVBoxLayout(self)
        self.notice = QLabel("")
        self.notice.setObjectName("tasksNotice")
        self.notice.setWordWrap(True)
        self.notice.hide()
        layout.addWidget(self.notice)
        self.table = QTreeWidget()
        self.table.setObjectName("taskTable")
        self.table.setAccessibleName("Tasks")
        self.table.setRootIsDecorated(False)
        self.table.setHeaderLabels(list(COLUMNS))
        self.table.setColumnWidth(0, 200)
        self.table.setColumnWidth(1, 300)
        self.table.setColumnWidth(2, 130)
        self.table.currentItemChanged.connect(lambda _n, _o: self.show_history())
        self.table.itemChanged.connect(self._on_item_changed)
        self.table.itemDoubleClicked.connect(lambda _i, _c: self._edit_selected())
        layout.addWidget(self.table, 3)
        buttons = QHBoxLayout()
        self.new_button = self._button("&New…", "newTaskButton", lambda: self.edit(None), buttons)
        self.edit_button = self._button("&Edit…", "editTaskButton", self._edit_selected, buttons)
        self.run_button = self._button("&Run now", "runTaskButton", self.run_selected, buttons)
        self.delete_button = self._button("&Delete", "deleteTaskButton", self.delete_selected, buttons)
        self.delete_button.setProperty("kind", "danger")
        buttons.addStretch(1)
        self._button("Close", "closeTasksButton", self.close, buttons)
        layout.addLayout(buttons)
        self.history_label = QLabel("History")
        layout.addWidget(self.history_label)
        self.history = QListWidget()
        self.history.setObjectName("taskHistory")
        self.history.setAccessibleName("Runs of the selected task, newest first")
        self.history.itemActivated.connect(self._open_item)
        self.history.itemDoubleClicked.connect(self._open_item)
        layout.addWidget(self.history, 2)
        self.error = QLabel("")
        self.error.setObjectName("tasksError")
        self.error.setProperty("tone", "danger")
        self.error.setWordWrap(True)
        self.error.hide()
        layout.addWidget(self.error)
        self.refresh()

    def _button(self, text: str, name: str, slot: Callable[[], object], row: QHBoxLayout) -> QPushButton:
        button = QPushButton(text)
        button.setObjectName(name)
        button.clicked.connect(lambda: slot())
        row.addWidget(button)
        return button

    def refresh(self) -> None:
        selected = self.selected_id()
        tasks, last = self.tasks.all(), self.tasks.last_runs()
        self._filling = True
        self.table.clear()
        for task in tasks:
            run = last.get(task.id)
            item = QTreeWidgetItem(
                [task.name, task.when(), next_text(task), run_line(run, task) if run is not None else "never run"]
            )
            item.setData(0, Qt.ItemDataRole.UserRole, task.id)
            item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
            item.setCheckState(0, Qt.CheckState.Checked if task.enabled else Qt.CheckState.Unchecked)
            item.setToolTip(0, f"{task.body}\nThe check box enables or disables the task.")
            self.table.addTopLevelItem(item)
            if task.id == selected:
                self.table.setCurrentItem(item)
        self._filling = False
        first = self.table.topLevelItem(0)
        if self.table.currentItem() is None and first is not None:
            self.table.setCurrentItem(first)
        has = self.table.currentItem() is not None
        for button in (self.edit_button, self.run_button, self.delete_button):
            button.setEnabled(has)
        if not tasks:
            self.notice.setText(
                "No tasks yet. New… sets one up: a prompt or a workflow that runs on a schedule in the background, "
                "each run a conversation, with a notification when it is done."
            )
            self.notice.show()
        self.show_history()

    def say(self, text: str) -> None:
        self.notice.setText(text)
        self.notice.setVisible(bool(text))

    def selected_id(self) -> str | None:
        item = self.table.currentItem()
        value = item.data(0, Qt.ItemDataRole.UserRole) if item is not None else None
        return str(value) if value else None

    def select(self, task_id: str) -> None:
        for row in range(self.table.topLevelItemCount()):
            item = self.table.topLevelItem(row)
            if item is not None and item.data(0, Qt.ItemDataRole.UserRole) == task_id:
                self.table.setCurrentItem(item)

    def show_history(self) -> None:
        self.history.clear()
        task_id = self.selected_id()
        if task_id is None:
            return
        try:
            task = self.tasks.find(task_id)
        except ValueError:
            return
        self.history_label.setText(f"History of {task.name}")
        for run in self.tasks.history(task_id):
            item = QListWidgetItem(run_line(run, task))
            item.setData(Qt.ItemDataRole.UserRole, run.conversation_id or "")
            tip = "\n\n".join(t for t in (run.note, run.answer[:400]) if t)
            item.setToolTip(tip if run.conversation_id else (tip or "") + "\nNo conversation: nothing ran.")
            self.history.addItem(item)

    def _open_item(self, item: QListWidgetItem) -> None:
        conversation = item.data(Qt.ItemDataRole.UserRole)
        if conversation:
            self.open_run(str(conversation))

    def _on_item_changed(self, item: QTreeWidgetItem, column: int) -> None:
        if self._filling or column != 0:
            return
        task_id = item.data(0, Qt.ItemDataRole.UserRole)
        self._guard(lambda: self.tasks.set_enabled(str(task_id), item.checkState(0) == Qt.CheckState.Checked))
        QTimer.singleShot(0, self.refresh)  # not now: refreshing deletes the item whose signal this is

    def _edit_selected(self) -> None:
        task_id = self.selected_id()
        if task_id is not None:
            self.edit(self.tasks.find(task_id))

    def run_selected(self) -> None:
        task_id = self.selected_id()
        if task_id is not None:
            run = self._guard(lambda: self.tasks.run_now(task_id))
            if run is not None and run.status == "skipped":
                self._show_error("It is still running; it was not started again.")
            self.refresh()

    def delete_selected(self) -> None:
        task_id = self.selected_id()
        if task_id is not None:
            self._guard(lambda: self.tasks.delete(task_id))
            self.refresh()

    def _guard(self, action: Callable[[], Any]) -> Any:
        from desktop_app.runtime.tasks import TaskError

        self.error.hide()
        try:
            return action()
        except TaskError as exc:
            self._show_error(str(exc))
            return None

    def _show_error(self, text: str) -> None:
        self.error.setText(text)
        self.error.show()
