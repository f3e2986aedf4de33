"""The scrolling transcript: stacks blocks for each turn and follows the stream while at the bottom.

The stream's slots are named after the ``ChatController`` signals they render (``_on_<signal>``). Within one assistant
turn the view keeps the open reasoning block and the open answer block; a tool call closes both (the
answer gets its one markdown render), so the next response of the turn starts fresh blocks below the card.

A ``RetryScheduled`` shows a ``RetryLine`` (countdown, Retry now, Stop); the next reasoning or answer text,
a tool call or the end of the run settles it into a quiet note. A stopped run keeps its partial answer,
marked "stopped".

A run that pauses after the tool-round limit, or is stopped while tool calls wait for approval, gets a
``PausedLine`` with Continue (``continue_requested``). A continued run that asks again for a call whose card
is already shown (same tool-call id) re-arms that card instead of adding a second one.

This module builds the transcript (blocks, cards, notices, stored conversations); the slots that render a
controller's stream live in ``view_stream.StreamRenderer``, the view's ``stream`` (its slots and working line
pass through under their old names).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QEvent, Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from desktop_app.ui.chat.measure import reading_width
from desktop_app.ui.chat.view_stream import FOLLOWED_SIGNALS, StreamRenderer
from desktop_app.ui.delegate import Delegated
from desktop_app.ui.theme.focus_visible import install_focus_visible

if TYPE_CHECKING:
    # The transcript's parts load with the first of them (after the first paint: an empty chat shows none).
    from desktop_app.runtime import events as ev
    from desktop_app.ui.chat.blocks import AnswerBlock, NoticeLine, ReasoningBlock, UsageFooter, UserMessageBlock
    from desktop_app.ui.chat.earlier import EarlierLine
    from desktop_app.ui.chat.paused import PausedLine
    from desktop_app.ui.chat.replay import Transcript
    from desktop_app.ui.chat.retry import Clock, RetryLine
    from desktop_app.ui.chat.tool_card import ToolCard

STICK_MARGIN_PX = 24


class ChatView(QScrollArea):
    """The transcript of the current conversation.

    Signals:
        decided(str, object): the user answered the tool call with this id (a ``tool_card.ApprovalAnswer``).
        retry_now_requested(): the user clicked "Retry now" on the pending retry.
        stop_requested(): the user clicked "Stop" on the pending retry.
        continue_requested(): the user clicked "Continue" on a paused run.
    """

    decided = Signal(str, object)
    regenerate_requested = Signal()
    retry_run_requested = Signal()
    delete_turn_requested = Signal(int)  # the user turn, counted from the end (0: the last)
    edit_requested = Signal(int, str)  # (user turn from the end, the edited text)
    version_requested = Signal(int, int)  # (user turn from the end, the version to show)
    retry_now_requested = Signal()
    stop_requested = Signal()
    continue_requested = Signal()
    transcript_loaded = Signal()  # load_transcript has rebuilt the view from the store

    # The stream's slots and working line (``view.stream``, a ``StreamRenderer``).
    follow = Delegated("stream")
    working = Delegated("stream")
    for _signal in FOLLOWED_SIGNALS:
        locals()[f"_on_{_signal}"] = Delegated("stream", f"on_{_signal}")
    del _signal

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.stream = StreamRenderer(self)
        self.setObjectName("chatView")
        self.setAccessibleName("Conversation")
        install_focus_visible(self)  # its ring for keyboard focus only: a click is no reason to frame the chat
        self.setWidgetResizable(True)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        page = QWidget()
        page.setObjectName("chatPage")
        outer = QHBoxLayout(page)
        outer.setContentsMargins(16, 16, 16, 16)
        self.column = QWidget()
        self.column.setObjectName("readingColumn")
        self._fit_column()
        outer.addStretch(0)
        outer.addWidget(self.column, 1)
        outer.addStretch(0)
        self._layout = QVBoxLayout(self.column)
        self._layout.setContentsMargins(0, 0, 0, 0)
        self._layout.setSpacing(10)
        self._layout.addStretch(1)
        self.setWidget(page)

        self.cards: dict[str, ToolCard] = {}
        from desktop_app.ui.chat.subagents import SubagentNesting

        self.nested = SubagentNesting(self)  # sub-agent runs under their tool cards (``subagents``)
        self.request_cards: dict[str, QWidget] = {}  # servers' sampling/elicitation requests, by request id
        self.reasoning: ReasoningBlock | None = None
        self.answer: AnswerBlock | None = None
        self.footer: UsageFooter | None = None
        self.retry_line: RetryLine | None = None
        self.last_answer: AnswerBlock | None = None
        self.paused_line: PausedLine | None = None
        self.earlier_line: EarlierLine | None = None
        self.max_tool_rounds: int | None = None  # for "Paused after N tool rounds" (set by the window)
        self.clock: Clock = time.monotonic  # the retry countdown's clock (tests inject a fake one)
        self.empty_hint = QLabel("Ask anything. Enter sends, Shift+Enter adds a line, Esc stops.")
        self.empty_hint.setObjectName("emptyHint")
        self.empty_hint.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.empty_hint.setWordWrap(True)  # the column can be narrower than the line: wrap, never clip
        self._layout.insertWidget(self._layout.count() - 1, self.empty_hint)  # no block yet: nothing to connect
        self._layout.setStretchFactor(self.empty_hint, 3)  # an empty chat's hint sits a little above the middle
        self._stick = True
        self._assistant_labelled = False
        bar = self.verticalScrollBar()
        bar.valueChanged.connect(self._on_scroll_value_changed)
        bar.rangeChanged.connect(self._on_scroll_range_changed)

    # -- building ----------------------------------------------------------------------------------------

    def _fit_column(self) -> None:
        self.column.setMaximumWidth(reading_width())

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() in (QEvent.Type.FontChange, QEvent.Type.ApplicationFontChange):
            self._fit_column()

    def _add(self, widget: QWidget) -> None:
        from desktop_app.ui.chat.blocks import AnswerBlock, ReasoningBlock
        from desktop_app.ui.chat.tool_card import ToolCard

        if isinstance(widget, AnswerBlock | ReasoningBlock | ToolCard) and not self._assistant_labelled:
            self._assistant_labelled = True  # the turn's first assistant part: name who speaks
            label = QLabel("Switchboard")
            label.setObjectName("assistantLabel")
            label.setAccessibleName("Assistant's turn")
            self._insert(label)
        self._insert(widget)

    def _connect_actions(self, widget: QWidget) -> None:
        from desktop_app.ui.chat.blocks import UserMessageBlock
        from desktop_app.ui.chat.message_actions import MessageActions

        actions = getattr(widget, "actions_row", None)
        if isinstance(actions, MessageActions):
            actions.regenerate_clicked.connect(self.regenerate_requested)
            actions.delete_clicked.connect(lambda: self.delete_turn_requested.emit(self._turn_from_end(widget)))
        if isinstance(widget, UserMessageBlock):
            widget.edit_submitted.connect(lambda text: self.edit_requested.emit(self._turn_from_end(widget), text))
            widget.version_requested.connect(
                lambda version: self.version_requested.emit(self._turn_from_end(widget), version)
            )

    def _turn_from_end(self, block: QWidget) -> int:
        from desktop_app.ui.chat.blocks import UserMessageBlock

        users = [b for b in self.blocks() if isinstance(b, UserMessageBlock)]
        return len(users) - 1 - users.index(block) if block in users else 0

    def refresh_actions(self) -> None:
        """Regenerate only on the last answer, and only when nothing runs."""
        from desktop_app.ui.chat.blocks import AnswerBlock

        answers = [b for b in self.blocks() if isinstance(b, AnswerBlock)]
        for answer in answers:
            answer.actions_row.regenerate_button.setVisible(answer is answers[-1] and not self.stream.running)

    def add_retry_run(self, *, primary: bool = False) -> QWidget:
        """A Retry button under a failed or stopped run; ``primary``: the error's own action (accent-filled)."""
        row = QWidget()
        row.setObjectName("retryRunRow")
        layout = QHBoxLayout(row)
        layout.setContentsMargins(0, 0, 0, 0)
        button = QPushButton("Retry")
        if primary:
            button.setProperty("kind", "primary")
        button.setObjectName("retryRunButton")
        button.setAccessibleName("Retry the last message")
        button.setToolTip("Send the last message again (what this run produced goes)")
        button.clicked.connect(self.retry_run_requested)
        layout.addWidget(button)
        layout.addStretch(1)
        self.retry_run_row = row
        self._add(row)
        return row

    retry_run_row: QWidget | None = None

    def _insert(self, widget: QWidget) -> None:
        self._connect_actions(widget)
        index = self._layout.count() - 1  # before the trailing stretch
        if self.footer is not None and self._layout.indexOf(self.footer) >= 0:
            index = self._layout.indexOf(self.footer)
        self._layout.insertWidget(index, widget)
        if self.isVisible() and not widget.testAttribute(Qt.WidgetAttribute.WA_WState_ExplicitShowHide):
            widget.show()  # now, not on a later turn of the event loop (Qt's default for a shown parent)

    def insert_after(self, after: QWidget, widget: QWidget) -> None:
        """Put ``widget`` right after ``after`` in the transcript (an answer's ``‹ n/m ›``: ``answer_versions``)."""
        self._layout.insertWidget(self._layout.indexOf(after) + 1, widget, 0, Qt.AlignmentFlag.AlignLeft)
        if self.isVisible():
            widget.show()

    def add_block(self, widget: QWidget) -> QWidget:
        """Add a widget made elsewhere (e.g. the store-failure notice) at the end of the transcript."""
        self.empty_hint.hide()
        self._add(widget)
        return widget

    def blocks(self) -> list[QWidget]:
        items = (self._layout.itemAt(i) for i in range(self._layout.count()))
        return [w for w in (item.widget() for item in items if item is not None) if w is not None]

    def clear(self) -> None:
        waiting = [card for card in self.request_cards.values() if getattr(card, "is_open", False)]
        for widget in self.blocks():
            if widget is not self.empty_hint and widget not in waiting:  # a server's open request stays
                self._layout.removeWidget(widget)
                widget.deleteLater()
        self.request_cards = {key: card for key, card in self.request_cards.items() if card in waiting}
        self.empty_hint.setVisible(not waiting)
        self.cards.clear()
        self.nested.clear()
        self.reasoning = self.answer = None
        self.footer = None
        self.retry_line = self.last_answer = None
        self.paused_line = None
        self.earlier_line = None
        self.retry_run_row = None
        self._assistant_labelled = False
        self.stream.running = False
        self._stick = True

    def add_user_message(self, text: str) -> UserMessageBlock:
        from desktop_app.ui.chat.blocks import UserMessageBlock

        self.empty_hint.hide()
        self.footer = None  # a new turn: the previous footer stays with its turn
        self.settle_retry()
        self.settle_paused("Not continued: a new message was sent")
        block = UserMessageBlock(text)
        self._assistant_labelled = False
        self._add(block)
        self._stick = True
        return block

    def add_notice(self, text: str, kind: str = "info") -> NoticeLine:
        from desktop_app.ui.chat.blocks import NoticeLine

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

    def settle_retry(self, note: str | None = None) -> None:
        """The retried call is over (an answer, a tool call or the end of the run came): quiet the line."""
        if self.retry_line is not None:
            self.retry_line.settle(note)
            self.retry_line = None

    def settle_paused(self, note: str | None = None) -> None:
        if self.paused_line is not None:
            self.paused_line.settle(note)
            self.paused_line = None

    def add_paused(self, text: str) -> PausedLine:
        from desktop_app.ui.chat.paused import PausedLine

        self.settle_paused()
        self.empty_hint.hide()
        line = PausedLine(text)
        line.continue_clicked.connect(self.continue_requested)
        self.paused_line = line
        self._add(line)
        return line

    def approval_failed(self, tool_call_id: str) -> None:
        """The runtime refused the answer (the call no longer waits): take the controls off the card."""
        card = self.cards.get(tool_call_id) or self.nested.find_card(tool_call_id)
        if card is not None:
            card.disarm("No longer waiting for approval")

    def add_server_request(self, card: QWidget) -> None:
        """A server's request (sampling, elicitation: ``ui.servers.requests``) inline in the transcript.

        It is not part of a conversation: while it waits (``card.is_open``) it stays through ``clear()``."""
        self.empty_hint.hide()
        self.request_cards[str(getattr(card, "request_id", id(card)))] = card
        self._add(card)
        self._stick = True

    def pending_cards(self) -> list[ToolCard]:
        return [card for card in self.cards.values() if card.state == "waiting"] + self.nested.pending_cards()

    def _card(self, tool_call_id: str, server: str, tool: str, arguments: dict[str, Any]) -> ToolCard:
        from desktop_app.ui.chat.tool_card import ToolCard

        card = self.cards.get(tool_call_id)
        if card is None:
            self.end_segment()
            self.settle_retry()
            card = ToolCard(tool_call_id, server, tool, arguments)
            card.decided.connect(self.decided)
            card.user_toggled.connect(self._hold_position)
            self.cards[tool_call_id] = card
            self._drop_actions_above_card()
            self._add(card)
        return card

    def _drop_actions_above_card(self) -> None:
        """An answer part followed by a tool card gets no action row wedged between the two: the turn's
        actions are under its last answer."""
        from desktop_app.ui.chat.blocks import AnswerBlock

        shown = [b for b in self.blocks() if b is not self.footer and not b.isHidden()]
        if shown and isinstance(shown[-1], AnswerBlock):
            shown[-1].actions_row.hide()

    def _hold_position(self, _expanded: bool) -> None:
        """The user unfolded or folded a card: keep what is on screen where it is (no jump to the bottom,
        which would push the card just clicked off the top)."""
        self._stick = False

    # -- stored conversations (``replay``) ------------------------------------------------------------------

    def add_tool_card(self, tool_call_id: str, server: str, tool: str, arguments: dict[str, Any]) -> ToolCard:
        """The card of this tool call (made once; a call asked again reuses it)."""
        return self._card(tool_call_id, server, tool, arguments)

    def add_reasoning(self, text: str, seconds: float | None = None) -> ReasoningBlock:
        """A finished reasoning part, collapsed ("Thought for ``seconds``")."""
        from desktop_app.ui.chat.blocks import ReasoningBlock

        if self.answer is not None:
            self.end_segment()
        self.empty_hint.hide()
        block = ReasoningBlock.stored(text, seconds)
        self._add(block)
        return block

    def add_answer(self, text: str) -> AnswerBlock:
        """A finished answer part, rendered as markdown."""
        from desktop_app.ui.chat.blocks import AnswerBlock

        self.end_segment()
        self.empty_hint.hide()
        block = AnswerBlock()
        block.set_markdown(text)  # written now, whole (a stored answer is not a stream)
        self._add(block)
        return block

    def add_usage(self, usage: ev.TokenUsage) -> UsageFooter:
        """Add to the current turn's usage footer (made on first use)."""
        from desktop_app.ui.chat.blocks import UsageFooter

        if self.footer is None:
            self.footer = UsageFooter()
            self._layout.insertWidget(self._layout.count() - 1, self.footer)
        self.footer.add(usage)
        return self.footer

    def load_transcript(self, transcript: Transcript) -> None:
        """Replace what the view shows with a stored conversation (see ``replay``); a windowed transcript
        gets a "Show earlier" line on top."""
        from desktop_app.ui.chat.earlier import EarlierLine
        from desktop_app.ui.chat.replay import replay_transcript

        self.clear()
        more = transcript.more
        if transcript.earlier and more is not None:
            self.earlier_line = EarlierLine(transcript.earlier)
            self.earlier_line.show_requested.connect(lambda: self._show_earlier(more(), len(transcript.messages)))
            self._add(self.earlier_line)
        replay_transcript(self, transcript)
        self._stick = True
        self.refresh_actions()
        self.transcript_loaded.emit()  # e.g. the compaction divider goes back in (``chat.compaction``)

    def _show_earlier(self, transcript: Transcript, shown: int) -> None:
        """Show a larger window of the conversation, keeping the message that was on top in view."""
        from desktop_app.ui.chat.blocks import UserMessageBlock

        self.load_transcript(transcript)
        self._stick = False
        first_kept = len(transcript.messages) - shown  # the old window began with this (user) message
        turn = sum(1 for m in transcript.messages[:first_kept] if m.role == "user")
        users = [w for w in self.blocks() if isinstance(w, UserMessageBlock)]
        if 0 <= turn < len(users):
            anchor = users[turn]
            QTimer.singleShot(0, lambda: self.ensureWidgetVisible(anchor, 0, 0))

    def add_hook_notice(self, notice: Any) -> QWidget:
        """A turn-level hook notice: its chip (before/after on click) and its sentence, in the transcript."""
        from desktop_app.ui.chat.hook_notice import HookNoticeLine

        self.empty_hint.hide()
        line = HookNoticeLine(notice)
        self._add(line)
        return line

    # -- following the stream ----------------------------------------------------------------------------

    def _on_scroll_value_changed(self, value: int) -> None:
        self._stick = value >= self.verticalScrollBar().maximum() - STICK_MARGIN_PX

    follow_limit: Callable[[], int | None] | None = None
    """Where following the stream stops, as a scroll value (the quick prompt: its question at the top); a view
    scrolled below it follows to the end."""

    def _on_scroll_range_changed(self, _minimum: int, maximum: int) -> None:
        if self._stick:
            bar, limit = self.verticalScrollBar(), self.follow_limit() if self.follow_limit is not None else None
            bar.setValue(maximum if limit is None or bar.value() > limit else min(maximum, limit))
