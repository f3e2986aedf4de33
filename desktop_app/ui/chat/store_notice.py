"""The store could not write a run (``StoreFailed``): a persistent error in the chat with "Save a copy…".

The notice stays in the transcript (it is not a toast), and the window keeps a warning in its status bar for
the rest of the session. "Save a copy…" writes the conversation as the runtime holds it in memory
(``runtime.conversation(id).messages``) to a Markdown file the user picks; ``save_to(path)`` does the writing.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from PySide6.QtWidgets import QFileDialog, QFrame, QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from desktop_app.ui.chat.blocks import ERROR_COLOR, NoticeLine


class StoreFailedNotice(QFrame):
    """An error line (what happened, what to do) and a button that saves the in-memory conversation."""

    def __init__(
        self, message: str, messages: Callable[[], Sequence[Any]], title: str = "", parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.setObjectName("storeFailedNotice")
        self._messages = messages
        self._title = title or "Unsaved conversation"
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.line = NoticeLine(message, "error")
        layout.addWidget(self.line)
        row = QHBoxLayout()
        self.save_button = QPushButton("Save a copy…")
        self.save_button.setObjectName("saveUnsavedButton")
        self.save_button.setAccessibleName("Save a copy of the unsaved conversation")
        self.save_button.clicked.connect(self.open_save_dialog)
        row.addWidget(self.save_button)
        self.result = QLabel("")
        self.result.setObjectName("saveUnsavedResult")
        row.addWidget(self.result, 1)
        layout.addLayout(row)
        self.dialog: QFileDialog | None = None

    def open_save_dialog(self) -> QFileDialog:
        dialog = QFileDialog(self.window(), "Save a copy of the conversation", "conversation.md", "Markdown (*.md)")
        dialog.setAcceptMode(QFileDialog.AcceptMode.AcceptSave)
        dialog.fileSelected.connect(self.save_to)
        dialog.open()
        self.dialog = dialog
        return dialog

    def save_to(self, path: str | Path) -> Path | None:
        """Write the conversation (from memory) as Markdown; the line under the notice says how it went."""
        from desktop_app.runtime.store.export import messages_to_markdown

        target = Path(path)
        try:
            target.write_text(messages_to_markdown(self._messages(), self._title), encoding="utf-8")
        except OSError as exc:
            self.result.setText(f"Could not write {target}: {exc.strerror or exc}. Pick another place.")
            self.result.setStyleSheet(f"QLabel {{ color: {ERROR_COLOR}; }}")
            return None
        self.result.setText(f"Saved to {target}")
        self.result.setStyleSheet("")
        return target


__all__ = ["StoreFailedNotice"]
