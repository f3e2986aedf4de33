"""Widgets laid out left to right that wrap onto further lines: the one flow layout of the UI.

:class:`FlowLayout` is a ``QLayout`` (after Qt's flow-layout example) that places its items side by side and
starts a new line when the next one does not fit; each line is as tall as its tallest item, and shorter items
are centred on it. Hidden widgets take no room. Its size hint is every item on one line; its minimum is its
widest item, and it answers ``heightForWidth``, so a parent layout gives it the lines it needs at any width.

:class:`ButtonFlow` is a row of buttons in such a layout: the Servers panel's toolbar and a server's actions
(a dock the window may make ~150 px narrow cut a ``QHBoxLayout`` of buttons at its right edge), an extension's
update row. The composer's chips (``ui/chat/chips.py``) use the layout directly.
"""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import QRect, QSize, Qt
from PySide6.QtWidgets import QLayout, QLayoutItem, QWidget, QWidgetItem

from desktop_app.ui.theme.tokens import SPACE


class FlowLayout(QLayout):
    """Items left to right, wrapped to a new line when the next one does not fit (``spacing`` between items and
    between lines). The order of ``addWidget`` is the visual order."""

    def __init__(self, parent: QWidget | None = None, spacing: int = SPACE.xs) -> None:
        super().__init__(parent)
        self._items: list[QLayoutItem] = []
        self._gap = spacing

    # -- QLayout's item interface --------------------------------------------------------------------------

    def addItem(self, item: QLayoutItem) -> None:
        self._items.append(item)

    def addWidget(self, widget: QWidget) -> None:
        self.addChildWidget(widget)
        self.addItem(QWidgetItem(widget))
        self.invalidate()

    def count(self) -> int:
        return len(self._items)

    def itemAt(self, index: int) -> QLayoutItem | None:
        return self._items[index] if 0 <= index < len(self._items) else None

    def takeAt(self, index: int) -> QLayoutItem | None:
        if not 0 <= index < len(self._items):
            return None
        item = self._items.pop(index)
        self.invalidate()
        return item

    # -- sizes -----------------------------------------------------------------------------------------------

    def expandingDirections(self) -> Qt.Orientation:
        return Qt.Orientation(0)

    def hasHeightForWidth(self) -> bool:
        return True

    def heightForWidth(self, width: int) -> int:
        margins = self.contentsMargins()
        lines = self._lines(width - margins.left() - margins.right())
        return self._height(lines) + margins.top() + margins.bottom()

    def sizeHint(self) -> QSize:
        """Every item on one line."""
        shown = self._shown()
        width = sum(item.sizeHint().width() for item in shown) + self._gap * max(0, len(shown) - 1)
        return self._with_margins(QSize(width, self._line_height(shown)))

    def minimumSize(self) -> QSize:
        """The widest item (a narrower layout would cut it), one line tall."""
        shown = self._shown()
        width = max((item.sizeHint().width() for item in shown), default=0)
        return self._with_margins(QSize(width, self._line_height(shown)))

    # -- placing ---------------------------------------------------------------------------------------------

    def setGeometry(self, rect: QRect) -> None:
        super().setGeometry(rect)
        margins = self.contentsMargins()
        area = rect.adjusted(margins.left(), margins.top(), -margins.right(), -margins.bottom())
        top = area.y()
        for line in self._lines(area.width()):
            left, height = area.x(), self._line_height(line)
            for item in line:
                hint = item.sizeHint()
                item.setGeometry(QRect(left, top + (height - hint.height()) // 2, hint.width(), hint.height()))
                left += hint.width() + self._gap
            top += height + self._gap

    def _shown(self) -> list[QLayoutItem]:
        return [item for item in self._items if not item.isEmpty()]

    def _lines(self, width: int) -> list[list[QLayoutItem]]:
        lines: list[list[QLayoutItem]] = []
        used = 0
        for item in self._shown():
            need = item.sizeHint().width()
            if not lines or used + self._gap + need > width:
                lines.append([])
                used = 0
            used += need + (self._gap if lines[-1] else 0)
            lines[-1].append(item)
        return lines

    def _line_height(self, line: list[QLayoutItem]) -> int:
        return max((item.sizeHint().height() for item in line), default=0)

    def _height(self, lines: list[list[QLayoutItem]]) -> int:
        return sum(self._line_height(line) for line in lines) + self._gap * max(0, len(lines) - 1)

    def _with_margins(self, size: QSize) -> QSize:
        margins = self.contentsMargins()
        return size + QSize(margins.left() + margins.right(), margins.top() + margins.bottom())


class ButtonFlow(QWidget):
    """``buttons`` side by side, wrapped onto further lines when the row is narrower than all of them.

    Hidden buttons take no room; a button whose text changes (Disable ↔ Enable) is laid out again. The order
    (and so the Tab order) is the order given."""

    def __init__(self, buttons: Sequence[QWidget], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.buttons = list(buttons)
        self.flow = FlowLayout(self)
        self.flow.setContentsMargins(0, 0, 0, 0)
        for button in self.buttons:
            self.flow.addWidget(button)


__all__ = ["ButtonFlow", "FlowLayout"]
