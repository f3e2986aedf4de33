"""Sub-agent runs nested under the parent's tool card: a collapsible sub-conversation per ``chat-with-<agent>``.

A ``SubagentStarted`` event on a tool call of the shown conversation (or of a sub-conversation, for agents
that call agents) attaches a :class:`SubConversation` to that call's card: a header (the agent, how many tool
calls, its status) with a toggle, and a :class:`SubTranscript` body where the agent's prompt, its reasoning,
its streamed answer and its own tool cards appear live. Its tool cards ask for approval like any other: their
``decided`` signal reaches the view's, so the window answers them by tool-call id. A sub-conversation is open
while it streams (and opens again when one of its calls waits for approval) and folds to its header once the
agent has answered; the user opens and closes it at will.

After a restart the parent's transcript (``replay``) attaches the same widget to the stored card, closed; its
body is read from the store the first time it opens (``attach_stored``). :class:`SubagentNesting` is the
view's router: which sub-conversation each child conversation's events go to.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QToolButton, QVBoxLayout, QWidget

from desktop_app.ui.chat.common import ERROR_COLOR, OK_COLOR, escape

if TYPE_CHECKING:  # the blocks load with the first of them (``SubagentNesting`` is made before the first paint)
    from desktop_app.runtime import events as ev
    from desktop_app.ui.chat.blocks import NoticeLine, ReasoningBlock
    from desktop_app.ui.chat.markdown_view import MarkdownView
    from desktop_app.ui.chat.tool_card import ToolCard
    from desktop_app.ui.chat.view import ChatView

STATUS_TEXT = {
    "running": "Working…",
    "waiting": "Waiting for your approval",
    "finished": "Answered",
    "cancelled": "Stopped",
    "failed": "Failed",
    "tool_round_limit": "Paused at the tool-round limit",
    "stored": "",
}


class PromptLine(QLabel):
    """What the calling agent asked (the user-message part of ``ChatView``'s interface that replay uses)."""

    position: int | None = None

    def __init__(self, text: str) -> None:
        super().__init__(f"<span style='color: palette(placeholder-text)'>Asked:</span> {escape(text)}")
        self.setObjectName("subagentPrompt")
        self.setAccessibleName("What the agent was asked")
        self.setWordWrap(True)
        self.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)

    def set_sent_with(self, labels: list[str]) -> None:
        """The files the prompt went with (``attachments`` of the ``chat-with-`` call), in its tooltip."""
        self.setToolTip("Sent with: " + ", ".join(labels) if labels else "")

    def set_versions(self, _version: int, _count: int) -> None:
        """A sub-agent's prompt is never edited: it has one version."""


