"""Rows of the Servers panel that fit its width: buttons that wrap, and a server's title that elides.

The panel sits in a dock the window may make as narrow as ~150 px (an 800 px window). A ``QHBoxLayout`` of
buttons is as wide as all of them side by side, so the panel grew wider than its dock, which then scrolled
sideways and cut the last button ("Remove") at its right edge. :class:`ButtonFlow` lays its buttons left to
right and starts a new line when the next one does not fit; it is only as narrow as its widest button.
:class:`ServerTitle` is the selected server's name (bold, elided with "…" when it does not fit, the whole
name in its tooltip) and what kind of server it is; :class:`NarrowTabBar` lets the inspector's tabs shrink to
one elided tab and the scroll arrows. The inspector puts the two in a
:class:`~desktop_app.ui.wrap_row.WrapRow`: side by side when there is room, the buttons under the
title when not.
"""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import QEvent, QRect, QSize
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import QHBoxLayout, QLabel, QSizePolicy, QTabBar, QToolButton, QWidget

from desktop_app.ui.chat.common import MUTED_COLOR
from desktop_app.ui.servers.log_view import ElidedLabel
from desktop_app.ui.theme.tokens import SPACE


class ButtonFlow(QWidget):
    """``buttons`` side by side, wrapped onto further lines when the row is narrower than all of them.

    Hidden buttons take no room. The order (and so the Tab order) is the order given."""

    def __init__(self, buttons: Sequence[QWidget], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.buttons = list(buttons)
        self.gap = SPACE.xs
        for button in self.buttons:
            button.setParent(self)
        policy = QSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Preferred)
        policy.setHeightForWidth(True)
        self.setSizePolicy(policy)

    def _shown(self) -> list[QWidget]:
        return [button for button in self.buttons if not button.isHidden()]

    def _lines(self, width: int) -> list[list[QWidget]]:
        lines: list[list[QWidget]] = [[]]
        used = 0
        for button in self._shown():
            need = button.sizeHint().width()
            if lines[-1] and used + self.gap + need > width:
                lines.append([])
                used = 0
            used += need + (self.gap if lines[-1] else 0)
            lines[-1].append(button)
        return lines

    def _line_height(self, line: list[QWidget]) -> int:
        return max((button.sizeHint().height() for button in line), default=0)

    def sizeHint(self) -> QSize:
        shown = self._shown()
        width = sum(button.sizeHint().width() for button in shown) + self.gap * max(0, len(shown) - 1)
        return QSize(width, self._line_height(shown))

    def minimumSizeHint(self) -> QSize:
        shown = self._shown()
        return QSize(max((b.sizeHint().width() for b in shown), default=0), self._line_height(shown))

    def hasHeightForWidth(self) -> bool:
        return True

    def heightForWidth(self, width: int) -> int:
        lines = [line for line in self._lines(width) if line]
        return sum(self._line_height(line) for line in lines) + self.gap * max(0, len(lines) - 1)

    def event(self, event: QEvent) -> bool:
        if event.type() == QEvent.Type.LayoutRequest:  # a button's text changed (Disable ↔ Enable), or shown
            self.updateGeometry()
            self.place()
        return super().event(event)

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self.place()

    def place(self) -> None:
        top = 0
        for line in self._lines(self.width()):
            left, height = 0, self._line_height(line)
            for button in line:
                hint = button.sizeHint()
                button.setGeometry(QRect(left, top + (height - hint.height()) // 2, hint.width(), hint.height()))
                left += hint.width() + self.gap
            top += height + self.gap


class NarrowTabBar(QTabBar):
    """A tab bar that may be as narrow as its scroll arrows and one elided tab (Qt's own minimum is the arrows
    plus 75 px, wider than the panel of an 800 px window); with room, its tabs are laid out as usual."""

    def minimumSizeHint(self) -> QSize:
        hint = super().minimumSizeHint()
        arrows = sum(button.sizeHint().width() for button in self.findChildren(QToolButton))
        tab = self.minimumTabSizeHint(max(0, self.currentIndex())).width() if self.count() else 0
        return QSize(min(hint.width(), arrows + tab), hint.height())


class ServerTitle(QWidget):
    """The selected server's name (bold, elided, whole in its tooltip) and its kind, muted."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("serverInspectorTitle")
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        row.setSpacing(SPACE.xs)
        self.name = ElidedLabel()
        self.name.setObjectName("serverInspectorName")
        font = self.name.font()
        font.setBold(True)
        self.name.setFont(font)
        self.kind = QLabel("")
        self.kind.setObjectName("serverInspectorKind")
        self.kind.setStyleSheet(f"color: {MUTED_COLOR};")
        self.name.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Fixed)
        self.name.setMinimumWidth(1)  # shrinks (elided) below its text's width; the kind follows it closely
        row.addWidget(self.name)
        row.addWidget(self.kind)
        row.addStretch(1)
        self.set_server(None)

    def set_server(self, name: str | None, kind: str = "") -> None:
        """Show ``name`` (``None``: "Select a server") and its ``kind`` ("MCP server", "built-in server")."""
        self.name.setText(name if name is not None else "Select a server")
        self.name.setToolTip(name or "")
        self.name.setAccessibleName(f"{name} ({kind})" if name else "No server selected")
        self.kind.setText(kind)
        self._show_kind()
        self.name.updateGeometry()

    def _show_kind(self) -> None:
        """The kind, where the name fits whole beside it (the name goes first: it is elided only without it)."""
        self.kind.setVisible(
            bool(self.kind.text()) and (self.width() >= self.sizeHint().width() or not self.isVisible())
        )

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._show_kind()

    def text(self) -> str:
        """What the title says, e.g. ``analytics MCP server``."""
        return " ".join(part for part in (self.name.text(), self.kind.text()) if part)

    def sizeHint(self) -> QSize:
        """The whole name and kind side by side (the row puts the buttons under it when they do not fit; a
        narrower title drops the kind, then elides the name)."""
        name = self.name.fontMetrics().horizontalAdvance(self.name.text()) + 2
        kind = self.kind.sizeHint().width() + SPACE.xs if self.kind.text() else 0
        return QSize(name + kind, max(self.name.sizeHint().height(), self.kind.sizeHint().height()))


__all__ = ["ButtonFlow", "NarrowTabBar", "ServerTitle"]
