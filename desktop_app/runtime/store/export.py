"""Export one stored conversation as Markdown (to read) or JSON (everything, to archive or import)."""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

from desktop_app.runtime.messages import AssistantMessage, Message, ToolMessage, UserMessage
from desktop_app.runtime.store.db import Store
from desktop_app.runtime.store.records import StoredMessage
from desktop_app.runtime.store.schema import StoreError

EXPORT_FORMAT = "switchboard.conversation"
EXPORT_VERSION = 1

_STATUS_NOTES = {
    "interrupted": "interrupted: the app stopped while this was being written",
    "stopped": "stopped",
    "failed": "failed",
    "streaming": "still being written",
}


def _iso(ts: float | None) -> str | None:
    return None if ts is None else datetime.fromtimestamp(ts, UTC).isoformat(timespec="seconds")


def _fence(text: str, lang: str = "") -> str:
    """A code fence longer than any backtick run inside ``text``."""
    longest, run = 0, 0
    for ch in text:
        run = run + 1 if ch == "`" else 0
        longest = max(longest, run)
    ticks = "`" * max(3, longest + 1)
    return f"{ticks}{lang}\n{text}\n{ticks}"


def _quote(text: str) -> str:
    return "\n".join("> " + line if line else ">" for line in text.splitlines() or [""])


def _message_markdown(message: StoredMessage) -> list[str]:
    heading = {"user": "User", "assistant": "Assistant", "tool": "Tool result", "system": "System"}[message.role]
    note = _STATUS_NOTES.get(message.status)
    out = [f"## {heading}" + (f" _({note})_" if note else "")]
    for part in message.parts:
        payload = part.payload or {}
        if part.kind == "text":
            if part.text:  # an empty text part carries a prompt's context block (see the recorder)
                out.append(part.text)
        elif part.kind == "reasoning":
            out.append(f"<details><summary>Reasoning</summary>\n\n{part.text}\n\n</details>")
        elif part.kind == "tool_call":
            args = json.dumps(payload.get("arguments", {}), ensure_ascii=False, indent=2)
            out.append(
                f"**Tool call** `{payload.get('name', part.text)}` (`{part.tool_call_id}`)\n\n" + _fence(args, "json")
            )
        elif part.kind == "tool_result":
            label = "**Error**" if payload.get("is_error") else "**Result**"
            out.append(f"{label} of `{part.tool_call_id}`\n\n" + _fence(part.text))
        elif part.kind == "notice":
            out.append(_quote(f"**Notice:** {part.text}"))
    return out


def to_markdown(store: Store, conversation_id: str) -> str:
    """A readable transcript: title, provider, then every message with reasoning folded and tool cards fenced."""
    info = store.get_conversation(conversation_id)
    if info is None:
        raise StoreError(f"Conversation {conversation_id!r} does not exist.")
    blocks = [f"# {info.title or 'Untitled conversation'}"]
    meta = [f"Created {_iso(info.created_at)}"]
    if info.model:
        meta.append(f"model `{info.model}`")
    if info.base_url:
        meta.append(f"at `{info.base_url}`")
    blocks.append("_" + ", ".join(meta) + "_")
    blocks.extend(_transcript_markdown(store, conversation_id))
    return "\n\n".join(blocks) + "\n"


def _transcript_markdown(store: Store, conversation_id: str) -> list[str]:
    """The messages, each ``chat-with-<agent>`` call followed by the agent's run, quoted (``store.agents``)."""
    from desktop_app.runtime.store.agents import subagent_runs

    children = subagent_runs(store, conversation_id)
    blocks: list[str] = []
    for message in store.messages(conversation_id):
        blocks.extend(_message_markdown(message))
        for part in message.parts:
            link = children.get(part.tool_call_id or "") if part.kind == "tool_call" else None
            if link is not None:
                inner = "\n\n".join(_transcript_markdown(store, link.conversation_id))
                blocks.append(_quote(f"**Sub-agent `{link.agent}`** (`{part.tool_call_id}`)\n\n{inner}"))
    return blocks


