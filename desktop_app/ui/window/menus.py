"""Menu helpers shared by the modules that add menus and docks to the main window, and the menu bar's order."""

from __future__ import annotations

from PySide6.QtWidgets import QMainWindow, QMenu


def view_menu(window: QMainWindow) -> QMenu:
    """The window's View menu (created after the existing menus if there is none yet)."""
    for action in window.menuBar().actions():
        menu = action.menu()
        if isinstance(menu, QMenu) and action.text().replace("&", "") == "View":
            return menu
    return window.menuBar().addMenu("&View")


MENU_ORDER = ("File", "Edit", "View", "Agent", "Settings", "Help")
"""The menu bar, left to right (a menu not named here goes before Settings); Help is always last."""


def order_menus(window: QMainWindow) -> None:
    """Put the menu bar in ``MENU_ORDER``: menus come from several modules, some only once the runtime is in."""
    bar = window.menuBar()
    actions = bar.actions()

    def rank(index: int) -> tuple[float, int]:
        title = actions[index].text().replace("&", "")
        place = MENU_ORDER.index(title) if title in MENU_ORDER else MENU_ORDER.index("Settings") - 0.5
        return (place, index)

    wanted = [actions[i] for i in sorted(range(len(actions)), key=rank)]
    if wanted == actions:
        return
    for action in wanted:
        bar.removeAction(action)
        bar.addAction(action)
