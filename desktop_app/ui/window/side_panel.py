"""The side panels' chrome: Conversations, Servers and Tools as designed panels, not raw dock windows.

Each panel stays a ``QDockWidget`` (so ``window.state`` saves and restores which are open and how wide, as
before), but :func:`make_side_panel` replaces its title bar with a ``SidePanelHeader`` (the panel's icon, its
title and a collapse button) and limits its features to closing: no float button, no close cross, no
dragging the panel out of the window. Collapsing hides the panel; its View-menu action (with a keyboard
shortcut) shows it again, and collapses it too (the action is checkable).
"""

from __future__ import annotations

from PySide6.QtCore import QSize, Qt
from PySide6.QtGui import QKeySequence, QResizeEvent
from PySide6.QtWidgets import QDockWidget, QHBoxLayout, QLabel, QSizePolicy, QToolButton, QWidget

from desktop_app.ui.theme.icons import icon
from desktop_app.ui.theme.tokens import SPACE

ICON_PX = 16
SHORTCUTS = {
    "conversationsDock": "Ctrl+Shift+L",
    "serversDock": "Ctrl+Shift+S",
    "toolsDock": "Ctrl+Shift+T",
}
"""The keyboard shortcut that collapses and expands each side panel (its View-menu action's)."""


class SidePanelHeader(QWidget):
    """A side panel's header: icon, title, and the collapse button (which hides the panel)."""

    def __init__(self, dock: QDockWidget, icon_name: str, title: str) -> None:
        super().__init__(dock)
        self.setObjectName("sidePanelHeader")
        self.dock = dock
        row = QHBoxLayout(self)
        row.setContentsMargins(SPACE.md, SPACE.sm, SPACE.xs, SPACE.xs)
        row.setSpacing(SPACE.sm)
        self.icon_label = QToolButton()  # drawn by the icon engine at paint time: it follows the theme
        self.icon_label.setObjectName("sidePanelIcon")
        self.icon_label.setAutoRaise(True)
        self.icon_label.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.icon_label.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents)
        self.icon_label.setIcon(icon(icon_name, "text"))
        self.icon_label.setIconSize(QSize(ICON_PX, ICON_PX))
        self.icon_label.setAccessibleName(f"{title} panel")
        row.addWidget(self.icon_label)
        self.full_title = title
        self.title = QLabel(title)
        self.title.setAccessibleName(title)
        self.title.setObjectName("sidePanelTitle")
        self.title.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)  # a narrow panel clips it
        row.addWidget(self.title, 1)
        self.collapse_button = QToolButton()
        self.collapse_button.setObjectName("sidePanelCollapse")
        self.collapse_button.setAutoRaise(True)
        self.collapse_button.setFocusPolicy(Qt.FocusPolicy.NoFocus)  # from the keyboard: its shortcut, View menu
        right = dock.objectName() != "conversationsDock"  # Servers and Tools open on the right
        self.collapse_button.setIcon(icon("collapse-right" if right else "collapse"))
        self.collapse_button.setIconSize(QSize(ICON_PX, ICON_PX))
        self.collapse_button.setAccessibleName(f"Collapse the {title} panel")
        shortcut = SHORTCUTS.get(dock.objectName())
        hint = f" ({QKeySequence(shortcut).toString(QKeySequence.SequenceFormat.NativeText)})" if shortcut else ""
        self.collapse_button.setToolTip(f"Hide {title}{hint}")
        self.collapse_button.clicked.connect(dock.hide)
        row.addWidget(self.collapse_button)

    def resizeEvent(self, event: QResizeEvent) -> None:
        """A panel narrower than its title shows it elided ("Too…"), never cut through a letter."""
        super().resizeEvent(event)
        room = max(0, self.title.width())
        self.title.setText(self.title.fontMetrics().elidedText(self.full_title, Qt.TextElideMode.ElideRight, room))

    def minimumSizeHint(self) -> QSize:
        """No minimum width: a panel narrowed by the window (``docks.DockRoom``) is never widened by its header."""
        return QSize(0, super().minimumSizeHint().height())


def make_side_panel(dock: QDockWidget, icon_name: str, title: str) -> SidePanelHeader:
    """Give ``dock`` the side-panel chrome (see the module docstring); its toggle action gets the panel's
    shortcut and icon. Returns the header. The collapse button is no Tab stop: the keyboard collapses and
    expands a panel with its shortcut (``SHORTCUTS``) or View menu entry."""
    header = SidePanelHeader(dock, icon_name, title)
    dock.setTitleBarWidget(header)
    dock.setFeatures(QDockWidget.DockWidgetFeature.DockWidgetClosable)
    dock.setContextMenuPolicy(Qt.ContextMenuPolicy.PreventContextMenu)
    action = dock.toggleViewAction()
    action.setIcon(icon(icon_name, "text"))
    shortcut = SHORTCUTS.get(dock.objectName())
    if shortcut and action.shortcut().isEmpty():
        action.setShortcut(QKeySequence(shortcut))
    return header


__all__ = ["SHORTCUTS", "SidePanelHeader", "make_side_panel"]
