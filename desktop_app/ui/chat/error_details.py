"""The raw details under an error notice: a "Details" toggle and the provider's answer as it came.

The notice itself says what happened and what to do in a sentence; the body an HTTP error came with
(already redacted by the runtime) stays one click away, selectable and in a fixed-width font.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QFontDatabase
from PySide6.QtWidgets import QLabel, QToolButton, QVBoxLayout, QWidget


class ErrorDetails(QWidget):
    """``Details ▸`` and, once opened, the raw text."""

    def __init__(self, text: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("errorDetails")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 0, 0, 0)
        layout.setSpacing(2)
        self.button = QToolButton()
        self.button.setObjectName("errorDetailsButton")
        self.button.setAccessibleName("Show the provider's answer")
        self.button.setText("Details ▸")
        self.button.setCheckable(True)
        self.button.setAutoRaise(True)
        self.button.toggled.connect(self._on_toggled)
        layout.addWidget(self.button, 0, Qt.AlignmentFlag.AlignLeft)
        self.text = QLabel(text)
        self.text.setObjectName("errorDetailsText")
        self.text.setAccessibleName("The provider's answer, as it came")
        self.text.setTextFormat(Qt.TextFormat.PlainText)
        self.text.setWordWrap(True)
        self.text.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.text.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.text.hide()
        layout.addWidget(self.text)

    def _on_toggled(self, shown: bool) -> None:
        self.text.setVisible(shown)
        self.button.setText("Details ▾" if shown else "Details ▸")


__all__ = ["ErrorDetails"]
