"""The "earlier messages" line at the top of a long reopened conversation: how many are left out, and a
button that shows them (``ChatView.load_transcript`` shows the latest turns first, see ``replay``)."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton, QWidget


class EarlierLine(QFrame):
    """'1,960 earlier messages are not shown.  [Show earlier]'.

    Signals:
        show_requested(): the user wants to see older messages.
    """

    show_requested = Signal()

    def __init__(self, hidden: int, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.hidden = hidden
        self.setObjectName("earlierLine")
        self.setAccessibleName("Earlier messages")
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        noun = "message is" if hidden == 1 else "messages are"
        self.label = QLabel(f"{hidden:,} earlier {noun} not shown.")
        self.label.setObjectName("earlierText")
        self.label.setTextFormat(Qt.TextFormat.PlainText)
        self.label.setStyleSheet("QLabel { color: palette(placeholder-text); }")
        layout.addWidget(self.label, 1)
        self.button = QPushButton("Show earlier")
        self.button.setObjectName("showEarlierButton")
        self.button.setAccessibleName("Show earlier messages")
        self.button.clicked.connect(self.show_requested)
        layout.addWidget(self.button)
