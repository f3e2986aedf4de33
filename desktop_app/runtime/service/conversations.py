"""The Runtime's conversations: creating, loading, finding and trimming them.

:class:`ConversationTable` keeps the in-memory :class:`~desktop_app.runtime.conversation.Conversation`
objects by id: new ones (with the system prompt and system blocks), stored ones loaded lazily, history
trimmed for regenerate/retry, pending tool calls of a paused turn, and the usage totals of a reopened
conversation. Which agent a conversation talks to is :class:`~.routing.Routing`'s.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import Literal

from desktop_app.runtime import events as ev
from desktop_app.runtime.conversation import Conversation, pending_tool_calls
from desktop_app.runtime.errors import ConversationBusyError, RunError
from desktop_app.runtime.messages import Message, SystemMessage, ToolCallRequest, UserMessage
from desktop_app.runtime.settings import Settings


class ConversationTable:
    """The conversations by id (one active run each: ``Conversation.active_run``)."""

    def __init__(self, settings: Callable[[], Settings]) -> None:
        self._settings = settings
        self._by_id: dict[str, Conversation] = {}
        self.system_blocks: list[Callable[[], str]] = []
        """Deterministic text appended to the system prompt of new conversations (e.g. the skills index)."""

    def default_system_prompt(self) -> str:
        """The settings' system prompt and the system blocks (e.g. the skills index)."""
        blocks = [self._settings().system_prompt, *(b() for b in self.system_blocks)]
        return "\n\n".join(text for text in blocks if text)

    def create(self) -> Conversation:
        """A new empty conversation with the default system prompt."""
        conv = Conversation(id=uuid.uuid4().hex)
        system = self.default_system_prompt()
        if system:
            conv.messages.append(SystemMessage(content=system))
        self._by_id[conv.id] = conv
        return conv

    def get(self, conversation_id: str) -> Conversation | None:
        return self._by_id.get(conversation_id)

    def conversation(self, conversation_id: str) -> Conversation:
        try:
            return self._by_id[conversation_id]
        except KeyError:
            raise RunError(f"Conversation {conversation_id!r} does not exist.") from None

    def is_running(self, conversation_id: str) -> bool:
        conv = self._by_id.get(conversation_id)
        return conv is not None and conv.active_run is not None

    def load_conversation(
        self, conversation_id: str, messages: list[Message] | Callable[[], list[Message]]
    ) -> Conversation:
        """Make a stored conversation (e.g. from the store after a restart) available to runs. ``messages``
        may be a loader, called when the history is first needed (see ``Conversation``)."""
        history = messages if callable(messages) else list(messages)
        conv = self._by_id.get(conversation_id)
        if conv is None:
            conv = Conversation(id=conversation_id, messages=history)
            self._by_id[conversation_id] = conv
        elif conv.active_run is None:
            conv.messages = history
        return conv

    def forget(self, conversation_id: str, user_turn: int, *, what: Literal["answer", "turn"]) -> tuple[int, int]:
        """Drop part of the history: the answer to the ``user_turn``-th user message (0-based; everything up
        to the next user message), or the whole turn (that message too). Regenerating an answer or retrying
        a failed run is ``forget(..., what="answer")`` on the last turn, then ``continue_run``, which asks the
        model again. Refused while a run is active. Returns the (start, end) indexes removed; the store is the
        caller's to change the same way (``Store.delete_message_range``)."""
        conv = self.conversation(conversation_id)
        if conv.active_run is not None:
            raise ConversationBusyError("Stop the run first: its conversation cannot change while it runs.")
        prompts = [i for i, m in enumerate(conv.messages) if isinstance(m, UserMessage)]
        if not 0 <= user_turn < len(prompts):
            raise RunError(f"The conversation has no user message {user_turn + 1}.")
        start = prompts[user_turn] + (1 if what == "answer" else 0)
        end = prompts[user_turn + 1] if user_turn + 1 < len(prompts) else len(conv.messages)
        conv.messages = conv.messages[:start] + conv.messages[end:]
        return start, end

    def pending_tool_calls(self, conversation_id: str) -> list[ToolCallRequest]:
        """Tool calls of a paused turn that have no result yet (they wait for ``continue_run``)."""
        return pending_tool_calls(self.conversation(conversation_id).messages)

    def set_conversation_usage(self, conversation_id: str, usage: ev.TokenUsage) -> None:
        """Start a reopened conversation's usage totals from what the store recorded of its earlier runs."""
        self.conversation(conversation_id).usage = usage

    def transcript_messages(self, conversation_id: str) -> tuple[object, ...]:
        """The conversation's messages as a Claude Code hook's transcript reads them (unknown: none)."""
        conv = self._by_id.get(conversation_id)
        return tuple(conv.messages) if conv is not None else ()
