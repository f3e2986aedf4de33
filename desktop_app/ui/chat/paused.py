"""The inline "paused" line: a run stopped short of its end and can be continued ("Continue").

Shown when a run pauses after the tool-round limit, or is stopped while tool calls still wait for an
answer. Clicking Continue disables the button at once (a double click cannot start two runs); the next run
of the conversation settles the line into a quiet note.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton, QWidget


class PausedLine(QFrame):
    """'Paused after 25 tool rounds. Continue to let the model go on.  [Continue]'.

    Signals:
        continue_clicked(): the user wants the paused turn to go on.
    """

    continue_clicked = Signal()

    def __init__(self, text: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("pausedLine")
        self.setAccessibleName("Paused run notice")
        self.setStyleSheet(
            "QFrame#pausedLine { border: 1px solid palette(mid); border-radius: 6px; background: palette(base); }"
            ' QFrame#pausedLine[settled="true"] { border: none; background: transparent; }'
        )
        layout = QHBoxLayout(self)
        layout.setContentsMargins(10, 4, 6, 4)
        self.label = QLabel(text)
        self.label.setObjectName("pausedText")
        self.label.setWordWrap(True)
        self.label.setTextFormat(Qt.TextFormat.PlainText)
        self.label.setStyleSheet("QLabel { color: palette(placeholder-text); }")
        layout.addWidget(self.label, 1)
        self.continue_button = QPushButton("Continue")
        self.continue_button.setObjectName("continueButton")
        self.continue_button.setAccessibleName("Continue the paused run")
        self.continue_button.clicked.connect(self._on_clicked)
        layout.addWidget(self.continue_button)
        self.active = True

    @property
    def text(self) -> str:
        return self.label.text()

    def settle(self, note: str | None = None) -> None:
        """The paused turn went on (or was abandoned): drop the button, keep a quiet note."""
        if not self.active:
            return
        self.active = False
        self.continue_button.hide()
        if note is not None:
            self.label.setText(note)
        self.setProperty("settled", True)
        self.style().unpolish(self)
        self.style().polish(self)

    def _on_clicked(self) -> None:
        if self.active:
            self.continue_button.setEnabled(False)
            self.continue_clicked.emit()


__all__ = ["PausedLine"]
