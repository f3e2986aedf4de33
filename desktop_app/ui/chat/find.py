"""Find in the conversation (Ctrl+F): a bar with the query, previous/next, a match count and close.

Every text in the transcript is searched: user messages, answers (prose and code), reasoning, tool cards.
All matches are highlighted (extra selections on each text widget; a user message's label selects its
match), the current one more strongly, and the transcript scrolls to it. Enter goes to the next match,
Shift+Enter to the previous one, Esc closes the bar and clears the highlighting.
"""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QKeyEvent, QTextCharFormat, QTextCursor, QTextDocument
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QTextEdit,
    QToolButton,
    QWidget,
)

from desktop_app.ui.chat.view import ChatView
from desktop_app.ui.theme.tokens import Role, tokens

ALL_MATCHES = Role("match")
CURRENT_MATCH = Role("match_current")


Searchable = QLabel | QTextEdit | QPlainTextEdit
"""What the find bar searches: a QTextEdit / QPlainTextEdit, or a QLabel (a user message)."""


@dataclass
class Match:
    widget: Searchable
    start: int
    length: int


class _QueryEdit(QLineEdit):
    previous_requested = Signal()
    closed = Signal()

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if (
            event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter)
            and event.modifiers() & Qt.KeyboardModifier.ShiftModifier
        ):
            self.previous_requested.emit()
            return
        if event.key() == Qt.Key.Key_Escape:
            self.closed.emit()
            return
        super().keyPressEvent(event)


class FindBar(QFrame):
    """Find in ``view``: ``open()`` shows and focuses it; ``find(text)``, ``next()``, ``previous()``."""

    def __init__(self, view: ChatView, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("findBar")
        self.setAccessibleName("Find in the conversation")
        self.view = view
        self.matches: list[Match] = []
        self.current = -1
        row = QHBoxLayout(self)
        row.setContentsMargins(16, 4, 16, 4)
        row.setSpacing(4)
        self.query = _QueryEdit()
        self.query.setObjectName("findQuery")
        self.query.setAccessibleName("Find text")
        self.query.setPlaceholderText("Find in the conversation")
        self.query.setClearButtonEnabled(True)
        self.query.textChanged.connect(self.search)
        self.query.returnPressed.connect(self.next)
        self.query.previous_requested.connect(self.previous)
        self.query.closed.connect(self.close_bar)
        row.addWidget(self.query, 1)
        self.count = QLabel("")
        self.count.setObjectName("findCount")
        self.count.setMinimumWidth(70)
        row.addWidget(self.count)
        self.previous_button = self._button("findPrevious", "↑", "Previous match (Shift+Enter)", self.previous)
        self.next_button = self._button("findNext", "↓", "Next match (Enter)", self.next)
        self.close_button = self._button("findClose", "✕", "Close (Esc)", self.close_bar)
        for button in (self.previous_button, self.next_button, self.close_button):
            row.addWidget(button)
        self.hide()

    def _button(self, name: str, text: str, tip: str, slot: object) -> QToolButton:
        button = QToolButton()
        button.setObjectName(name)
        button.setAccessibleName(tip.split(" (")[0])
        button.setToolTip(tip)
        button.setText(text)
        button.setAutoRaise(True)
        button.clicked.connect(slot)
        return button

    def open(self) -> None:
        self.show()
        self.query.setFocus()
        self.query.selectAll()
        if self.query.text():
            self.search(self.query.text())

    def close_bar(self) -> None:
        self._clear_highlights()
        self.matches, self.current = [], -1
        self.hide()

    # -- searching ------------------------------------------------------------------------------------------

    def _texts(self) -> list[Searchable]:
        out: list[Searchable] = []
        for block in self.view.blocks():
            if block.isHidden():
                continue
            label = block.findChild(QLabel, "userMessageText")
            if label is not None:
                out.append(label)
                continue
            for widget in block.findChildren(QWidget):
                if isinstance(widget, QTextEdit | QPlainTextEdit) and widget.isVisibleTo(block):
                    out.append(widget)
            if isinstance(block, QTextEdit | QPlainTextEdit):
                out.append(block)
        return out

    def search(self, text: str) -> int:
        """Highlight every match of ``text`` (case-insensitive); go to the first. Returns the count."""
        self._clear_highlights()
        self.matches, self.current = [], -1
        if text:
            for widget in self._texts():
                if isinstance(widget, QLabel):
                    haystack, needle = widget.text().casefold(), text.casefold()
                    start = haystack.find(needle)
                    while start >= 0:
                        self.matches.append(Match(widget, start, len(text)))
                        start = haystack.find(needle, start + len(text))
                    continue
                document: QTextDocument = widget.document()
                cursor = document.find(text, 0)
                while not cursor.isNull():
                    self.matches.append(Match(widget, cursor.selectionStart(), len(text)))
                    cursor = document.find(text, cursor)
        if self.matches:
            self.current = 0
        self._show()
        return len(self.matches)

    def next(self) -> None:
        if self.matches:
            self.current = (self.current + 1) % len(self.matches)
            self._show()

    def previous(self) -> None:
        if self.matches:
            self.current = (self.current - 1) % len(self.matches)
            self._show()

    # -- showing --------------------------------------------------------------------------------------------

    def _clear_highlights(self) -> None:
        for match in self.matches:
            if isinstance(match.widget, QLabel):
                match.widget.setSelection(0, 0)
            else:
                match.widget.setExtraSelections([])

    def _show(self) -> None:
        total = len(self.matches)
        self.count.setText(f"{self.current + 1} of {total}" if total else ("No matches" if self.query.text() else ""))
        by_widget: dict[int, list[tuple[int, Match]]] = {}
        for index, match in enumerate(self.matches):
            by_widget.setdefault(id(match.widget), []).append((index, match))
        for entries in by_widget.values():
            widget = entries[0][1].widget
            if isinstance(widget, QLabel):
                current = next((m for i, m in entries if i == self.current), entries[0][1])
                widget.setSelection(current.start, current.length)
                continue
            selections = []
            for index, match in entries:
                selection = QTextEdit.ExtraSelection()
                fmt = QTextCharFormat()
                fmt.setBackground((CURRENT_MATCH if index == self.current else ALL_MATCHES).qcolor())
                fmt.setForeground(tokens().qcolor("match_text"))
                selection.format = fmt
                cursor = QTextCursor(widget.document())
                cursor.setPosition(match.start)
                cursor.setPosition(match.start + match.length, QTextCursor.MoveMode.KeepAnchor)
                selection.cursor = cursor
                selections.append(selection)
            widget.setExtraSelections(selections)
        if 0 <= self.current < total:
            self._scroll_to(self.matches[self.current])

    def _scroll_to(self, match: Match) -> None:
        widget = match.widget
        y = 0
        if not isinstance(widget, QLabel):
            cursor = QTextCursor(widget.document())
            cursor.setPosition(match.start)
            y = widget.cursorRect(cursor).center().y()
        page = self.view.widget()
        if page is None:
            return
        point = widget.mapTo(page, widget.rect().topLeft())
        self.view.ensureVisible(point.x(), point.y() + y, 10, 80)
        self.view._stick = False  # reading an earlier match: do not jump back to the end

    @property
    def current_match(self) -> Match | None:
        return self.matches[self.current] if 0 <= self.current < len(self.matches) else None


__all__ = ["FindBar", "Match"]
