"""One widget per part of a conversation: user message, answer, reasoning, tool card, notice, usage.

Colours come from the palette (``palette(...)`` in style sheets) so the blocks follow the system's light
or dark theme; only the error accent is a fixed colour that reads on both.
"""

from __future__ import annotations

import json
import math
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QSizeF, Qt, Signal
from PySide6.QtGui import QFontDatabase, QTextCursor
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSizePolicy,
    QTextBrowser,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

if TYPE_CHECKING:
    from desktop_app.runtime import events as ev


ERROR_COLOR = "#d64541"
OK_COLOR = "#2e9d5b"
RESULT_DISPLAY_LIMIT = 4000


def human_count(n: int) -> str:
    """1234 -> '1.2k', 999 -> '999'."""
    if n < 1000:
        return str(n)
    if n < 1_000_000:
        return f"{n / 1000:.1f}k"
    return f"{n / 1_000_000:.1f}M"


class AutoHeightText(QTextBrowser):
    """A read-only rich-text view as tall as its document, so the transcript scrolls as one page.

    ``append_text`` inserts at the end with a cursor (cheap, incremental); ``render_markdown`` replaces the
    whole document once, at the end of a message.
    """

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setOpenExternalLinks(True)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.viewport().setAutoFillBackground(False)
        self.setStyleSheet("QTextBrowser { background: transparent; }")
        self.document().setDocumentMargin(2)
        self.document().documentLayout().documentSizeChanged.connect(self._on_document_size_changed)
        self._fit(self.document().size())

    def append_text(self, text: str) -> None:
        cursor = QTextCursor(self.document())
        cursor.movePosition(QTextCursor.MoveOperation.End)
        cursor.insertText(text)

    def render_markdown(self, text: str) -> None:
        self.document().setMarkdown(text)

    def _on_document_size_changed(self, size: QSizeF) -> None:
        self._fit(size)

    def _fit(self, size: QSizeF) -> None:
        height = math.ceil(size.height()) + 2 * self.frameWidth() + 2
        if height != self.height():
            self.setFixedHeight(height)