class SubTranscript(QWidget):
    """A sub-agent's run: its prompt, reasoning, answer and tool cards (live, or replayed from the store).

    It has the part of ``ChatView``'s interface that ``replay`` uses, so a stored run replays into it.

    Signals:
        decided(str, object): the user answered one of its tool calls (an ``ApprovalAnswer``).
    """

    decided = Signal(str, object)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("subTranscript")
        self._layout = QVBoxLayout(self)
        self._layout.setContentsMargins(0, 4, 0, 0)
        self._layout.setSpacing(6)
        self.cards: dict[str, ToolCard] = {}
        self.reasoning: ReasoningBlock | None = None
        self.answer: MarkdownView | None = None
        self.last_answer: MarkdownView | None = None
        self.footer: Any = None
        self.paused_line: Any = None
        self.prompts: list[PromptLine] = []
        self.tokens = 0
        """The tokens its run used (its own conversation's; the parent's footer counts the parent's only)."""

    def blocks(self) -> list[QWidget]:
        items = (self._layout.itemAt(i) for i in range(self._layout.count()))
        return [w for w in (item.widget() for item in items if item is not None) if w is not None]

    def _add(self, widget: QWidget) -> QWidget:
        self._layout.addWidget(widget)
        if self.isVisible() and not widget.testAttribute(Qt.WidgetAttribute.WA_WState_ExplicitShowHide):
            widget.show()  # now, as the chat view does: an approval asked with its card is answerable at once
        return widget

    # -- what replay uses (same names as ChatView) ----------------------------------------------------------

    def add_user_message(self, text: str) -> PromptLine:
        """The prompt the calling agent gave (a replayed run may have several turns)."""
        self.end_segment()
        label = PromptLine(text)
        self.prompts.append(label)
        self._add(label)
        return label

    def add_hook_notice(self, notice: Any) -> QWidget:
        from desktop_app.ui.chat.hook_notice import HookNoticeLine

        return self._add(HookNoticeLine(notice))

    def add_reasoning(self, text: str, seconds: float | None = None) -> ReasoningBlock:
        self.end_segment()
        from desktop_app.ui.chat.blocks import ReasoningBlock

        block = ReasoningBlock.stored(text, seconds)
        self._add(block)
        return block

    def add_answer(self, text: str) -> MarkdownView:
        self.end_segment()
        block = self._answer_block()
        block.set_markdown(text)  # written now, whole (a stored answer is not a stream)
        return block

    def add_tool_card(self, tool_call_id: str, server: str, tool: str, arguments: dict[str, Any]) -> ToolCard:
        return self._card(tool_call_id, server, tool, arguments)

    def add_notice(self, text: str, kind: str = "info") -> NoticeLine:
        from desktop_app.ui.chat.blocks import NoticeLine

        line = NoticeLine(text, kind)
        self._add(line)
        return line

    def show_error(self, text: str) -> NoticeLine:
        self.end_segment()
        return self.add_notice(text, "error")

    def add_paused(self, text: str) -> NoticeLine:
        return self.add_notice(text)

    def add_usage(self, usage: Any) -> None:
        """Count the run's tokens (shown in the sub-conversation's header; the parent's footer is its own)."""
        self.tokens += int(getattr(usage, "total_tokens", 0) or 0)

    def end_segment(self) -> None:
        if self.reasoning is not None:
            self.reasoning.finish(collapse=True)
            self.reasoning = None
        if self.answer is not None:
            self.answer.finish()
            self.answer = None

    # -- live events ---------------------------------------------------------------------------------------

    def _answer_block(self) -> MarkdownView:
        from desktop_app.ui.chat.markdown_view import MarkdownView

        block = MarkdownView()
        block.setObjectName("subagentAnswer")
        block.setAccessibleName("The agent's answer")
        self.last_answer = block
        self._add(block)
        return block

    def _card(self, tool_call_id: str, server: str, tool: str, arguments: dict[str, Any]) -> ToolCard:
        card = self.cards.get(tool_call_id)
        if card is None:
            self.end_segment()
            from desktop_app.ui.chat.tool_card import ToolCard

            card = ToolCard(tool_call_id, server, tool, arguments)
            card.decided.connect(self.decided)
            self.cards[tool_call_id] = card
            self._add(card)
        return card

    def append_reasoning(self, text: str) -> None:
        if self.answer is not None:
            self.end_segment()
        if self.reasoning is None:
            from desktop_app.ui.chat.blocks import ReasoningBlock

            self.reasoning = ReasoningBlock()
            self._add(self.reasoning)
        self.reasoning.append(text)

    def append_content(self, text: str) -> None:
        if self.reasoning is not None:
            self.reasoning.finish(collapse=True)
            self.reasoning = None
        if self.answer is None:
            self.answer = self._answer_block()
        self.answer.append(text)

    def pending_cards(self) -> list[ToolCard]:
        return [card for card in self.cards.values() if card.state == "waiting"]


