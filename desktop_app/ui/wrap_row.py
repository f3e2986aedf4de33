"""A row of two widgets that stacks them when the panel is narrower than the two side by side.

The Tools panel's footer ("85 tools" and "Deferral settings…") was one ``QHBoxLayout``: its minimum width
(both side by side) made the panel wider than a dock narrowed by the window, so the dock's scroll area cut the
whole panel at its right edge, search field and tree included. :class:`WrapRow` is only as narrow as its wider
widget, and lays the second one under the first when the two do not fit beside each other. A widget that can
be narrower than its size hint (its ``minimumSizeHint``, e.g. a row of buttons that wraps itself) is given the
row's width when stacked, and as much height as it needs for it (``heightForWidth``): the Servers panel's
action row is a ``WrapRow`` of the server's title and such a button row (``ui/flow.py``'s ``ButtonFlow``).
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QRect, QSize
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import QSizePolicy, QWidget

from desktop_app.ui.theme.tokens import SPACE


class WrapRow(QWidget):
    """``first`` at the left, ``second`` at the right; ``second`` under ``first`` when the row is too narrow."""

    def __init__(self, first: QWidget, second: QWidget, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.first, self.second = first, second
        first.setParent(self)
        second.setParent(self)
        self.gap = SPACE.sm
        policy = QSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Preferred)
        policy.setHeightForWidth(True)
        self.setSizePolicy(policy)

    def _beside(self, width: int) -> bool:
        return width >= self.first.sizeHint().width() + self.gap + self.second.sizeHint().width()

    def sizeHint(self) -> QSize:
        first, second = self.first.sizeHint(), self.second.sizeHint()
        return QSize(first.width() + self.gap + second.width(), max(first.height(), second.height()))

    def minimumSizeHint(self) -> QSize:
        first, second = self.first.minimumSizeHint(), self.second.minimumSizeHint()
        height = max(self.first.sizeHint().height(), self.second.sizeHint().height())
        return QSize(max(first.width(), second.width()), height)

    def hasHeightForWidth(self) -> bool:
        return True

    @staticmethod
    def _height(widget: QWidget, width: int) -> int:
        """``widget``'s height at ``width`` (its size hint's, unless its height follows its width)."""
        return widget.heightForWidth(width) if widget.hasHeightForWidth() else widget.sizeHint().height()

    def heightForWidth(self, width: int) -> int:
        if self._beside(width):
            return max(self.first.sizeHint().height(), self.second.sizeHint().height())
        return self._height(self.first, width) + self.gap + self._height(self.second, width)

    def event(self, event: QEvent) -> bool:
        if event.type() == QEvent.Type.LayoutRequest:  # a child's size hint changed (the count's text)
            self.updateGeometry()
            self.place()
        return super().event(event)

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self.place()

    def place(self) -> None:
        width, first, second = self.width(), self.first.sizeHint(), self.second.sizeHint()
        if self._beside(width):
            height = max(first.height(), second.height())
            left = width - second.width() - self.gap
            self.first.setGeometry(QRect(0, (height - first.height()) // 2, left, first.height()))
            self.second.setGeometry(QRect(left + self.gap, (height - second.height()) // 2, *second.toTuple()))
        else:
            top = self._height(self.first, width)
            self.first.setGeometry(QRect(0, 0, width, top))
            narrow = min(width, second.width())  # never wider than the row (a button row wraps instead)
            self.second.setGeometry(QRect(0, top + self.gap, narrow, self._height(self.second, narrow)))


__all__ = ["WrapRow"]
