"""Menu helpers shared by the modules that add docks to the main window."""

from __future__ import annotations

from PySide6.QtWidgets import QMainWindow, QMenu


def view_menu(window: QMainWindow) -> QMenu:
    """The window's View menu (created after the existing menus if there is none yet)."""
    for action in window.menuBar().actions():
        menu = action.menu()
        if isinstance(menu, QMenu) and action.text().replace("&", "") == "View":
            return menu
    return window.menuBar().addMenu("&View")
