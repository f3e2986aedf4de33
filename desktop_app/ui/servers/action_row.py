"""Parts of the Servers panel's rows that fit its width: a server's title that elides, tabs that shrink.

The panel sits in a dock the window may make as narrow as ~150 px (an 800 px window); its buttons wrap
(``ui/flow.ButtonFlow``: a ``QHBoxLayout`` of them cut the last, "Remove", at the dock's right edge).
:class:`ServerTitle` is the selected server's name (bold, elided with "…" when it does not fit, the whole
name in its tooltip) and what kind of server it is; :class:`NarrowTabBar` lets the inspector's tabs shrink to
one elided tab and the scroll arrows. The inspector puts the title and its buttons in a
:class:`~desktop_app.ui.wrap_row.WrapRow`: side by side when there is room, the buttons under the
title when not.
"""

from __future__ import annotations

from PySide6.QtCore import QSize
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import QHBoxLayout, QLabel, QSizePolicy, QTabBar, QToolButton, QWidget

from desktop_app.ui.chat.common import MUTED_COLOR
from desktop_app.ui.servers.log_view import ElidedLabel
from desktop_app.ui.theme.tokens import SPACE


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


__all__ = ["NarrowTabBar", "ServerTitle"]
