"""The status bar's line of text: a label that never pushes into the permanent widgets on the right.

A plain ``QLabel`` asks for its whole text as its minimum width, so a long message ("MCP server … failed to
start: …") widens the status bar's left part until it runs into the model label and the MCP indicator (or
widens the window); and the status bar draws a temporary message (``showMessage``) cut off hard against the
first permanent widget. :class:`StatusText` asks for no width of its own, draws its text elided to the room
it gets ("…" at the end) with the whole text as its tooltip, and shows the bar's temporary message the same
way while there is one (:func:`install_status_text`). ``text()`` stays the status, not the message.
"""

from __future__ import annotations

from PySide6.QtCore import QSize, Qt
from PySide6.QtGui import QPainter, QPaintEvent
from PySide6.QtWidgets import QLabel, QStatusBar, QWidget


class StatusText(QLabel):
    """A one-line label elided to its width; the whole text is in the tooltip."""

    def __init__(self, text: str = "", parent: QWidget | None = None) -> None:
        super().__init__(text, parent)
        self.setTextFormat(Qt.TextFormat.PlainText)
        self.setToolTip(text)
        self.message = ""
        """The status bar's temporary message, shown instead of the text while it lasts."""

    def setText(self, text: str) -> None:
        super().setText(text)
        self.setToolTip(self.message or text)

    def show_message(self, message: str) -> None:
        self.message = message
        self.setToolTip(message or self.text())
        self.update()

    def minimumSizeHint(self) -> QSize:
        return QSize(0, super().minimumSizeHint().height())

    def sizeHint(self) -> QSize:
        return QSize(0, super().sizeHint().height())

    def shown_text(self) -> str:
        """What fits: the text, elided at the end to the label's width."""
        room = self.contentsRect().width()
        text = self.message or self.text()
        return self.fontMetrics().elidedText(text, Qt.TextElideMode.ElideRight, max(room, 0))

    def paintEvent(self, event: QPaintEvent) -> None:
        # As QStyle.drawItemText draws it under Fusion (the pen of the palette's foreground role, in the widget's
        # state's colour group), without asking the widget for its style: the status bar is painted with the
        # window's first paint, and a Python wrapper of the style would make QStyle's ~300 enums then (~4 ms).
        painter = QPainter(self)
        painter.setPen(self.palette().color(self.foregroundRole()))
        flags = int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter | Qt.TextFlag.TextSingleLine)
        painter.drawText(self.contentsRect(), flags, self.shown_text())
        painter.end()


def install_status_text(bar: QStatusBar, text: str) -> StatusText:
    """The status line of ``bar``, leftmost and as wide as the permanent widgets leave it. It is a permanent
    widget itself, so the bar never hides it for a temporary message (nor paints one): it shows the message."""
    label = StatusText(text)
    label.setObjectName("statusText")
    bar.insertPermanentWidget(0, label, 1)
    bar.messageChanged.connect(label.show_message)
    return label


__all__ = ["StatusText", "install_status_text"]
