"""The Tools dock around the :class:`~.panel.ToolPanel`: View → Tools and View → Tool search… (Ctrl+K, which
wins over text fields: :class:`_ShortcutFirst`), its side-panel header, and the width it opens at.
:func:`install_tools_dock` adds it (hidden) to the main window.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtGui import QAction, QKeyEvent, QKeySequence
from PySide6.QtWidgets import QApplication, QDockWidget, QMainWindow, QWidget

from desktop_app.ui.tools.panel import ToolPanel
from desktop_app.ui.window.menus import view_menu

DOCK_WIDTH = 560


class ToolsDock(QDockWidget):
    """The dock that holds the :class:`ToolPanel`; :meth:`open_search` shows it and focuses the search."""

    shortcut_first: QObject | None = None  # keeps Ctrl+K from the focused text field (``_ShortcutFirst``)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__("Tools", parent)
        self.setObjectName("toolsDock")
        self.panel = ToolPanel(self)
        self.setWidget(self.panel)
        self.search_action = QAction("&Tool search…", self)
        self.search_action.setObjectName("toolSearchAction")
        self.search_action.setShortcut(QKeySequence("Ctrl+K"))
        self.search_action.triggered.connect(self.open_search)

    def open_search(self) -> None:
        self.show()
        self.raise_()
        window = self.parentWidget()
        width = min(DOCK_WIDTH, window.width() * 2 // 5) if isinstance(window, QMainWindow) else 0
        if isinstance(window, QMainWindow) and self.width() < width and not self.isFloating():
            window.resizeDocks([self], [width], Qt.Orientation.Horizontal)
        self.panel.search.setFocus()
        self.panel.search.selectAll()


class _ShortcutFirst(QObject):
    """Lets ``action``'s shortcut win over text fields in ``window``: Qt's text widgets claim Ctrl+K
    ("delete to the end of the line" on X11) before window shortcuts see it.

    ShortcutOverride goes to the focus widget, so the filter sits on the focus widget alone (moved on each
    focus change), not on the application: an application filter in Python sees every event of every widget
    (paint, layout, timers), ~1 ms a frame while an answer streams."""

    def __init__(self, window: QWidget, action: QAction) -> None:
        super().__init__(window)
        self._window = window
        self._action = action
        self._watched: QWidget | None = None
        app = QApplication.instance()
        if isinstance(app, QApplication):
            app.focusChanged.connect(self._on_focus_changed)
            self._on_focus_changed(None, app.focusWidget())

    def _on_focus_changed(self, _old: QWidget | None, new: QWidget | None) -> None:
        if self._watched is not None:
            try:
                self._watched.removeEventFilter(self)
            except RuntimeError:  # the widget is already gone
                pass
            self._watched = None
        if new is not None and new.window() is self._window:
            new.installEventFilter(self)
            self._watched = new

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() != QEvent.Type.ShortcutOverride or not isinstance(event, QKeyEvent):
            return False
        if not isinstance(watched, QWidget) or watched.window() is not self._window:
            return False
        shortcut = self._action.shortcut()
        # Eaten, not accepted by the widget: the shortcut map gets the key.
        return not shortcut.isEmpty() and QKeySequence(event.keyCombination()) == shortcut


def install_tools_dock(window: QMainWindow) -> ToolsDock:
    """Add the (hidden) Tools dock and View → Tool search… (Ctrl+K) to ``window``."""
    dock = ToolsDock(window)
    window.addDockWidget(Qt.DockWidgetArea.RightDockWidgetArea, dock)
    dock.hide()
    from desktop_app.ui.window.side_panel import make_side_panel

    make_side_panel(dock, "tools", "Tools")  # header: icon, title, collapse (Ctrl+Shift+T)
    dock.toggleViewAction().setText("T&ools")
    dock.toggleViewAction().setObjectName("toolsPanelAction")
    menu = view_menu(window)
    menu.addAction(dock.toggleViewAction())
    menu.addAction(dock.search_action)
    dock.shortcut_first = _ShortcutFirst(window, dock.search_action)
    shortcuts = getattr(window, "shortcut_actions", None)
    if isinstance(shortcuts, dict):
        shortcuts["tool_search"] = dock.search_action  # Settings → Shortcuts can change Ctrl+K
    listeners = getattr(window, "settings_listeners", None)
    if isinstance(listeners, list):
        listeners.append(lambda _settings: dock.panel.schedule_refresh())  # deferral mode and thresholds
    opener = getattr(window, "open_settings_window", None)
    if opener is not None:
        dock.panel.settings_requested.connect(lambda: opener("deferral"))
    return dock


__all__ = ["DOCK_WIDTH", "ToolsDock", "install_tools_dock"]
