"""Plain records read from the store, and their conversion back to the runtime's conversation model."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from desktop_app.runtime.messages import (
    AssistantMessage,
    Attachment,
    Message,
    SystemMessage,
    ToolCallRequest,
    ToolMessage,
    UserMessage,
)

TITLE_LIMIT = 60


def make_title(text: str, limit: int = TITLE_LIMIT) -> str:
    """One line of at most ``limit`` characters, cut at a word boundary when possible."""
    line = " ".join(text.split())
    if len(line) <= limit:
        return line
    cut = line[: limit - 1]
    space = cut.rfind(" ")
    if space >= limit // 2:
        cut = cut[:space]
    return cut.rstrip(" ,.;:-") + "…"


INTERRUPTED_TOOL_TEXT = "The tool call did not complete: the run was interrupted before it returned a result."


@dataclass(frozen=True)
class ConversationInfo:
    """A conversation as the list shows it: title, times, endpoint and model, agent, and whether it is deleted."""

    id: str
    title: str
    created_at: float
    updated_at: float
    base_url: str
    model: str
    deleted: bool
    quick: bool = False
    """Started in the quick prompt (listed like any other conversation, with a mark)."""
    agent: str = ""
    """The agent it talks to ("": the default agent)."""
    parent_id: str | None = None
    """For a sub-agent's run: the conversation whose tool call started it (see ``store.agents``)."""


@dataclass(frozen=True)
class StoredPart:
    """One part of a stored message: text, reasoning, a tool call or its result, in order."""

    id: int
    position: int
    kind: str
    text: str
    payload: dict[str, Any] | None = None
    tool_call_id: str | None = None


@dataclass(frozen=True)
class StoredMessage:
    """A stored message with its parts, in the conversation's order."""

    id: int
    role: str
    status: str
    run_id: str | None
    position: int
    created_at: float
    parts: tuple[StoredPart, ...] = field(default=())

    def text_of(self, kind: str) -> str:
        return "".join(p.text for p in self.parts if p.kind == kind)


@dataclass(frozen=True)
class StoredRun:
    """A stored run: its status, why it ended, and when it started and ended."""

    id: str
    status: str
    reason: str | None
    error: str | None
    started_at: float
    ended_at: float | None

    @property
    def live(self) -> bool:
        """Still going (or waiting for an approval) as far as the database knows."""
        return self.status == "running" or (self.status == "paused" and self.ended_at is None)


@dataclass(frozen=True)
class SearchHit:
    """A full-text search match: the conversation, message and part it is in, with a snippet."""

    conversation_id: str
    conversation_title: str
    message_id: int
    part_id: int
    role: str
    kind: str
    snippet: str
    created_at: float


def _tool_call(part: StoredPart) -> ToolCallRequest:
    payload = part.payload or {}
    arguments = payload.get("arguments", {})
    raw = arguments if isinstance(arguments, str) else json.dumps(arguments, ensure_ascii=False)
    wire_id = payload.get("wire_id")
    return ToolCallRequest(
        id=part.tool_call_id or "",
        name=str(payload.get("name", "")),
        arguments=raw,
        wire_id=wire_id if isinstance(wire_id, str) else "",
    )


def _tool_message(message: StoredMessage) -> ToolMessage | None:
    for part in message.parts:
        if part.kind == "tool_result":
            payload = part.payload or {}
            structured = payload.get("structured")
            content = part.text if part.text else json.dumps(structured) if structured is not None else ""
            limit = payload.get("replay_limit")
            return ToolMessage(
                tool_call_id=part.tool_call_id or "",
                content=content,
                is_error=bool(payload.get("is_error")),
                replay_limit=limit if isinstance(limit, int) and limit > 0 else 0,
            )
    return None


def _user_message(message: StoredMessage) -> UserMessage:
    """The prompt as it was sent: its text, with the context block and text attachments kept beside it."""
    context, attachments = "", []
    for part in message.parts:
        sent = (part.payload or {}).get("prompt_context") if part.kind == "text" else None
        if isinstance(sent, dict):
            context = str(sent.get("context") or "")
            for item in sent.get("attachments") or []:
                try:
                    attachments.append(Attachment.model_validate(item))
                except ValueError:
                    continue  # a damaged record: the prompt still goes, without that file
    return UserMessage(content=message.text_of("text"), context=context, attachments=tuple(attachments))


def to_model_messages(
    stored: list[StoredMessage], runs: dict[str, StoredRun], *, close_dangling_calls: bool = False
) -> list[Message]:
    """Rebuild the conversation model so that a conversation can continue after a restart.

    Assistant messages with nothing to say are skipped. With ``close_dangling_calls``, a tool call without
    a result, in a run that is no longer live, gets an ``is_error`` tool result.
    """
    out: list[Message] = []
    open_calls: list[str] = []
    open_live = False

    def close_group() -> None:
        if close_dangling_calls and not open_live:
            for call_id in open_calls:
                out.append(ToolMessage(tool_call_id=call_id, content=INTERRUPTED_TOOL_TEXT, is_error=True))
        open_calls.clear()

    for message in stored:
        if message.role == "tool":
            tool = _tool_message(message)
            if tool is not None:
                out.append(tool)
                if tool.tool_call_id in open_calls:
                    open_calls.remove(tool.tool_call_id)
            continue
        close_group()
        if message.role == "user":
            out.append(_user_message(message))
        elif message.role == "system":
            out.append(SystemMessage(content=message.text_of("text")))
        elif message.role == "assistant":
            calls = tuple(_tool_call(p) for p in message.parts if p.kind == "tool_call")
            content, reasoning = message.text_of("text"), message.text_of("reasoning")
            if not (content or reasoning or calls):
                continue
            out.append(AssistantMessage(content=content, reasoning=reasoning, tool_calls=calls))
            open_calls.extend(c.id for c in calls)
            run = runs.get(message.run_id or "")
            open_live = run is not None and run.live
    close_group()
    return out


def conversation_info(row: tuple[Any, ...]) -> ConversationInfo:
    return ConversationInfo(
        id=row[0], title=row[1], created_at=row[2], updated_at=row[3], base_url=row[4], model=row[5],
        deleted=bool(row[6]), quick=bool(row[7]) if len(row) > 7 else False,
        agent=str(row[8] or "") if len(row) > 8 else "", parent_id=row[9] if len(row) > 9 else None,
    )  # fmt: skip
