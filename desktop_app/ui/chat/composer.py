"""The composer: a multi-line prompt box with one button that is Send when idle and Stop while running."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import QHBoxLayout, QPlainTextEdit, QPushButton, QSizePolicy, QWidget

_SEND_KEYS = (Qt.Key.Key_Return, Qt.Key.Key_Enter)


class PromptEdit(QPlainTextEdit):
    """A plain-text editor where Ctrl+Enter submits and Enter inserts a new line.

    Signals:
        submit_requested(): Ctrl+Enter was pressed.
    """

    submit_requested = Signal()

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if event.key() in _SEND_KEYS and event.modifiers() & Qt.KeyboardModifier.ControlModifier:
            event.accept()
            self.submit_requested.emit()
            return
        super().keyPressEvent(event)


class Composer(QWidget):
    """Where the user writes. Send becomes Stop while a run is active.

    Signals:
        submitted(str): the user sent this prompt (already stripped, never empty).
        stop_requested(): the user asked to stop the active run.
    """

    submitted = Signal(str)
    stop_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("composerBar")
        layout = QHBoxLayout(self)
        layout.setContentsMargins(12, 8, 12, 12)
        self.edit = PromptEdit()
        self.edit.setObjectName("composer")
        self.edit.setAccessibleName("Message")
        self.edit.setPlaceholderText("Ask anything…  (Ctrl+Enter to send)")
        self.edit.setTabChangesFocus(True)
        self.edit.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        line = self.edit.fontMetrics().lineSpacing()
        self.edit.setFixedHeight(int(line * 3.6) + 12)
        self.edit.submit_requested.connect(self._on_submit_requested)
        layout.addWidget(self.edit, 1)
        self.button = QPushButton("Send")
        self.button.setObjectName("sendButton")
        self.button.setAccessibleName("Send")
        self.button.setToolTip("Send (Ctrl+Enter)")
        self.button.setDefault(False)
        self.button.setAutoDefault(False)
        self.button.setMinimumWidth(80)
        self.button.clicked.connect(self._on_button_clicked)
        layout.addWidget(self.button, 0, Qt.AlignmentFlag.AlignBottom)
        self._busy = False

    @property
    def busy(self) -> bool:
        return self._busy

    @property
    def text(self) -> str:
        return self.edit.toPlainText()

    def set_text(self, text: str) -> None:
        self.edit.setPlainText(text)

    def set_busy(self, busy: bool) -> None:
        """Switch the button between Send (idle) and Stop (a run is active)."""
        self._busy = busy
        label = "Stop" if busy else "Send"
        self.button.setText(label)
        self.button.setAccessibleName(label)
        self.button.setToolTip("Stop (Esc)" if busy else "Send (Ctrl+Enter)")

    def submit(self) -> None:
        """Send the current text, unless a run is active or it is blank."""
        if self._busy:
            return
        prompt = self.edit.toPlainText().strip()
        if not prompt:
            return
        self.edit.clear()
        self.submitted.emit(prompt)

    def _on_submit_requested(self) -> None:
        self.submit()

    def _on_button_clicked(self) -> None:
        if self._busy:
            self.stop_requested.emit()
        else:
            self.submit()
