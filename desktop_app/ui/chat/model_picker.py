"""The composer's provider/model picker and the rounded field its row sits in.

:class:`ModelPicker` names the model whole wherever the row has room for it and elides it (``claude-son…``)
only when the composer is genuinely narrow; the whole name is always in its tooltip (``Composer.show_model``).
Its text stays the whole name: the eliding is done when it is painted, for the width the row gives it.

:class:`ComposerField` is as wide as the reading column (``measure.reading_width``), or wider when its row of
buttons needs more to show every button and the model's whole name (the context meter and the agent picker
join the row later), never wider than the room its parent gives it.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QSize, Qt
from PySide6.QtGui import QPaintEvent
from PySide6.QtWidgets import QBoxLayout, QFrame, QSizePolicy, QToolButton, QWidget

MIN_CHARS = 6
"""Squeezed, the picker still shows this many characters of the model's name (and "…")."""
COLUMN_EXTRA = 24
"""The field is this much wider than the reading column's text (its border and inner margins)."""


class ModelPicker(QToolButton):
    """The provider/model picker: an icon, the model's name, a menu (the window fills it)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("modelPicker")
        self.setAccessibleName("Provider and model for this conversation")
        self.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        self.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        # Preferred: the one button of the row that gives up width when the composer is narrow (down to
        # ``minimumSizeHint``); the others keep theirs.
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Fixed)

    def _chrome(self) -> int:
        """The button's width besides its text: icon, padding, the menu's arrow."""
        return super().sizeHint().width() - self.fontMetrics().horizontalAdvance(self.text())

    def minimumSizeHint(self) -> QSize:
        short = self.text() if len(self.text()) <= MIN_CHARS else self.text()[:MIN_CHARS] + "…"
        return QSize(self._chrome() + self.fontMetrics().horizontalAdvance(short), super().sizeHint().height())

    def shown_text(self) -> str:
        """The name as painted: whole when the button is as wide as its size hint, else elided at the right."""
        if self.width() >= self.sizeHint().width():
            return self.text()
        room = self.width() - self._chrome()
        return self.fontMetrics().elidedText(self.text(), Qt.TextElideMode.ElideRight, max(0, room))

    def paintEvent(self, event: QPaintEvent) -> None:
        if self.width() >= self.sizeHint().width():  # the whole name: as any tool button draws itself
            super().paintEvent(event)
            return
        # Elided: QStyle and its ~300 enums (~4 ms to make) load with the first elided paint, not before the first
        # paint of the window (issue 27).
        from PySide6.QtWidgets import QStyle, QStyleOptionToolButton, QStylePainter

        painter = QStylePainter(self)
        option = QStyleOptionToolButton()
        self.initStyleOption(option)
        option.text = self.shown_text()
        painter.drawComplexControl(QStyle.ComplexControl.CC_ToolButton, option)


class ComposerField(QFrame):
    """The composer's rounded field (``#composerField``); ``row`` is its row of buttons (set by the composer)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("composerField")
        self.row: QBoxLayout | None = None
        self.fit()

    def fit(self) -> None:
        """The reading column's width, or the row's (every button whole) if that is wider."""
        from desktop_app.ui.chat.measure import reading_width

        width = reading_width() + COLUMN_EXTRA
        inner = self.layout()
        if self.row is not None and inner is not None:
            margins = inner.contentsMargins()
            frame = self.width() - self.contentsRect().width()  # the style's border and padding
            width = max(width, self.row.sizeHint().width() + margins.left() + margins.right() + frame)
        if width != self.maximumWidth():
            self.setMaximumWidth(width)

    def event(self, event: QEvent) -> bool:
        if event.type() in (QEvent.Type.LayoutRequest, QEvent.Type.FontChange, QEvent.Type.StyleChange):
            self.fit()  # a button came or went, the model's name changed, or the fonts did
        return super().event(event)


__all__ = ["COLUMN_EXTRA", "ComposerField", "ModelPicker"]
