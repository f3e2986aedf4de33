"""One widget per part of a conversation: user message, answer, reasoning, notice (tool card: ``tool_card``;
usage: ``usage``).

Colours come from the palette (``palette(...)`` in style sheets) so the blocks follow the system's light
or dark theme; only the error accent is a fixed colour that reads on both.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QSize, Qt, QTimer, Signal
from PySide6.QtGui import QFontInfo
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QSizePolicy,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from desktop_app.ui.chat.common import ERROR_COLOR, OK_COLOR, pretty_json
from desktop_app.ui.chat.markdown_view import AutoHeightText, MarkdownView
from desktop_app.ui.chat.message_actions import MessageActions
from desktop_app.ui.chat.tool_card import ToolCard
from desktop_app.ui.chat.usage import UsageFooter, cache_hit_rate, human_count
from desktop_app.ui.chat.version_switch import add_version_switch

EDIT_MIN_EMS = 30  # a message's text wraps at this many ems; the inline edit's box is this wide (if it fits)
EDIT_MIN_LINES = 3
EDIT_MAX_LINES = 10


class MessageText(QLabel):
    """A user message's text in its right-aligned bubble: as wide as its longest line, up to
    ``EDIT_MIN_EMS`` ems (narrower when the column is), wrapping past that.

    A word-wrapping ``QLabel`` in an aligned layout item gets its size hint's height, worked out for a width
    other than the one it is given, and so lost the lines past the first once a message wrapped: here the
    size hint and the height for a width both use the width the text is really laid out at."""

    def __init__(self, text: str) -> None:
        super().__init__(text)
        self.setWordWrap(True)
        self.setTextFormat(Qt.TextFormat.PlainText)
        self.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        sizing = QSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Preferred)
        sizing.setHeightForWidth(True)
        self.setSizePolicy(sizing)

    def natural_width(self) -> int:
        metrics = self.fontMetrics()
        widest = max((metrics.horizontalAdvance(line) for line in self.text().split("\n")), default=0)
        return min(widest + 4, EDIT_MIN_EMS * max(1, QFontInfo(self.font()).pixelSize()))

    def heightForWidth(self, width: int) -> int:
        return super().heightForWidth(min(width, self.natural_width()))

    def sizeHint(self) -> QSize:
        width = self.natural_width()
        return QSize(width, self.heightForWidth(width))

    def minimumSizeHint(self) -> QSize:
        width = min(self.natural_width(), 8 * max(1, QFontInfo(self.font()).pixelSize()))
        return QSize(width, self.heightForWidth(width))


class UserMessageBlock(QWidget):
    """What the user sent: a "You" label over a tinted, rounded bubble, set to the right of the column;
    Copy, Edit (an inline editor: Send resends it, keeping the old version) and Delete under it, and
    ``‹ 1/2 ›`` when the message has versions.

    Signals:
        edit_submitted(str): the edited text to send in place of this message.
        version_requested(int): show this version of the conversation from this message on.
    """

    edit_submitted = Signal(str)
    version_requested = Signal(int)
    position: int | None = None  # the stored message's position, when known (replay)

    def __init__(self, text: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("userTurn")
        outer = QVBoxLayout(self)
        outer.setContentsMargins(48, 4, 0, 0)
        outer.setSpacing(2)
        who = QLabel("You")
        who.setObjectName("userLabel")
        who.setAlignment(Qt.AlignmentFlag.AlignRight)
        outer.addWidget(who)
        self.bubble = QFrame()
        self.bubble.setObjectName("userMessage")
        self.bubble.setAccessibleName("Your message")
        outer.addWidget(self.bubble, 0, Qt.AlignmentFlag.AlignRight)
        layout = QVBoxLayout(self.bubble)
        layout.setContentsMargins(14, 8, 14, 8)
        self.label = MessageText(text)
        self.label.setObjectName("userMessageText")
        layout.addWidget(self.label)
        self.sent_with = QLabel("")
        self.sent_with.setObjectName("userMessageContext")
        self.sent_with.setAccessibleName("What the message was sent with")
        self.sent_with.setWordWrap(True)
        self.sent_with.setTextFormat(Qt.TextFormat.PlainText)
        self.sent_with.setAlignment(Qt.AlignmentFlag.AlignRight)
        self.sent_with.hide()
        layout.addWidget(self.sent_with)
        self.images: list[str] = []  # names of images attached live (not stored: an edit cannot resend them)
        self.editor = QPlainTextEdit()
        self.editor.setObjectName("editMessageText")
        self.editor.setAccessibleName("Edit your message")
        self.editor.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)
        self.editor.textChanged.connect(self._fit_editor)
        self.editor.hide()
        layout.addWidget(self.editor)
        self.edit_row = QWidget()
        edit_buttons = QHBoxLayout(self.edit_row)
        edit_buttons.setContentsMargins(0, 0, 0, 0)
        edit_buttons.addStretch(1)
        self.edit_cancel_button = QPushButton("Cancel")
        self.edit_cancel_button.setObjectName("editCancelButton")
        self.edit_cancel_button.setAccessibleName("Cancel the edit")
        self.edit_cancel_button.clicked.connect(self.cancel_edit)
        self.edit_send_button = QPushButton("Send")
        self.edit_send_button.setObjectName("editSendButton")
        self.edit_send_button.setAccessibleName("Send the edited message")
        self.edit_send_button.setToolTip("Send this instead (what followed the old message is kept: ‹ ›)")
        self.edit_send_button.clicked.connect(self._on_edit_send)
        edit_buttons.addWidget(self.edit_cancel_button)
        edit_buttons.addWidget(self.edit_send_button)
        self.edit_row.hide()
        layout.addWidget(self.edit_row)
        self.actions_row = MessageActions(self.label.text, self.label.text, role="user")
        self.actions_row.watch(self)
        self.actions_row.edit_button.clicked.connect(self.start_edit)
        self.versions = QWidget()
        self.versions.setObjectName("messageVersions")
        switch = QHBoxLayout(self.versions)
        switch.setContentsMargins(0, 0, 0, 0)
        switch.setSpacing(0)
        self.previous_version_button, self.version_label, self.next_version_button = add_version_switch(
            switch, lambda step: self.version_requested.emit(self.version + step)
        )
        self.versions.hide()
        self.version, self.version_count = 1, 1
        footer = QHBoxLayout()
        footer.addStretch(1)
        footer.addWidget(self.versions)
        footer.addWidget(self.actions_row)
        outer.addLayout(footer)

    def set_sent_with(self, labels: list[str]) -> None:
        """The files and context chips the message went with, in a caption under its text."""
        from desktop_app.ui.chat.sent_with import caption

        text = caption(labels)
        self.sent_with.setText(text)
        self.sent_with.setToolTip("Sent with these files and context; an edited message is sent again with them")
        self.sent_with.setVisible(bool(text))

    def show_sent(self, attachments: list[Any], context: list[Any] | None) -> None:
        """What the live message goes with (``Attachment`` objects, ``ContextItem`` objects)."""
        self.images = [a.name for a in attachments if getattr(a, "kind", "") == "image"]
        chips = [item.label for item in context or () if getattr(item, "kind", "") != "file"]
        self.set_sent_with([a.name for a in attachments] + chips)

    def set_versions(self, version: int, count: int) -> None:
        """Show ``‹ version/count ›`` (hidden for a message with one version)."""
        self.version, self.version_count = version, count
        self.versions.setVisible(count > 1)
        self.version_label.setText(f"{version}/{count}")
        self.previous_version_button.setEnabled(version > 1)
        self.next_version_button.setEnabled(version < count)

    def start_edit(self) -> None:
        """Edit in place: a text box as wide as most of the column (not the message's own width), as tall as
        its text (up to ``EDIT_MAX_LINES``), Cancel and Send under it; the caption waits until it closes."""
        em = max(1, QFontInfo(self.font()).pixelSize())
        layout = self.layout()
        margin = layout.contentsMargins().left() if layout is not None else 0
        room = self.width() - margin - 28  # the bubble's own margins
        self.editor.setMinimumWidth(min(EDIT_MIN_EMS * em, room))
        self.editor.setPlainText(self.label.text())
        self.label.hide()
        self.sent_with.hide()
        self.editor.show()
        self.edit_row.show()
        self._fit_editor()
        self.editor.setFocus()

    def cancel_edit(self) -> None:
        self.editor.hide()
        self.edit_row.hide()
        self.label.show()
        self.sent_with.setVisible(bool(self.sent_with.text()))

    def _fit_editor(self) -> None:
        document = self.editor.document()
        document.setTextWidth(self.editor.viewport().width())
        lines = sum(document.findBlockByNumber(i).layout().lineCount() or 1 for i in range(document.blockCount()))
        lines = max(EDIT_MIN_LINES, min(EDIT_MAX_LINES, lines))
        margins = self.editor.contentsMargins()
        height = lines * self.editor.fontMetrics().lineSpacing() + 2 * int(document.documentMargin())
        self.editor.setFixedHeight(height + margins.top() + margins.bottom() + 2)

    def _on_edit_send(self) -> None:
        text = self.editor.toPlainText().strip()
        if text:
            self.cancel_edit()
            self.edit_submitted.emit(text)

    @property
    def text(self) -> str:
        return self.label.text()


class AnswerBlock(MarkdownView):
    """The assistant's answer: Markdown rendered live as it streams (``markdown_view``), with its actions."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("answerView")
        self.setAccessibleName("Assistant answer")
        self.stopped = False
        self.actions_row = MessageActions(lambda: self.text, self.toPlainText)
        self.actions_row.watch(self)
        self.footer_row = QHBoxLayout()  # a regenerated answer's ‹ n/m › (``answer_versions``), then the actions
        self.footer_row.setContentsMargins(0, 0, 0, 0)
        self.footer_row.addWidget(self.actions_row, 1)
        self._layout.addLayout(self.footer_row)

    def mark_stopped(self) -> None:
        """The run was stopped: this answer is partial (the view adds the visible "■ Stopped" line below it)."""
        self.stopped = True
        self.setAccessibleName("Assistant answer (stopped, partial)")
        self.setToolTip("Stopped: this answer is partial")


def thought_for(seconds: float) -> str:
    """'4 s', '1 min 5 s': how long the model reasoned (at least 1 s)."""
    whole = max(1, round(seconds))
    minutes, rest = divmod(whole, 60)
    return f"{minutes} min {rest} s" if minutes else f"{rest} s"


class ReasoningBlock(QFrame):
    """The model's reasoning: fills live ("Thinking… 3 s"), collapses to "Thought for 4 s" once the answer
    starts. The time runs from its first text to its end, on an injectable monotonic clock (a stored
    reasoning part brings its own ``seconds``); a one-second ``QTimer`` refreshes the live count."""

    def __init__(self, parent: QWidget | None = None, *, clock: Callable[[], float] = time.monotonic) -> None:
        super().__init__(parent)
        self.setObjectName("reasoningBlock")
        self.setAccessibleName("Reasoning")
        self.setStyleSheet(
            "QFrame#reasoningBlock { border-left: 3px solid palette(mid); }"
            " QToolButton { border: none; color: palette(placeholder-text); }"
        )
        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 0, 0, 0)
        layout.setSpacing(0)
        self.toggle = QToolButton()
        self.toggle.setObjectName("reasoningToggle")
        self.toggle.setAccessibleName("Show or hide reasoning")
        self.toggle.setCheckable(True)
        self.toggle.setChecked(True)
        self.toggle.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        self.toggle.setArrowType(Qt.ArrowType.DownArrow)
        self.toggle.toggled.connect(self._on_toggled)
        layout.addWidget(self.toggle)
        self.body = AutoHeightText()
        self.body.setObjectName("reasoningText")
        self.body.setAccessibleName("Reasoning text")
        font = self.body.font()
        font.setItalic(True)
        self.body.setFont(font)
        self.body.setStyleSheet("QTextBrowser { background: transparent; color: palette(placeholder-text); }")
        layout.addWidget(self.body)
        self._clock = clock
        self._started: float | None = None
        self.seconds: float | None = None
        """How long the model reasoned, once finished (``None``: not known, e.g. stored before it was kept)."""
        self.live = True
        self.timer = QTimer(self)
        self.timer.setInterval(1000)
        self.timer.timeout.connect(self._update_title)
        self._update_title()

    @classmethod
    def stored(cls, text: str, seconds: float | None = None) -> ReasoningBlock:
        """A finished reasoning part, collapsed: "Thought for 4 s" (just "Reasoning" when ``seconds`` is not
        known, as for parts stored before the time was kept)."""
        block = cls()
        block.body.append_text(text)
        block.live = False
        block.seconds = seconds
        block._update_title()
        block.set_expanded(False)
        return block

    @property
    def text(self) -> str:
        return self.body.toPlainText()

    @property
    def expanded(self) -> bool:
        return self.toggle.isChecked()

    def append(self, text: str) -> None:
        if self._started is None and self.live:
            self._started = self._clock()
            self.timer.start()
        self.body.append_text(text)
        self._update_title()

    def finish(self, *, collapse: bool = True, seconds: float | None = None) -> None:
        """The reasoning is complete: show the summary title and (by default) fold it away. ``seconds``: how
        long it took, when known from elsewhere (a stored part); else measured from the first text to now."""
        if self.live:
            self.live = False
            self.timer.stop()
            if seconds is None and self._started is not None:
                seconds = self._clock() - self._started
            self.seconds = seconds
            self._update_title()
        if collapse:
            self.set_expanded(False)

    def set_expanded(self, expanded: bool) -> None:
        self.toggle.setChecked(expanded)

    def _on_toggled(self, checked: bool) -> None:
        from desktop_app.ui.theme import motion  # at the first fold, not before the first paint

        motion.fold(self.body, checked)  # eased open or shut (at once under reduced motion)
        self.toggle.setArrowType(Qt.ArrowType.DownArrow if checked else Qt.ArrowType.RightArrow)

    def _update_title(self) -> None:
        if self.live:
            waited = 0.0 if self._started is None else self._clock() - self._started
            title = f"Thinking… {int(waited)} s" if waited >= 1 else "Thinking…"
        else:
            title = "Reasoning" if self.seconds is None else f"Thought for {thought_for(self.seconds)}"
        self.toggle.setText(title)


class NoticeLine(QLabel):
    """One line in the transcript: an error (what happened, what to do), a stop or an info note."""

    def __init__(self, text: str, kind: str = "info", parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.kind = kind
        self.setObjectName(f"{kind}Notice")
        self.setAccessibleName(f"{kind} notice")
        self.setWordWrap(True)
        self.setTextFormat(Qt.TextFormat.PlainText)
        self.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        prefix = {"error": "⚠ ", "retry": "↻ ", "stopped": "■ "}.get(kind, "")
        self.setText(prefix + text)
        if kind == "error":
            self.setStyleSheet(
                f"QLabel {{ color: {ERROR_COLOR}; border: 1px solid {ERROR_COLOR}; border-radius: 4px;"
                " padding: 4px 8px; }"
            )
        else:
            self.setStyleSheet("QLabel { color: palette(placeholder-text); }")


__all__ = [
    "ERROR_COLOR",
    "OK_COLOR",
    "AnswerBlock",
    "NoticeLine",
    "ReasoningBlock",
    "ToolCard",
    "UsageFooter",
    "UserMessageBlock",
    "cache_hit_rate",
    "human_count",
    "pretty_json",
]
