"""The Servers dock around the :class:`~.panel.ServersPanel`: View → Servers, the status bar's "MCP: …"
indicator (a click shows or hides the panel) and the server notifications in the status bar, cleared once
their state is over. :func:`install_servers_dock` adds it (hidden) to the main window.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDockWidget, QMainWindow, QToolButton

from desktop_app.ui.asyncqt import TaskRunner
from desktop_app.ui.chat.common import ERROR_COLOR
from desktop_app.ui.servers.panel import ServersPanel
from desktop_app.ui.window.menus import view_menu

NOTIFY_MS = 30_000
"""How long a server notification stays in the status bar (it goes sooner once its state is over)."""
INDICATOR_TIP = "MCP servers (yours, and the built-in ones apart) — click to show or hide the Servers panel"


class ServersDock(QDockWidget):
    """The "Servers" dock with its status-bar indicator; notifications go to the window's status bar."""

    def __init__(self, window: QMainWindow, *, tasks: TaskRunner | None = None) -> None:
        super().__init__("Servers", window)
        self.setObjectName("serversDock")
        self._main_window = window
        self.panel = ServersPanel(self, tasks=tasks)
        self.setWidget(self.panel)
        self.setMinimumWidth(320)
        self.indicator = QToolButton()
        self.indicator.setObjectName("mcpIndicator")
        self.indicator.setAutoRaise(True)
        self.indicator.setText("MCP: starting…")
        self.indicator.setAccessibleName("MCP servers status")
        self.indicator.setToolTip(INDICATOR_TIP)
        self.indicator.clicked.connect(self.toggle)
        self.panel.summary_changed.connect(self._on_summary)
        self.panel.notification.connect(self._on_notification)
        self.panel.notification_over.connect(self._on_notification_over)
        self.panel.notice.connect(self._on_notice)
        self.toggleViewAction().setText("&Servers")
        self.toggleViewAction().setObjectName("serversAction")

    def toggle(self) -> None:
        self.setVisible(not self.isVisible())
        if self.isVisible():
            self.raise_()

    def _on_summary(self, text: str, failed: bool) -> None:
        self.indicator.setText(text)
        self.indicator.setStyleSheet(f"color: {ERROR_COLOR};" if failed else "")

    def _on_notification(self, text: str) -> None:
        self.indicator.setToolTip(text)
        self._main_window.statusBar().showMessage(text, NOTIFY_MS)

    def _on_notification_over(self, server: str) -> None:
        """Clear the status bar's notice about ``server`` once that state is over (e.g. it is ready again)."""
        bar = self._main_window.statusBar()
        if f"MCP server '{server}' " in bar.currentMessage():
            bar.clearMessage()
        if f"MCP server '{server}' " in self.indicator.toolTip():
            self.indicator.setToolTip(INDICATOR_TIP)

    def _on_notice(self, text: str) -> None:
        self._main_window.statusBar().showMessage(text, NOTIFY_MS)


def install_servers_dock(window: QMainWindow, tasks: TaskRunner | None = None) -> ServersDock:
    """Add the (hidden) Servers dock, View → Servers and the status-bar indicator to ``window``."""
    dock = ServersDock(window, tasks=tasks)
    window.addDockWidget(Qt.DockWidgetArea.RightDockWidgetArea, dock)
    dock.hide()
    from desktop_app.ui.window.side_panel import make_side_panel

    make_side_panel(dock, "servers", "Servers")  # header: icon, title, collapse (Ctrl+Shift+S)
    view_menu(window).addAction(dock.toggleViewAction())
    window.statusBar().addPermanentWidget(dock.indicator)
    return dock


__all__ = ["INDICATOR_TIP", "NOTIFY_MS", "ServersDock", "install_servers_dock"]
