"""``switchboard.history``: search and read past conversations in the store (read-only tools).

Tools (bare names, ``readOnlyHint``; history search never asks for approval):

* ``search_conversations(query, limit=10)``: full-text search (the store's FTS5 index) over what was said
  in every live conversation; one entry per conversation with its id, title, date and the best snippets.
* ``read_conversation(conversation_id, max_messages=50)``: the conversation as readable text (user and
  assistant text, tool calls and their results; private reasoning is left out).

Without a store (history is off for the session) both tools answer with an error that says so. The store's
SQLite connection belongs to the event loop's thread, so both tools are ``async`` (never a worker thread).
"""

from __future__ import annotations

import json
from datetime import datetime, tzinfo

import mcp_types as mtypes
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError

from desktop_app import __version__
from desktop_app.runtime.in_process import in_process_server
from desktop_app.runtime.store import SearchHit, Store, StoredMessage

SERVER_NAME = "switchboard.history"
READ_ONLY = mtypes.ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True)
HISTORY_OFF = (
    "Conversation history is off in this session (no conversation store is open), so there is nothing to "
    "search or read."
)
MAX_SEARCH_RESULTS = 50
SNIPPETS_PER_CONVERSATION = 3
MAX_MESSAGES = 500
TOOL_TEXT_LIMIT = 2000


def format_time(timestamp: float, zone: tzinfo | None = None) -> str:
    """A store timestamp as ISO 8601 to the minute, in ``zone`` (default: the local zone)."""
    return datetime.fromtimestamp(timestamp, zone).astimezone(zone).isoformat(timespec="minutes")


def _clamp(value: int, low: int, high: int) -> int:
    return max(low, min(high, value))


def _shorten(text: str, limit: int = TOOL_TEXT_LIMIT) -> str:
    text = text.strip()
    return text if len(text) <= limit else f"{text[:limit]}… [{len(text) - limit} more characters]"


def format_search(query: str, hits: list[SearchHit], limit: int, zone: tzinfo | None = None) -> str:
    """Hits grouped by conversation (best first), at most ``limit`` conversations."""
    groups: dict[str, list[SearchHit]] = {}
    for hit in hits:
        if hit.conversation_id in groups or len(groups) < limit:
            groups.setdefault(hit.conversation_id, []).append(hit)
    if not groups:
        return f"No conversations match {query!r}."
    lines = [f"{len(groups)} conversation(s) match {query!r} (best first; matches are in [brackets]):"]
    for number, (conversation_id, group) in enumerate(groups.items(), start=1):
        first = group[0]
        lines.append("")
        lines.append(f"{number}. {first.conversation_title or '(untitled)'}")
        lines.append(f"   conversation_id: {conversation_id}")
        for hit in group[:SNIPPETS_PER_CONVERSATION]:
            where = "reasoning" if hit.kind == "reasoning" else hit.role
            lines.append(f"   - {format_time(hit.created_at, zone)} {where}: {hit.snippet}")
    lines.append("")
    lines.append("Use read_conversation with a conversation_id to read one.")
    return "\n".join(lines)


def _render_message(message: StoredMessage, zone: tzinfo | None) -> list[str]:
    when = format_time(message.created_at, zone)
    lines: list[str] = []
    text = message.text_of("text").strip()
    if message.role == "tool":
        for part in message.parts:
            if part.kind == "tool_result":
                payload = part.payload or {}
                label = "tool error" if payload.get("is_error") else "tool result"
                body = part.text or json.dumps(payload.get("structured"), ensure_ascii=False)
                lines.append(f"[{when}] {label} ({payload.get('tool') or part.tool_call_id}): {_shorten(body)}")
        return lines
    if text:
        lines.append(f"[{when}] {message.role}: {text}")
    for part in message.parts:
        if part.kind == "tool_call":
            payload = part.payload or {}
            arguments = json.dumps(payload.get("arguments", {}), ensure_ascii=False, sort_keys=True)
            name = payload.get("name") or part.text
            lines.append(f"[{when}] {message.role} called tool {name} with {_shorten(arguments, 500)}")
    if message.status in ("failed", "interrupted", "cancelled") and lines:
        lines[-1] += f" ({message.status})"
    return lines


def format_conversation(store: Store, conversation_id: str, max_messages: int, zone: tzinfo | None = None) -> str:
    """The conversation as readable text: a header, then its last ``max_messages`` messages."""
    info = store.get_conversation(conversation_id)
    if info is None or info.deleted:
        state = "was deleted" if info is not None else "does not exist"
        raise ToolError(f"Conversation {conversation_id!r} {state}. Use search_conversations to find conversation ids.")
    rendered = [(m, _render_message(m, zone)) for m in store.messages(conversation_id)]
    shown = [(m, lines) for m, lines in rendered if lines]
    omitted = max(0, len(shown) - max_messages)
    head = [
        f"Conversation: {info.title or '(untitled)'}",
        f"conversation_id: {info.id}",
        f"started: {format_time(info.created_at, zone)}; last active: {format_time(info.updated_at, zone)}",
    ]
    if info.model:
        head.append(f"model: {info.model}")
    head.append(f"messages: {len(shown)}")
    if not shown:
        return "\n".join([*head, "", "(no messages)"])
    if omitted:
        head.append(f"(the first {omitted} message(s) are left out; showing the last {max_messages})")
    body = [line for _, lines in shown[omitted:] for line in lines]
    return "\n".join([*head, "", *body])


def make_history_server(store: Store | None, *, zone: tzinfo | None = None) -> MCPServer:
    """A new ``switchboard.history`` server over ``store`` (``None``: history is off)."""
    server = in_process_server(SERVER_NAME, version=__version__, log_level="WARNING")

    @server.tool(
        description=(
            "Search the user's past conversations (full text: words or phrases, the last word also matches as "
            "a prefix). Returns matching conversations, best first, with their conversation_id, title, dates and "
            f"snippets. limit: how many conversations (1-{MAX_SEARCH_RESULTS}, default 10)."
        ),
        annotations=READ_ONLY,
        structured_output=False,
    )
    async def search_conversations(query: str, limit: int = 10) -> str:
        if store is None:
            raise ToolError(HISTORY_OFF)
        if not query.strip():
            raise ToolError("The search query is empty; pass one or more words to look for.")
        wanted = _clamp(limit, 1, MAX_SEARCH_RESULTS)
        hits = store.search(query, wanted * SNIPPETS_PER_CONVERSATION * 2)
        return format_search(query, hits, wanted, zone)

    @server.tool(
        description=(
            "Read one past conversation as text (user and assistant messages, tool calls and results), given a "
            "conversation_id from search_conversations. max_messages: how many of the most recent messages "
            f"(1-{MAX_MESSAGES}, default 50)."
        ),
        annotations=READ_ONLY,
        structured_output=False,
    )
    async def read_conversation(conversation_id: str, max_messages: int = 50) -> str:
        if store is None:
            raise ToolError(HISTORY_OFF)
        if not conversation_id.strip():
            raise ToolError("conversation_id is empty; use search_conversations to find conversation ids.")
        return format_conversation(store, conversation_id.strip(), _clamp(max_messages, 1, MAX_MESSAGES), zone)

    return server
