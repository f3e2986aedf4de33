"""Keyboard focus in the main window: the Tab order (the reading order) and what shows where focus is.

The application stylesheet (``theme/stylesheet.py``, from the tokens) draws a ring in the ``focus_ring`` colour
around every focused Tab stop. The composer's text box sits inside a rounded field, and a style sheet cannot
select a parent by its child's focus: :func:`install_focus_within` sets the field's ``focusWithin`` property
while the text box has focus, so the whole field gets the ring. The status bar shows state; its widgets
(the MCP indicator: View → Servers opens the same dock) are not Tab stops.
"""

from __future__ import annotations

import itertools
from typing import TYPE_CHECKING

from PySide6.QtCore import QEvent, QObject, Qt, QTimer
from PySide6.QtWidgets import QAbstractButton, QLayout, QStatusBar, QWidget
from shiboken6 import isValid

if TYPE_CHECKING:
    from desktop_app.ui.window.main_window import MainWindow


class FocusWithin(QObject):
    """Sets ``frame``'s ``focusWithin`` property while ``child`` has keyboard focus (and re-polishes the frame
    alone, not the whole window)."""

    def __init__(self, child: QWidget, frame: QWidget) -> None:
        super().__init__(child)
        self.frame = frame
        child.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() in (QEvent.Type.FocusIn, QEvent.Type.FocusOut) and isValid(self.frame):
            # the frame goes first when the window is torn down, and its text box then loses focus
            focused = event.type() == QEvent.Type.FocusIn
            if bool(self.frame.property("focusWithin")) != focused:
                self.frame.setProperty("focusWithin", focused)
                # The ring is re-polished on the next turn of the event loop, not in the focus change: the text
                # box gets focus as the runtime attaches, and the first Python wrapper of the style makes
                # QStyle's ~300 enums (~4 ms) on the way to ready (issue 27); typing does not wait for the ring.
                QTimer.singleShot(0, self.frame, self._repolish)  # dropped if the field goes first
        return False

    def _repolish(self) -> None:
        if isValid(self.frame):
            style = self.frame.style()
            style.unpolish(self.frame)
            style.polish(self.frame)
            self.frame.update()


def install_focus_within(child: QWidget, frame: QWidget) -> FocusWithin:
    return FocusWithin(child, frame)


def _row_after(layout: QLayout, widget: QWidget) -> list[QWidget]:
    """The widgets of the first layout after ``widget`` in ``layout`` (the composer's button row), in order."""
    found = False
    for index in range(layout.count()):
        item = layout.itemAt(index)
        if item is None:
            continue
        if item.widget() is widget:
            found = True
        elif found and (row := item.layout()) is not None:
            cells = (row.itemAt(i) for i in range(row.count()))
            return [w for cell in cells if cell is not None and (w := cell.widget()) is not None]
    return []


def _tab_stop(widget: QWidget) -> bool:
    return bool(widget.focusPolicy() & Qt.FocusPolicy.TabFocus)


def reading_order(window: MainWindow) -> list[QWidget]:
    """The Tab stops in reading order: the conversation list (search, New, the list), the transcript, the
    composer's text box, then its row of buttons left to right (Attach … the model picker, Send)."""
    composer = window.composer
    chain: list[QWidget] = [
        window.conversations.search,
        window.conversations.new_button,
        window.conversations.list,
        window.view,
        composer.edit,
    ]
    field_layout = composer.field.layout()
    row = _row_after(field_layout, composer.edit) if field_layout is not None else []
    chain += [w for w in row if _tab_stop(w)]
    if composer.button not in chain:
        chain.append(composer.button)
    return chain


def set_tab_order(window: MainWindow) -> None:
    """Tab goes left to right, top to bottom (``reading_order``); the status bar's buttons are no stops."""
    for widget in window.statusBar().findChildren(QAbstractButton):
        widget.setFocusPolicy(Qt.FocusPolicy.NoFocus)
    for first, second in itertools.pairwise(reading_order(window)):
        QWidget.setTabOrder(first, second)


def no_status_stops(bar: QStatusBar) -> list[QWidget]:
    """The status bar's widgets that Tab would still stop at (none, once ``set_tab_order`` ran)."""
    return [w for w in bar.findChildren(QWidget) if _tab_stop(w) and w.isVisibleTo(bar)]


__all__ = ["FocusWithin", "install_focus_within", "no_status_stops", "reading_order", "set_tab_order"]