class SubConversation(QFrame):
    """One sub-agent run under its parent's tool card: a header with a toggle, and its transcript."""

    def __init__(self, agent: str, prompt: str = "", parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.agent = agent
        self.setObjectName("subConversation")
        self.setAccessibleName(f"Sub-conversation with the agent {agent}")
        self.setStyleSheet(
            "QFrame#subConversation { border: none; border-left: 3px solid palette(highlight);"
            " background: palette(base); border-radius: 0px; }"
        )
        layout = QVBoxLayout(self)
        layout.setContentsMargins(10, 6, 6, 6)
        layout.setSpacing(2)
        header = QHBoxLayout()
        header.setSpacing(6)
        self.toggle = QToolButton()
        self.toggle.setObjectName("subConversationToggle")
        self.toggle.setAccessibleName(f"Show or hide the conversation with {agent}")
        self.toggle.setToolTip("Show or hide what the agent did")
        self.toggle.setAutoRaise(True)
        self.toggle.clicked.connect(lambda: self.set_expanded(not self.expanded))
        header.addWidget(self.toggle)
        self.title = QLabel(f"<b>{escape(agent)}</b> <span>· sub-agent</span>")
        self.title.setObjectName("subConversationTitle")
        header.addWidget(self.title, 1)
        self.summary = QLabel("")
        self.summary.setObjectName("subConversationSummary")
        self.summary.setStyleSheet("QLabel { color: palette(placeholder-text); }")
        header.addWidget(self.summary)
        self.status = QLabel("")
        self.status.setObjectName("subConversationStatus")
        self.status.setAccessibleName(f"Status of the agent {agent}")
        header.addWidget(self.status)
        layout.addLayout(header)
        self.body = SubTranscript()
        layout.addWidget(self.body)
        self.state = "stored"
        self._expanded = False
        self._loader: Callable[[SubTranscript], None] | None = None
        if prompt:
            self.body.add_user_message(prompt)
        self.set_expanded(True)

    @property
    def expanded(self) -> bool:
        return self._expanded

    def set_expanded(self, expanded: bool) -> None:
        self._expanded = expanded
        if expanded and self._loader is not None:
            loader, self._loader = self._loader, None
            loader(self.body)  # a stored run: read from the store the first time it opens
            self.refresh()
        self.body.setVisible(expanded)
        self.toggle.setArrowType(Qt.ArrowType.DownArrow if expanded else Qt.ArrowType.RightArrow)
        self.setAccessibleName(f"Sub-conversation with the agent {self.agent}{'' if expanded else ' (collapsed)'}")

    def load_later(self, loader: Callable[[SubTranscript], None]) -> None:
        """Fill the body with ``loader`` when it first opens (a stored run), closed until then."""
        self._loader = loader
        self.set_expanded(False)

    def set_state(self, state: str) -> None:
        self.state = state
        text = STATUS_TEXT.get(state, state)
        color = OK_COLOR if state == "finished" else ERROR_COLOR if state in ("failed", "cancelled") else None
        self.status.setText(text)
        self.status.setStyleSheet(f"color: {color};" if color else "color: palette(placeholder-text);")
        self.refresh()

    def refresh(self) -> None:
        from desktop_app.ui.chat.usage import human_count

        calls = len(self.body.cards)
        parts = [f"{calls} tool call{'' if calls == 1 else 's'}" if calls else ""]
        parts.append(f"{human_count(self.body.tokens)} tokens" if self.body.tokens else "")
        shown = " · ".join(p for p in parts if p)
        self.summary.setText(f"{shown} ·" if shown else "")


def attach(card: ToolCard, sub: SubConversation) -> SubConversation:
    """Put ``sub`` on ``card``, under its arguments and above its result; it stays visible when the card folds."""
    box = card.layout()
    assert isinstance(box, QVBoxLayout)
    box.insertWidget(box.indexOf(card.result_caption), sub)
    card.subconversation = sub  # type: ignore[attr-defined]
    if card.isVisible():
        sub.show()
    return sub


def attach_stored(card: ToolCard, agent: str, loader: Callable[[SubTranscript], None]) -> SubConversation:
    """A replayed ``chat-with-`` card's stored sub-agent run: closed, read from the store when opened."""
    sub = attach(card, SubConversation(agent))
    sub.load_later(loader)
    sub.set_state("stored")
    return sub


class SubagentNesting:
    """Routes the sub-agent events of a ``ChatView`` to the sub-conversations on its tool cards."""

    def __init__(self, view: ChatView) -> None:
        self.view = view
        self.subs: dict[str, SubConversation] = {}
        """Child conversation id -> its sub-conversation (nested agents included)."""

    def clear(self) -> None:
        self.subs.clear()

    def owns(self, conversation_id: str) -> bool:
        return conversation_id in self.subs

    def _host_card(self, conversation_id: str, tool_call_id: str) -> ToolCard | None:
        parent = self.subs.get(conversation_id)
        return parent.body.cards.get(tool_call_id) if parent is not None else self.view.cards.get(tool_call_id)

    def all_subs(self) -> list[SubConversation]:
        return list(self.subs.values())

    def find_card(self, tool_call_id: str) -> ToolCard | None:
        for sub in self.subs.values():
            card = sub.body.cards.get(tool_call_id)
            if card is not None:
                return card
        return None

    def pending_cards(self) -> list[ToolCard]:
        return [card for sub in self.subs.values() for card in sub.body.pending_cards()]

    def on_event(self, event: ev.Event) -> None:
        if event.kind == "subagent_started":
            self._started(event)
            return
        if event.kind == "subagent_finished":
            sub = self.subs.get(event.child_conversation_id)
            if sub is not None:
                self._finished(sub, event)
            return
        sub = self.subs.get(event.conversation_id)
        if sub is not None:
            self._dispatch(sub, event)

    def _started(self, event: ev.SubagentStarted) -> None:
        card = self._host_card(event.conversation_id, event.tool_call_id)
        if card is None:
            return
        sub = getattr(card, "subconversation", None)
        if not isinstance(sub, SubConversation):
            sub = attach(card, SubConversation(event.agent, event.prompt))
            sub.body.decided.connect(self.view.decided)
        sub.set_state("running")
        sub.set_expanded(True)
        self.subs[event.child_conversation_id] = sub

    def _finished(self, sub: SubConversation, event: ev.SubagentFinished) -> None:
        sub.body.end_segment()
        if event.status == "finished" and sub.body.last_answer is None and event.content:
            sub.body.add_answer(event.content)  # an answer that came without deltas
        for card in sub.body.pending_cards():
            card.disarm("Not answered — the agent's run ended")
        sub.set_state(event.status)
        if event.status == "finished":
            sub.set_expanded(False)  # answered: fold to its header, as a finished tool card does

    def _dispatch(self, sub: SubConversation, event: Any) -> None:
        body = sub.body
        kind = event.kind
        if kind == "reasoning_delta":
            body.append_reasoning(event.text)
        elif kind == "content_delta":
            body.append_content(event.text)
        elif kind == "tool_call":
            card = body.add_tool_card(event.tool_call_id, event.server, event.tool, event.arguments)
            card.model_call_id = event.model_call_id or event.tool_call_id
        elif kind == "approval_required":
            body.add_tool_card(event.tool_call_id, event.server, event.tool, event.arguments).ask()
            sub.set_expanded(True)  # the user must see it to answer it
            sub.set_state("waiting")
        elif kind == "approval_decided":
            card = body.add_tool_card(event.tool_call_id, "", "tool call", {})
            card.show_decision(event.approved, event.reason, event.source, event.scope, event.edited_arguments)
            if not body.pending_cards():
                sub.set_state("running")
        elif kind == "tool_result":
            card = body.add_tool_card(event.tool_call_id, event.server, event.tool, {})
            card.show_result(event.text, is_error=event.is_error, media=list(getattr(event, "media", None) or []))
            if event.hooks:
                card.show_hook_notices(list(event.hooks))
        elif kind == "tool_progress":
            running = body.cards.get(event.tool_call_id)
            if running is not None and running.state in ("running", "approved"):
                running.show_progress(event.progress, event.total, event.message)
        elif kind == "hook_notice" and not event.tool_call_id:
            body.add_hook_notice(event.notice)
        elif kind == "error":
            body.show_error(event.message)
        elif kind == "usage":
            body.add_usage(event.usage)
        elif kind == "run_finished":
            body.end_segment()
        sub.refresh()


__all__ = ["SubConversation", "SubTranscript", "SubagentNesting", "attach", "attach_stored"]
