"""Workflows in the window: the step list in the chat (:mod:`.chat`, :mod:`.steps`) and the Workflows page
(:mod:`.dialog`, View → Workflows…). :func:`install_workflows` wires both into a window whose runtime is attached.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QObject
from PySide6.QtGui import QAction

if TYPE_CHECKING:
    from desktop_app.runtime.workflows.wiring import Workflows
    from desktop_app.ui.window.main_window import MainWindow
    from desktop_app.ui.workflows.chat import WorkflowChat
    from desktop_app.ui.workflows.dialog import WorkflowsDialog


class WorkflowsUi(QObject):
    """What :func:`install_workflows` adds: the chat's workflow runs, the menu action and the page (a child of the
    window, so it lives as long as the window does)."""

    def __init__(self, window: MainWindow, workflows: Workflows) -> None:
        from desktop_app.ui.window.menus import order_menus, view_menu
        from desktop_app.ui.workflows.chat import WorkflowChat

        super().__init__(window)
        self.setObjectName("workflowsUi")
        self.window = window
        self.workflows = workflows
        self.chat: WorkflowChat = WorkflowChat(window, workflows)
        self.dialog: WorkflowsDialog | None = None
        self.action = QAction("&Workflows…", window)
        self.action.setObjectName("workflowsAction")
        self.action.setStatusTip("List the workflows and run one")
        self.action.triggered.connect(self.open_dialog)
        view_menu(window).addAction(self.action)
        order_menus(window)

    def open_dialog(self) -> WorkflowsDialog:
        from shiboken6 import isValid

        from desktop_app.ui.workflows.dialog import WorkflowsDialog

        if self.dialog is None or not isValid(self.dialog):
            self.dialog = WorkflowsDialog(self.workflows.load, self.chat.start, self.window)
        else:
            self.dialog.refresh()
        self.dialog.show()
        self.dialog.raise_()
        return self.dialog


def install_workflows(window: MainWindow, workflows: Workflows) -> WorkflowsUi:
    """Wire workflows into ``window`` (after ``attach_runtime``)."""
    return WorkflowsUi(window, workflows)


__all__ = ["WorkflowsUi", "install_workflows"]
