"""Tasks in the window: the Tasks page (:mod:`.page`, View → Tasks…), the task form (:mod:`.editor`), and
:class:`TasksUi`, which follows the task runs: a finished run raises a notification with the first line of its
answer (the tray's ``showMessage``; clicking it opens the run's conversation), the tray menu lists the runs in
progress, and opening a run that waits for an approval shows its approval card, answered there as any other.
:func:`install_tasks` wires it into a window whose runtime is attached.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QMenu

if TYPE_CHECKING:
    from desktop_app.runtime.tasks import Task, TaskRun, Tasks
    from desktop_app.ui.tasks.editor import TaskEditor
    from desktop_app.ui.tasks.page import TasksPage
    from desktop_app.ui.tray.desktop import DesktopShell
    from desktop_app.ui.window.main_window import MainWindow

log = logging.getLogger(__name__)

ENDED_TITLES = {
    "finished": "Task finished",
    "failed": "Task failed",
    "cancelled": "Task stopped",
    "interrupted": "Task interrupted",
    "missed": "Task missed",
}


class TasksUi(QObject):
    """The page, the notifications and the tray's "runs in progress" for one window."""

    run_changed = Signal(object)
    """A task run started, waits for an approval or ended (a ``TaskRun``)."""
    notified = Signal(str, str, str)
    """A notification was raised: (conversation id, title, text)."""

    def __init__(
        self, window: MainWindow, tasks: Tasks, *, shell: DesktopShell | None = None, recorder: Any = None
    ) -> None:
        from desktop_app.ui.window.menus import order_menus, view_menu

        super().__init__(window)
        self.setObjectName("tasksUi")
        self.window = window
        self.tasks = tasks
        self.shell = shell
        self.recorder = recorder
        self.page: TasksPage | None = None
        self.editor: TaskEditor | None = None
        self.notifications: list[tuple[str, str, str]] = []
        self.action = QAction("Tas&ks…", window)
        self.action.setObjectName("tasksAction")
        self.action.setStatusTip("Scheduled and background tasks: their schedule, next run and history")
        self.action.triggered.connect(self.open_page)
        view_menu(window).addAction(self.action)
        order_menus(window)
        self.tray_menu: QMenu | None = None
        if shell is not None:
            self.tray_menu = QMenu("Task runs")
            self.tray_menu.setObjectName("trayTaskRunsMenu")
            self.tray_menu.menuAction().setVisible(False)
            shell.tray.menu.insertMenu(shell.tray.pause_action, self.tray_menu)
        self._unlisten = tasks.runner.add_listener(self._on_run)
        self.destroyed.connect(lambda: self._unlisten())
        self._say_interrupted()

    # -- the page ------------------------------------------------------------------------------------------

    def open_page(self) -> TasksPage:
        from shiboken6 import isValid

        from desktop_app.ui.tasks.page import TasksPage

        if self.page is None or not isValid(self.page):
            self.page = TasksPage(self.tasks, self.open_run, self.open_editor, self.window)
            self._say_interrupted()
        else:
            self.page.refresh()
        self.page.show()
        self.page.raise_()
        return self.page

    def open_editor(self, task: Task | None) -> TaskEditor:
        from desktop_app.runtime.tasks.schedule import local_zone
        from desktop_app.ui.tasks.editor import TaskEditor

        def save(fields: dict[str, Any]) -> object:
            if task is None:
                return self.tasks.create(**fields)
            return self.tasks.update(task.id, **fields)

        parent = self.page if self.page is not None else self.window
        self.editor = TaskEditor(save, local_zone(), parent, task)
        self.editor.accepted.connect(self._refresh_page)
        self.editor.show()
        return self.editor

    def _refresh_page(self) -> None:
        from shiboken6 import isValid

        if self.page is not None and isValid(self.page):
            self.page.refresh()

    def _say_interrupted(self) -> None:
        cut = self.tasks.interrupted
        if cut and self.page is not None:
            self.page.say(
                f"{len(cut)} task run(s) were cut short when Switchboard last stopped; they are marked "
                "interrupted in their history, with their partial answers."
            )

    # -- runs ----------------------------------------------------------------------------------------------

    def open_run(self, conversation_id: str) -> None:
        """Show a run's conversation in the window; an approval it waits for is shown there to be answered."""
        if self.shell is not None:
            self.shell.open_conversation(conversation_id)
        else:
            if self.recorder is not None:
                self.recorder.flush()
            self.window.show()
            self.window.conversations.refresh()
            self.window.open_conversation(conversation_id)
        runtime: Any = self.window.runtime
        for event in self.tasks.runner.waiting_approvals(conversation_id):
            runtime.notify(event)  # re-arms the approval card the reopened transcript shows

    def _on_run(self, run: TaskRun) -> None:
        if self.shell is not None and run.conversation_id:
            self.shell.quiet_outcomes.add(run.conversation_id)  # this UI says it, with the task's name
        self._refresh_page()
        self._show_tray_runs()
        if run.status in ENDED_TITLES and (run.conversation_id or run.status == "missed"):
            self._notify(run)
        self.run_changed.emit(run)

    def _notify(self, run: TaskRun) -> None:
        try:
            name = self.tasks.find(run.task_id).name
        except ValueError:
            name = "a deleted task"
        title = f"{ENDED_TITLES[run.status]}: {name}"
        text = run.first_line or run.note or "Click to open the conversation."
        from desktop_app.log import redact

        title, text = redact(title), redact(text[:200])
        cid = run.conversation_id or ""
        self.notifications.append((cid, title, text))
        log.info("task notification: %s", title)
        settings = getattr(self.window.runtime, "settings", None)
        if self.shell is not None and (settings is None or settings.notifications):
            self.shell.tray.notify(cid, title, text, warning=run.status != "finished")
        self.notified.emit(cid, title, text)

    def _show_tray_runs(self) -> None:
        menu = self.tray_menu
        if menu is None:
            return
        menu.clear()
        active = self.tasks.runner.active()
        for run in active:
            try:
                name = self.tasks.find(run.task_id).name
            except ValueError:
                continue
            state = "waiting for you" if run.status == "waiting" else "running"
            action = menu.addAction(f"{name} — {state}")
            cid = run.conversation_id or ""
            action.triggered.connect(lambda _checked=False, c=cid: self.open_run(c))
        menu.setTitle(f"Task runs ({len(active)})")
        menu.menuAction().setVisible(bool(active))


def install_tasks(
    window: MainWindow, tasks: Tasks, *, shell: DesktopShell | None = None, recorder: Any = None
) -> TasksUi:
    """Wire tasks into ``window`` (after ``attach_runtime``); the scheduler is started by the caller."""
    return TasksUi(window, tasks, shell=shell, recorder=recorder)


__all__ = ["TasksUi", "install_tasks"]
