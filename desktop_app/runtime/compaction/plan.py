"""Conversation compaction, the data half: which turns a compaction covers, and what a request then sends.

A compaction summarises a conversation's older turns so that it keeps working past the model's context
window (#16, Deliver 5). Nothing is deleted: the conversation keeps every message, and a :class:`Compaction`
mark says that its first ``turns`` user turns (and everything that answered them) are replaced, *in the
request only*, by ``summary``. Request assembly (:func:`request_history`) then sends the leading system
messages, one system message with the summary, and the rest verbatim. Undo marks the compaction
``undone``; the next request has the full history again (or the previous compaction's view).

The boundary is counted in user turns, not in message indexes: the store rebuilds the same user turns
after a restart (every stored user message is one ``UserMessage``), while other message counts differ
(the system prompt is not stored, empty assistant messages are skipped). The latest ``keep_turns`` turns
stay verbatim, and at least one: the turn in progress is never summarised away.

The summary request is built here too (:func:`summary_request`): the covered turns as a plain-text
transcript (tool results as head/tail digests), the previous summary when one is being folded in, and the
PreCompact hooks' additional context. It is deterministic: the same history gives the same request.
The operation itself (hooks, the provider, events) is :mod:`.compactor`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from desktop_app.runtime.compaction.tool_digest import digest
from desktop_app.runtime.messages import AssistantMessage, Message, SystemMessage, ToolMessage, UserMessage
from desktop_app.runtime.providers.base import ChatRequest

TRANSCRIPT_TOOL_RESULT_CHARS = 2_000
"""A tool result goes into the summary prompt as a head/tail digest of at most this many characters."""
TRANSCRIPT_MESSAGE_CHARS = 8_000
"""A user or assistant message goes into the summary prompt as a digest of at most this many characters."""

SUMMARY_INSTRUCTIONS = (
    "You compact conversations between a user and an AI assistant so that they can go on without their "
    "earlier messages. Write a summary the assistant can continue from: the user's goals and requests, the "
    "facts, decisions and results established so far, what tools were used and what they returned that still "
    "matters, open questions, and where the work stands now. Keep names, numbers, file paths, URLs and code "
    "identifiers exactly as written. Write in the language of the conversation. Reply with the summary only."
)


@dataclass(frozen=True)
class Compaction:
    """One compaction of a conversation: its first ``turns`` user turns are sent as ``summary``."""

    id: str
    turns: int
    """User turns covered (from the start of the conversation); the turns after them are sent verbatim."""
    summary: str
    messages_before: int
    """Messages the model was sent before the compaction (system messages included)."""
    messages_after: int
    """Messages it is sent after it: the system messages, the summary and the verbatim tail."""
    summarised: int = 0
    """Conversation messages the summary stands for (what the divider says)."""
    created_at: float = 0.0
    model: str = ""
    reason: str = "manual"
    """``manual`` (the user's command) or ``auto`` (the context passed the threshold)."""
    undone: bool = False


def active(compactions: Sequence[Compaction]) -> Compaction | None:
    """The compaction in force: the latest one not undone (it folds in every earlier one)."""
    for compaction in reversed(compactions):
        if not compaction.undone:
            return compaction
    return None


def user_indexes(messages: Sequence[Message]) -> list[int]:
    return [i for i, m in enumerate(messages) if isinstance(m, UserMessage)]


def boundary(messages: Sequence[Message], turns: int) -> int | None:
    """The index of the first message sent verbatim when ``turns`` user turns are compacted; ``None`` when the
    history no longer has that many turns (it was edited since: the compaction does not apply)."""
    users = user_indexes(messages)
    if turns <= 0 or turns > len(users):
        return None
    return users[turns] if turns < len(users) else len(messages)


def _leading_system(messages: Sequence[Message]) -> list[Message]:
    lead: list[Message] = []
    for message in messages:
        if not isinstance(message, SystemMessage):
            break
        lead.append(message)
    return lead


def summary_message(compaction: Compaction) -> SystemMessage:
    """The system message that stands for the compacted turns in every later request (byte-stable)."""
    return SystemMessage(
        content=(
            "<conversation-summary>\n"
            f"The earlier part of this conversation ({compaction.summarised} messages) was compacted; "
            "this is its summary.\n\n"
            f"{compaction.summary.strip()}\n"
            "</conversation-summary>"
        )
    )


def request_history(messages: Sequence[Message], compactions: Sequence[Compaction]) -> list[Message]:
    """The history a request sends: with a compaction in force, the leading system messages, the summary and
    the verbatim tail; otherwise the whole history."""
    current = active(compactions)
    cut = boundary(messages, current.turns) if current is not None else None
    if current is None or cut is None:
        return list(messages)
    lead = _leading_system(messages)
    return [*lead, summary_message(current), *messages[max(cut, len(lead)) :]]


@dataclass(frozen=True)
class Plan:
    """What a new compaction would cover: ``turns`` user turns; ``start``..``end`` are the messages its summary
    newly takes in (those after the previous compaction's boundary), ``previous`` the summary it folds in."""

    turns: int
    start: int
    end: int
    previous: Compaction | None


def plan(messages: Sequence[Message], compactions: Sequence[Compaction], keep_turns: int) -> Plan | None:
    """Which turns to compact, keeping the latest ``keep_turns`` (at least one) verbatim; ``None`` when there is
    nothing (more) to compact."""
    users = user_indexes(messages)
    keep = max(1, keep_turns)
    turns = len(users) - keep
    if turns < 1:
        return None
    previous = active(compactions)
    start = 0
    if previous is not None:
        cut = boundary(messages, previous.turns)
        if cut is not None:
            if previous.turns >= turns:
                return None  # the turns that could go are compacted already
            start = cut
        else:
            previous = None
    lead = len(_leading_system(messages))
    return Plan(turns=turns, start=max(start, lead), end=users[turns], previous=previous)


def _text(message: Message) -> str:
    if isinstance(message, UserMessage):
        return message.text_with_attachments() + "".join(f"\n[image: {a.name}]" for a in message.images)
    return message.content


def transcript(messages: Sequence[Message]) -> str:
    """The messages as a plain-text transcript for the summariser (reasoning left out, tool results digested)."""
    lines: list[str] = []
    for message in messages:
        if isinstance(message, UserMessage):
            lines.append(f"[user]\n{digest(_text(message), TRANSCRIPT_MESSAGE_CHARS)}")
        elif isinstance(message, AssistantMessage):
            if message.content:
                lines.append(f"[assistant]\n{digest(message.content, TRANSCRIPT_MESSAGE_CHARS)}")
            for call in message.tool_calls:
                lines.append(f"[assistant called {call.name}]\n{digest(call.arguments, TRANSCRIPT_MESSAGE_CHARS)}")
        elif isinstance(message, ToolMessage):
            status = "tool error" if message.is_error else "tool result"
            lines.append(f"[{status}]\n{digest(message.content, TRANSCRIPT_TOOL_RESULT_CHARS)}")
        elif isinstance(message, SystemMessage):
            lines.append(f"[system]\n{digest(message.content, TRANSCRIPT_MESSAGE_CHARS)}")
    return "\n\n".join(lines)


def summary_request(
    model: str, messages: Sequence[Message], chosen: Plan, *, hook_context: str = "", max_tokens: int | None = None
) -> ChatRequest:
    """The request that asks the conversation's own model for the summary of ``chosen``'s turns."""
    parts = []
    if chosen.previous is not None:
        parts.append(
            "An earlier part of the conversation was summarised already; fold it into your summary:\n"
            f"<previous-summary>\n{chosen.previous.summary.strip()}\n</previous-summary>"
        )
    parts.append(f"<conversation>\n{transcript(messages[chosen.start : chosen.end])}\n</conversation>")
    if hook_context.strip():
        extra = hook_context.strip()
        parts.append(f"Also follow these instructions for the summary:\n<instructions>\n{extra}\n</instructions>")
    parts.append("Summarise the conversation above.")
    return ChatRequest(
        model=model,
        messages=(SystemMessage(content=SUMMARY_INSTRUCTIONS), UserMessage(content="\n\n".join(parts))),
        max_tokens=max_tokens,
    )


def summarised_count(messages: Sequence[Message], turns: int) -> int:
    """How many conversation messages (not system messages) the first ``turns`` turns hold."""
    cut = boundary(messages, turns)
    if cut is None:
        return 0
    return sum(1 for m in messages[:cut] if not isinstance(m, SystemMessage))


def undo(compactions: list[Compaction], compaction_id: str | None = None) -> Compaction | None:
    """Mark the compaction in force (or the one named) undone, in place; returns it (``None``: nothing to undo)."""
    for index in range(len(compactions) - 1, -1, -1):
        item = compactions[index]
        if not item.undone and (compaction_id is None or item.id == compaction_id):
            compactions[index] = replace(item, undone=True)
            return compactions[index]
    return None


def describe(compaction: Compaction) -> dict[str, object]:
    """The compaction as plain data (the CLI's JSON, the store's payload)."""
    return {
        "id": compaction.id,
        "turns": compaction.turns,
        "summarised": compaction.summarised,
        "messages_before": compaction.messages_before,
        "messages_after": compaction.messages_after,
        "model": compaction.model,
        "reason": compaction.reason,
        "undone": compaction.undone,
        "summary": compaction.summary,
    }