class UserMessageBlock(QFrame):
    """What the user sent, in a tinted bubble."""

    def __init__(self, text: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("userMessage")
        self.setAccessibleName("Your message")
        self.setStyleSheet(
            "QFrame#userMessage { background: palette(alternate-base); border: 1px solid palette(midlight);"
            " border-radius: 8px; }"
        )
        layout = QVBoxLayout(self)
        layout.setContentsMargins(10, 6, 10, 6)
        self.label = QLabel(text)
        self.label.setObjectName("userMessageText")
        self.label.setWordWrap(True)
        self.label.setTextFormat(Qt.TextFormat.PlainText)
        self.label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        layout.addWidget(self.label)

    @property
    def text(self) -> str:
        return self.label.text()


class AnswerBlock(AutoHeightText):
    """The assistant's answer: plain text while it streams, rendered markdown once it has ended."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("answerView")
        self.setAccessibleName("Assistant answer")
        self._chunks: list[str] = []
        self.finished = False

    @property
    def text(self) -> str:
        return "".join(self._chunks)

    def append(self, text: str) -> None:
        self._chunks.append(text)
        self.append_text(text)

    def finish(self) -> None:
        """Render the whole answer as markdown, once."""
        if not self.finished:
            self.finished = True
            self.render_markdown(self.text)


class ReasoningBlock(QFrame):
    """The model's reasoning: fills live, collapses to a one-line summary once the answer starts."""

    def __init__(self, parent: QWidget | None = None) -> None:
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
        self._chars = 0
        self.live = True
        self._update_title()

    @property
    def text(self) -> str:
        return self.body.toPlainText()

    @property
    def expanded(self) -> bool:
        return self.toggle.isChecked()

    def append(self, text: str) -> None:
        self._chars += len(text)
        self.body.append_text(text)
        self._update_title()

    def finish(self, *, collapse: bool = True) -> None:
        """The reasoning is complete: show the summary title and (by default) fold it away."""
        if self.live:
            self.live = False
            self._update_title()
        if collapse:
            self.set_expanded(False)

    def set_expanded(self, expanded: bool) -> None:
        self.toggle.setChecked(expanded)

    def _on_toggled(self, checked: bool) -> None:
        self.body.setVisible(checked)
        self.toggle.setArrowType(Qt.ArrowType.DownArrow if checked else Qt.ArrowType.RightArrow)

    def _update_title(self) -> None:
        state = "Reasoning…" if self.live else "Reasoning"
        self.toggle.setText(f"{state} ({human_count(self._chars)} chars)")


class ToolCard(QFrame):
    """A tool call: server, tool and arguments; Approve/Deny while pending; then the decision and result.

    Signals:
        decided(str, bool): the user clicked Approve (True) or Deny (False) for this tool-call id.
    """

    decided = Signal(str, bool)

    def __init__(
        self, tool_call_id: str, server: str, tool: str, arguments: dict[str, Any], parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.tool_call_id = tool_call_id
        self.setObjectName("toolCard")
        self.setAccessibleName(f"Tool call {tool}")
        self.setStyleSheet(
            "QFrame#toolCard { border: 1px solid palette(mid); border-radius: 6px;"
            " background: palette(alternate-base); }"
        )
        layout = QVBoxLayout(self)
        layout.setContentsMargins(10, 8, 10, 8)
        header = QHBoxLayout()
        self.title = QLabel(f"<b>{_escape(tool)}</b> <span>· {_escape(server or 'unknown server')}</span>")
        self.title.setObjectName("toolCardTitle")
        header.addWidget(self.title, 1)
        self.status = QLabel("")
        self.status.setObjectName("toolCardStatus")
        header.addWidget(self.status)
        layout.addLayout(header)

        self.arguments = QLabel(pretty_json(arguments))
        self.arguments.setObjectName("toolCardArguments")
        self.arguments.setAccessibleName("Tool arguments")
        self.arguments.setTextFormat(Qt.TextFormat.PlainText)
        self.arguments.setWordWrap(True)
        self.arguments.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.arguments.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        layout.addWidget(self.arguments)

        self.buttons = QWidget()
        row = QHBoxLayout(self.buttons)
        row.setContentsMargins(0, 0, 0, 0)
        self.approve_button = QPushButton("Approve")
        self.approve_button.setObjectName("approveButton")
        self.approve_button.setAccessibleName(f"Approve {tool}")
        self.deny_button = QPushButton("Deny")
        self.deny_button.setObjectName("denyButton")
        self.deny_button.setAccessibleName(f"Deny {tool}")
        self.approve_button.clicked.connect(self._on_approve_clicked)
        self.deny_button.clicked.connect(self._on_deny_clicked)
        row.addStretch(1)
        row.addWidget(self.deny_button)
        row.addWidget(self.approve_button)
        self.buttons.hide()
        layout.addWidget(self.buttons)

        self.result_caption = QLabel("Result")
        self.result_caption.setObjectName("toolCardResultCaption")
        self.result_caption.setStyleSheet(
            "QLabel { color: palette(placeholder-text); border-top: 1px solid palette(midlight); padding-top: 4px; }"
        )
        self.result_caption.hide()
        layout.addWidget(self.result_caption)
        self.result = QLabel("")
        self.result.setObjectName("toolCardResult")
        self.result.setAccessibleName("Tool result")
        self.result.setTextFormat(Qt.TextFormat.PlainText)
        self.result.setWordWrap(True)
        self.result.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.result.hide()
        layout.addWidget(self.result)
        self.is_error = False
        self._set_status("Running…")

    def ask(self) -> None:
        """Show Approve/Deny and wait for the user."""
        self._set_status("Waiting for approval")
        self.buttons.show()
        self.approve_button.setFocus()

    def show_decision(self, approved: bool, reason: str | None = None, source: str = "user") -> None:
        self.buttons.hide()
        text = "Approved" if approved else "Denied"
        if source == "policy":
            text += " automatically"
        if reason:
            text += f": {reason}"
        self._set_status(text, OK_COLOR if approved else ERROR_COLOR)

    def show_result(self, text: str, *, is_error: bool) -> None:
        self.buttons.hide()
        self.is_error = is_error
        if len(text) > RESULT_DISPLAY_LIMIT:
            text = text[:RESULT_DISPLAY_LIMIT] + f"\n… ({len(text) - RESULT_DISPLAY_LIMIT} more characters)"
        self.result.setText(text or "(empty result)")
        self.result.setProperty("error", is_error)
        self.result.setStyleSheet(f"color: {ERROR_COLOR};" if is_error else "")
        self.result_caption.setText("Error" if is_error else "Result")
        self.result_caption.show()
        self.result.show()
        if is_error and self.status.text() in ("Running…", "Approved", "Approved automatically"):
            self._set_status("Failed", ERROR_COLOR)
        elif self.status.text() == "Running…":
            self._set_status("Done", OK_COLOR)

    def _set_status(self, text: str, color: str | None = None) -> None:
        self.status.setText(text)
        self.status.setStyleSheet(f"color: {color};" if color else "color: palette(placeholder-text);")

    def _on_approve_clicked(self) -> None:
        self._answer(True)

    def _on_deny_clicked(self) -> None:
        self._answer(False)

    def _answer(self, approved: bool) -> None:
        self.approve_button.setEnabled(False)
        self.deny_button.setEnabled(False)
        self.decided.emit(self.tool_call_id, approved)


class NoticeLine(QLabel):
    """One line in the transcript: an error (what happened, what to do), a retry, or an info note."""

    def __init__(self, text: str, kind: str = "info", parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.kind = kind
        self.setObjectName(f"{kind}Notice")
        self.setAccessibleName(f"{kind} notice")
        self.setWordWrap(True)
        self.setTextFormat(Qt.TextFormat.PlainText)
        self.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        prefix = {"error": "⚠ ", "retry": "↻ "}.get(kind, "")
        self.setText(prefix + text)
        if kind == "error":
            self.setStyleSheet(
                f"QLabel {{ color: {ERROR_COLOR}; border: 1px solid {ERROR_COLOR}; border-radius: 4px;"
                " padding: 4px 8px; }"
            )
        else:
            self.setStyleSheet("QLabel { color: palette(placeholder-text); }")


class UsageFooter(QLabel):
    """Token usage of one assistant turn (summed over its model responses)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("usageFooter")
        self.setAccessibleName("Token usage")
        self.setAlignment(Qt.AlignmentFlag.AlignRight)
        font = self.font()
        font.setPointSizeF(max(font.pointSizeF() * 0.85, 7.0))
        self.setFont(font)
        self.setStyleSheet("QLabel { color: palette(placeholder-text); }")
        self.totals: dict[str, int] = {}

    def add(self, usage: ev.TokenUsage) -> None:
        for key, value in usage.model_dump().items():
            self.totals[key] = self.totals.get(key, 0) + int(value)
        text = (
            f"{human_count(self.totals['prompt_tokens'])} prompt · "
            f"{human_count(self.totals['completion_tokens'])} completion tokens"
        )
        if self.totals.get("cache_hit_tokens"):
            text += f" · {human_count(self.totals['cache_hit_tokens'])} cached"
        self.setText(text)


def pretty_json(value: Any) -> str:
    try:
        return json.dumps(value, indent=2, ensure_ascii=False, sort_keys=False)
    except (TypeError, ValueError):
        return repr(value)


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


__all__ = [
    "AnswerBlock",
    "NoticeLine",
    "ReasoningBlock",
    "ToolCard",
    "UsageFooter",
    "UserMessageBlock",
]
