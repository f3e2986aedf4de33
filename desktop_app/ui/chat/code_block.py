"""A fenced code block in rendered Markdown: :class:`CodeBlock` (a header with the language and a Copy button,
then the code, highlighted with Pygments in the light or dark palette) around :class:`CodeText` (monospace,
no wrapping, as tall as its lines). ``markdown_view.MarkdownView`` places one per fenced block.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QFont, QGuiApplication, QTextCursor
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QSizePolicy,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from desktop_app.ui.chat.markdown import CodeHighlighter
from desktop_app.ui.chat.markdown_theme import Theme, monospace_family
from desktop_app.ui.theme.tokens import scaled_font

COPIED_FEEDBACK_MS = 1500


class CodeText(QPlainTextEdit):
    """The code of a code block: monospace, no wrapping (scrolls sideways), as tall as its lines."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("codeText")
        self.setAccessibleName("Code")
        self.setReadOnly(True)
        self.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAsNeeded)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.setTextInteractionFlags(
            Qt.TextInteractionFlag.TextSelectableByMouse | Qt.TextInteractionFlag.TextSelectableByKeyboard
        )
        font = scaled_font(QFont(monospace_family()), "code")
        font.setStyleHint(QFont.StyleHint.Monospace)
        self.setFont(font)
        self.document().setDocumentMargin(8)
        self.horizontalScrollBar().rangeChanged.connect(self._fit)
        self.document().blockCountChanged.connect(self._fit)
        self._fit()

    def _fit(self, *_args: object) -> None:
        lines = max(1, self.document().blockCount())
        height = lines * self.fontMetrics().lineSpacing() + 2 * int(self.document().documentMargin()) + 4
        bar = self.horizontalScrollBar()
        if bar.maximum() > 0:
            height += bar.sizeHint().height()
        if height != self.height():
            self.setFixedHeight(height)


class CodeBlock(QFrame):
    """A code block: language and Copy in a header, the highlighted code below.

    Signals:
        copied(str): the Copy button put this code on the clipboard.
    """

    copied = Signal(str)

    def __init__(self, language: str, theme: Theme, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("codeBlock")
        self.setAccessibleName(f"Code block{f' ({language})' if language else ''}")
        self.language = language
        self.closed = False
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        header = QWidget()
        header.setObjectName("codeHeader")
        row = QHBoxLayout(header)
        row.setContentsMargins(10, 2, 4, 2)
        self.language_label = QLabel(language or "text")
        self.language_label.setObjectName("codeLanguage")
        row.addWidget(self.language_label)
        row.addStretch(1)
        self.copy_button = QToolButton()
        self.copy_button.setObjectName("copyCodeButton")
        self.copy_button.setAccessibleName("Copy code")
        self.copy_button.setToolTip("Copy this code")
        self.copy_button.setText("Copy")
        self.copy_button.setAutoRaise(True)
        self.copy_button.clicked.connect(self.copy)
        row.addWidget(self.copy_button)
        layout.addWidget(header)
        self.text_view = CodeText()
        layout.addWidget(self.text_view)
        self.highlighter = CodeHighlighter(self.text_view.document(), language, theme.dark)
        self._code = ""

    @property
    def code(self) -> str:
        return self._code

    def set_code(self, code: str) -> None:
        if code == self._code:
            return
        if code.startswith(self._code) and self._code:  # it grew: add the new part (only new lines re-lex)
            cursor = QTextCursor(self.text_view.document())
            cursor.movePosition(QTextCursor.MoveOperation.End)
            cursor.insertText(code[len(self._code) :])
        else:
            self.text_view.setPlainText(code)
        self._code = code

    def set_language(self, language: str) -> None:
        """The fence's info string is still arriving (``p`` → ``py`` → ``python``)."""
        if language != self.language:
            self.language = language
            self.language_label.setText(language or "text")
            self.setAccessibleName(f"Code block{f' ({language})' if language else ''}")
            self.highlighter.set_language(language)

    def copy(self) -> None:
        QGuiApplication.clipboard().setText(self._code)
        self.copy_button.setText("Copied")
        QTimer.singleShot(COPIED_FEEDBACK_MS, self.copy_button, lambda: self.copy_button.setText("Copy"))
        self.copied.emit(self._code)


__all__ = ["COPIED_FEEDBACK_MS", "CodeBlock", "CodeText"]
