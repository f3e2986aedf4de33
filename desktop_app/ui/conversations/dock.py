"""The Conversations dock around the :class:`~.panel.ConversationList`: :func:`install_conversations_dock` puts
it on the left of the main window (closable, Ctrl+Shift+L, its side-panel header) and
:func:`add_conversation_actions` puts Rename, the exports and Delete in a menu (File), acting on the selected
conversation or the one the chat shows.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QDockWidget, QMainWindow, QMenu

from desktop_app.ui.conversations.panel import ConversationList
from desktop_app.ui.window.menus import view_menu


def install_conversations_dock(window: QMainWindow) -> tuple[QDockWidget, ConversationList]:
    """Add the Conversations dock on the left of ``window`` (closable; ``add_conversation_actions`` puts
    View → Conversations, which shows it again, in the menu bar)."""
    panel = ConversationList()
    dock = QDockWidget("Conversations", window)
    dock.setObjectName("conversationsDock")
    dock.setFeatures(QDockWidget.DockWidgetFeature.DockWidgetClosable)
    dock.setAllowedAreas(Qt.DockWidgetArea.LeftDockWidgetArea)
    dock.setWidget(panel)
    window.addDockWidget(Qt.DockWidgetArea.LeftDockWidgetArea, dock)
    window.resizeDocks([dock], [250], Qt.Orientation.Horizontal)
    panel.toggle_action = dock.toggleViewAction()
    panel.toggle_action.setText("&Conversations")
    panel.toggle_action.setObjectName("conversationsAction")
    panel.toggle_action.setShortcut(QKeySequence("Ctrl+Shift+L"))
    from desktop_app.ui.window.side_panel import make_side_panel

    make_side_panel(dock, "conversations", "Conversations")  # header: icon, title, collapse
    return dock, panel


def add_conversation_actions(panel: ConversationList, menu: QMenu, current: Callable[[], str | None]) -> None:
    """Rename (F2), the exports and Delete in ``menu``, acting on the selected conversation, else on
    ``current()`` (the one the chat shows, once stored). They stay disabled until the panel has a store.
    Also adds View → Conversations (Ctrl+Shift+L) when the panel is docked in a main window."""
    for text, shortcut, slot in panel.entries():
        action = QAction(text, menu)
        if shortcut == "F2":
            action.setShortcut(QKeySequence(shortcut))
        action.triggered.connect(lambda _=False, slot=slot: _call(slot, panel.selected_id() or current()))
        action.setEnabled(False)
        panel.store_attached.connect(lambda action=action: action.setEnabled(True))
        menu.addAction(action)
    window = panel.window()
    if panel.toggle_action is not None and isinstance(window, QMainWindow):
        view_menu(window).addAction(panel.toggle_action)


def _call(slot: Callable[[str], object], conversation_id: str | None) -> None:
    if conversation_id is not None:
        slot(conversation_id)


__all__ = ["add_conversation_actions", "install_conversations_dock"]