def messages_to_markdown(messages: Sequence[Message], title: str = "Unsaved conversation") -> str:
    """A readable transcript of a conversation held in memory (the runtime's messages), for when the store
    could not keep it: the same layout as :func:`to_markdown`, without stored metadata."""
    blocks = [f"# {title}", f"_Saved from memory {_iso(time.time())}: the conversation store could not write it._"]
    for message in messages:
        if isinstance(message, UserMessage):
            blocks += ["## User", message.content]
        elif isinstance(message, AssistantMessage):
            blocks.append("## Assistant")
            if message.reasoning:
                blocks.append(f"<details><summary>Reasoning</summary>\n\n{message.reasoning}\n\n</details>")
            if message.content:
                blocks.append(message.content)
            for call in message.tool_calls:
                blocks.append(f"**Tool call** `{call.name}` (`{call.id}`)\n\n" + _fence(call.arguments, "json"))
        elif isinstance(message, ToolMessage):
            label = "**Error**" if message.is_error else "**Result**"
            blocks += ["## Tool result", f"{label} of `{message.tool_call_id}`\n\n" + _fence(message.content)]
    return "\n\n".join(blocks) + "\n"


def to_json_data(store: Store, conversation_id: str) -> dict[str, Any]:
    """Everything stored about the conversation as plain JSON data."""
    info = store.get_conversation(conversation_id)
    if info is None:
        raise StoreError(f"Conversation {conversation_id!r} does not exist.")
    messages = [
        {
            "id": m.id,
            "role": m.role,
            "status": m.status,
            "run_id": m.run_id,
            "created_at": _iso(m.created_at),
            "parts": [
                {"kind": p.kind, "text": p.text, "tool_call_id": p.tool_call_id, "payload": p.payload} for p in m.parts
            ],
        }
        for m in store.messages(conversation_id)
    ]
    runs = [
        {"id": r.id, "status": r.status, "reason": r.reason, "error": r.error,
         "started_at": _iso(r.started_at), "ended_at": _iso(r.ended_at)}
        for r in store.runs(conversation_id).values()
    ]  # fmt: skip
    return {
        "format": EXPORT_FORMAT,
        "version": EXPORT_VERSION,
        "conversation": {
            "id": info.id,
            "title": info.title,
            "created_at": _iso(info.created_at),
            "updated_at": _iso(info.updated_at),
            "base_url": info.base_url,
            "model": info.model,
        },
        "messages": messages,
        "runs": runs,
        "approvals": store.approvals(conversation_id),
        "usage": store.usage(conversation_id),
        "subagents": _subagents_json(store, conversation_id),
    }


def _subagents_json(store: Store, conversation_id: str) -> list[dict[str, Any]]:
    """The agents' runs its ``chat-with-`` calls started, each exported whole (``store.agents``)."""
    from desktop_app.runtime.store.agents import subagent_runs

    return [
        {"tool_call_id": link.tool_call_id, "agent": link.agent, **to_json_data(store, link.conversation_id)}
        for link in subagent_runs(store, conversation_id).values()
    ]


def to_json(store: Store, conversation_id: str) -> str:
    return json.dumps(to_json_data(store, conversation_id), ensure_ascii=False, indent=2) + "\n"


def export_conversation(
    store: Store, conversation_id: str, path: Path | str, fmt: Literal["markdown", "json"] | None = None
) -> Path:
    """Write the export to ``path``; the format follows ``fmt`` or the suffix (``.json``, else Markdown)."""
    target = Path(path)
    fmt = fmt or ("json" if target.suffix.lower() == ".json" else "markdown")
    text = to_json(store, conversation_id) if fmt == "json" else to_markdown(store, conversation_id)
    target.write_text(text, encoding="utf-8")
    return target
