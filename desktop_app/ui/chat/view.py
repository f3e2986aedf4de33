"""The scrolling transcript: stacks blocks for each turn and follows the stream while at the bottom.

Slots are named after the ``ChatController`` signals they render (``_on_<signal>``). Within one assistant
turn the view keeps the open reasoning block and the open answer block; a tool call closes both (the
answer gets its one markdown render), so the next response of the turn starts fresh blocks below the card.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QScrollArea, QVBoxLayout, QWidget

from desktop_app.ui.chat.blocks import (
    AnswerBlock,
    NoticeLine,
    ReasoningBlock,
    ToolCard,
    UsageFooter,
    UserMessageBlock,
)

if TYPE_CHECKING:
    from desktop_app.runtime import events as ev

COLUMN_MAX_WIDTH = 880
STICK_MARGIN_PX = 24


class ChatView(QScrollArea):
    """The transcript of the current conversation.

    Signals:
        decided(str, bool): the user approved (True) or denied (False) the tool call with this id.
    """

    decided = Signal(str, bool)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("chatView")
        self.setAccessibleName("Conversation")
        self.setWidgetResizable(True)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        page = QWidget()
        page.setObjectName("chatPage")
        outer = QHBoxLayout(page)
        outer.setContentsMargins(16, 16, 16, 16)
        self.column = QWidget()
        self.column.setMaximumWidth(COLUMN_MAX_WIDTH)
        outer.addStretch(0)
        outer.addWidget(self.column, 1)
        outer.addStretch(0)
        self._layout = QVBoxLayout(self.column)
        self._layout.setContentsMargins(0, 0, 0, 0)
        self._layout.setSpacing(10)
        self._layout.addStretch(1)
        self.setWidget(page)

        self.cards: dict[str, ToolCard] = {}
        self.reasoning: ReasoningBlock | None = None
        self.answer: AnswerBlock | None = None
        self.footer: UsageFooter | None = None
        self.empty_hint = QLabel("Ask anything. Ctrl+Enter sends, Esc stops.")
        self.empty_hint.setObjectName("emptyHint")
        self.empty_hint.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.empty_hint.setStyleSheet("QLabel { color: palette(placeholder-text); }")
        self._add(self.empty_hint)
        self._stick = True
        self._turn_answered = False
        bar = self.verticalScrollBar()
        bar.valueChanged.connect(self._on_scroll_value_changed)
        bar.rangeChanged.connect(self._on_scroll_range_changed)

    # -- building ----------------------------------------------------------------------------------------

    def _add(self, widget: QWidget) -> None:
        index = self._layout.count() - 1  # before the trailing stretch
        if self.footer is not None and self._layout.indexOf(self.footer) >= 0:
            index = self._layout.indexOf(self.footer)
        self._layout.insertWidget(index, widget)

    def blocks(self) -> list[QWidget]:
        items = (self._layout.itemAt(i) for i in range(self._layout.count()))
        return [w for w in (item.widget() for item in items if item is not None) if w is not None]

    def clear(self) -> None:
        for widget in self.blocks():
            if widget is not self.empty_hint:
                self._layout.removeWidget(widget)
                widget.deleteLater()
        self.empty_hint.show()
        self.cards.clear()
        self.reasoning = self.answer = None
        self.footer = None
        self._stick = True

    def add_user_message(self, text: str) -> UserMessageBlock:
        self.empty_hint.hide()
        self.footer = None  # a new turn: the previous footer stays with its turn
        block = UserMessageBlock(text)
        self._add(block)
        self._stick = True
        return block

    def add_notice(self, text: str, kind: str = "info") -> NoticeLine:
        self.empty_hint.hide()
        line = NoticeLine(text, kind)
        self._add(line)
        return line

    def show_error(self, text: str) -> NoticeLine:
        self.end_segment()
        return self.add_notice(text, "error")

    def end_segment(self) -> None:
        """Close the open reasoning and answer blocks (render the answer's markdown)."""
        if self.reasoning is not None:
            self.reasoning.finish(collapse=True)
            self.reasoning = None
        if self.answer is not None:
            self.answer.finish()
            self.answer = None

    def _card(self, tool_call_id: str, server: str, tool: str, arguments: dict[str, object]) -> ToolCard:
        card = self.cards.get(tool_call_id)
        if card is None:
            self.end_segment()
            card = ToolCard(tool_call_id, server, tool, arguments)
            card.decided.connect(self.decided)
            self.cards[tool_call_id] = card
            self._add(card)
        return card

    # -- controller signals ------------------------------------------------------------------------------

    def _on_run_started(self, event: ev.RunStarted) -> None:
        self.end_segment()
        self._turn_answered = False
        self.empty_hint.hide()

    def _on_reasoning_appended(self, text: str) -> None:
        if self.answer is not None:  # reasoning after an answer part: a new segment
            self.end_segment()
        if self.reasoning is None:
            self.reasoning = ReasoningBlock()
            self._add(self.reasoning)
        self.reasoning.append(text)

    def _on_content_appended(self, text: str) -> None:
        if self.reasoning is not None and self.reasoning.live:
            self.reasoning.finish(collapse=True)
        self._turn_answered = True
        if self.answer is None:
            self.answer = AnswerBlock()
            self._add(self.answer)
        self.answer.append(text)

    def _on_tool_called(self, event: ev.ToolCall) -> None:
        self._card(event.tool_call_id, event.server, event.tool, event.arguments)

    def _on_approval_required(self, event: ev.ApprovalRequired) -> ToolCard:
        card = self._card(event.tool_call_id, event.server, event.tool, event.arguments)
        card.ask()
        return card

    def _on_approval_decided(self, event: ev.ApprovalDecided) -> None:
        card = self.cards.get(event.tool_call_id)
        if card is not None:
            card.show_decision(event.approved, event.reason, event.source)

    def _on_tool_result(self, event: ev.ToolResult) -> None:
        card = self._card(event.tool_call_id, event.server, event.tool, {})
        card.show_result(event.text, is_error=event.is_error)

    def _on_retry_scheduled(self, event: ev.RetryScheduled) -> None:
        info = event.retry
        if info.stream_reset:  # the partial output so far is void: drop the open blocks
            for block in (self.reasoning, self.answer):
                if block is not None:
                    self._layout.removeWidget(block)
                    block.deleteLater()
            self.reasoning = self.answer = None
        self.add_notice(
            f"Retrying in {info.delay_s:.0f} s (attempt {info.attempt} of {info.max_attempts}): {info.reason}",
            "retry",
        )

    def _on_usage_reported(self, event: ev.Usage) -> None:
        if self.footer is None:
            self.footer = UsageFooter()
            self._layout.insertWidget(self._layout.count() - 1, self.footer)
        self.footer.add(event.usage)

    def _on_run_finished(self, event: ev.RunFinished) -> None:
        if not self._turn_answered and event.content:  # an answer that arrived without deltas
            self._on_content_appended(event.content)
        self.end_segment()
        notes = {
            "cancelled": "Stopped. The partial answer is kept; send a new message to go on.",
            "max_tokens": "The answer hit the model's token limit and may be cut short.",
            "tool_round_limit": "Paused after the tool-round limit. Send “continue” to let it go on.",
        }
        if event.reason in notes:
            self.add_notice(notes[event.reason])

    def _on_run_failed(self, event: ev.Error) -> None:
        text = event.message
        if event.retryable:
            text += " You can send the message again."
        self.show_error(text)

    # -- following the stream ----------------------------------------------------------------------------

    def _on_scroll_value_changed(self, value: int) -> None:
        self._stick = value >= self.verticalScrollBar().maximum() - STICK_MARGIN_PX

    def _on_scroll_range_changed(self, _minimum: int, maximum: int) -> None:
        if self._stick:
            self.verticalScrollBar().setValue(maximum)
