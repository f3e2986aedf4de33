"""Read queries of the store: conversations (one, the list), a conversation's messages and runs, approvals, usage,
and full-text search."""

from __future__ import annotations

import json
import re
import sqlite3
import unicodedata
from typing import Any

from desktop_app.runtime.store.records import (
    ConversationInfo,
    SearchHit,
    StoredMessage,
    StoredPart,
    StoredRun,
    conversation_info,
)

_WORD = re.compile(r"\w")
_TOKEN = re.compile(r"[^\W_]+")  # what the unicode61 tokenizer keeps: letters and digits
PREFIX_MIN = 3
"""The last word matches as a prefix only from this length on (the FTS table has a 3-character prefix index)."""
CANDIDATES = 1000
"""Search ranks (bm25) the most recent matching parts, at most this many: bounded time on common words."""
SNIPPET_TOKENS = 12


def _fold(text: str) -> str:
    """Lower case without diacritics, one character for one (so offsets stay aligned)."""
    return "".join((unicodedata.normalize("NFKD", ch)[:1] or ch).lower() for ch in text)


def _terms(text: str) -> list[str]:
    return [t for t in text.split() if _WORD.search(t)]


def _prefix_last(text: str, terms: list[str]) -> bool:
    if not terms or text[-1:].isspace():
        return False
    tokens = _TOKEN.findall(terms[-1])
    return bool(tokens) and len(tokens[-1]) >= PREFIX_MIN


def fts_query(text: str, *, prefix: bool = True) -> str:
    """The user's text as a safe FTS5 query: every word quoted (so punctuation never raises), all required.

    Words without a letter or digit are dropped. With ``prefix`` the last word also matches as a prefix
    (search as you type) when it is at least ``PREFIX_MIN`` characters long and the text does not end with a
    space. Empty when nothing searchable is left.
    """
    terms = _terms(text)
    quoted = ['"' + t.replace('"', '""') + '"' for t in terms]
    if prefix and _prefix_last(text, terms):
        quoted[-1] += "*"
    return " ".join(quoted)


def make_snippet(text: str, query: str, marks: tuple[str, str] = ("[", "]"), size: int = SNIPPET_TOKENS) -> str:
    """About ``size`` words of ``text`` around the first match of ``query``, matched words marked."""
    terms = _terms(query)
    wanted = [_fold(tok) for term in terms for tok in _TOKEN.findall(term)]
    prefix = _fold(_TOKEN.findall(terms[-1])[-1]) if _prefix_last(query, terms) else None
    tokens = list(_TOKEN.finditer(text))
    if not tokens:
        return text[:80]

    def hit(token: str) -> bool:
        folded = _fold(token)
        return folded in wanted or (prefix is not None and folded.startswith(prefix))

    first = next((i for i, m in enumerate(tokens) if hit(m.group())), 0)
    start = max(0, min(first - size // 3, len(tokens) - size))
    window = tokens[start : start + size]
    out, pos = [], window[0].start()
    for m in window:
        out.append(text[pos : m.start()])
        out.append(f"{marks[0]}{m.group()}{marks[1]}" if hit(m.group()) else m.group())
        pos = m.end()
    end = window[-1].end()
    lead = "…" if start > 0 else ""
    tail = "…" if start + size < len(tokens) else text[end:]
    return lead + " ".join("".join(out).split()) + tail.rstrip()


CONVERSATION_COLUMNS = (
    "id, title, created_at, updated_at, base_url, model, deleted_at IS NOT NULL, quick, agent, parent_id"
)


def conversation(conn: sqlite3.Connection, conversation_id: str) -> ConversationInfo | None:
    row = conn.execute(f"SELECT {CONVERSATION_COLUMNS} FROM conversations WHERE id = ?", (conversation_id,)).fetchone()
    return conversation_info(row) if row else None


def conversations(conn: sqlite3.Connection, *, include_deleted: bool, limit: int | None) -> list[ConversationInfo]:
    """Most recently updated first; sub-agent runs only with ``include_deleted`` (all)."""
    where = "" if include_deleted else "WHERE deleted_at IS NULL AND parent_id IS NULL"
    rows = conn.execute(
        f"SELECT {CONVERSATION_COLUMNS} FROM conversations {where} ORDER BY updated_at DESC, rowid DESC LIMIT ?",
        (-1 if limit is None else limit,),
    ).fetchall()
    return [conversation_info(r) for r in rows]


def _message(head: tuple[Any, ...], parts: list[StoredPart]) -> StoredMessage:
    return StoredMessage(
        id=head[0], role=head[1], status=head[2], run_id=head[3], position=head[4], created_at=head[5],
        parts=tuple(parts),
    )  # fmt: skip


def messages(conn: sqlite3.Connection, conversation_id: str, from_position: int = 0) -> list[StoredMessage]:
    rows = conn.execute(
        "SELECT m.id, m.role, m.status, m.run_id, m.position, m.created_at, "
        "p.id, p.position, p.kind, p.text, p.payload, p.tool_call_id "
        "FROM messages m LEFT JOIN parts p ON p.message_id = m.id "
        "WHERE m.conversation_id = ? AND m.position >= ? ORDER BY m.position, p.position",
        (conversation_id, from_position),
    ).fetchall()
    out: list[StoredMessage] = []
    parts: list[StoredPart] = []
    head: tuple[Any, ...] | None = None
    for row in rows:
        if head is None or head[0] != row[0]:
            if head is not None:
                out.append(_message(head, parts))
            head, parts = tuple(row[:6]), []
        if row[6] is not None:
            payload = json.loads(row[10]) if row[10] else None
            parts.append(StoredPart(row[6], row[7], row[8], row[9], payload, row[11]))
    if head is not None:
        out.append(_message(head, parts))
    return out


def tail_position(conn: sqlite3.Connection, conversation_id: str, limit: int) -> tuple[int, int]:
    """Where the latest ``limit`` messages start, in whole turns (at a user message), and how many messages
    come before that position."""
    row = conn.execute(
        "SELECT COALESCE(MAX(position), -1) FROM messages WHERE conversation_id = ? AND role = 'user' "
        "AND position <= (SELECT MAX(position) FROM messages WHERE conversation_id = ?) - ? + 1",
        (conversation_id, conversation_id, limit),
    ).fetchone()
    start = max(0, int(row[0]))
    if start == 0:
        return 0, 0
    (before,) = conn.execute(
        "SELECT COUNT(*) FROM messages WHERE conversation_id = ? AND position < ?", (conversation_id, start)
    ).fetchone()
    return start, int(before)


def runs(conn: sqlite3.Connection, conversation_id: str) -> dict[str, StoredRun]:
    rows = conn.execute(
        "SELECT id, status, reason, error, started_at, ended_at FROM runs WHERE conversation_id = ? "
        "ORDER BY started_at, rowid",
        (conversation_id,),
    ).fetchall()
    return {r[0]: StoredRun(*r) for r in rows}


def _dicts(conn: sqlite3.Connection, sql: str, *args: Any) -> list[dict[str, Any]]:
    cur = conn.execute(sql, args)
    names = [d[0] for d in cur.description]
    return [dict(zip(names, row, strict=True)) for row in cur.fetchall()]


def approvals(conn: sqlite3.Connection, conversation_id: str) -> list[dict[str, Any]]:
    out = _dicts(
        conn,
        "SELECT tool_call_id, run_id, server, tool, decision, reason, source, scope, arguments_before, "
        "arguments_after, requested_at, decided_at FROM approvals WHERE conversation_id = ? ORDER BY rowid",
        conversation_id,
    )
    for row in out:
        for key in ("arguments_before", "arguments_after"):
            row[key] = json.loads(row[key]) if row[key] else None
    return out


def usage(conn: sqlite3.Connection, conversation_id: str) -> list[dict[str, Any]]:
    return _dicts(
        conn,
        "SELECT run_id, prompt_tokens, completion_tokens, total_tokens, cache_hit_tokens, cache_miss_tokens, "
        "created_at FROM usage WHERE conversation_id = ? ORDER BY id",
        conversation_id,
    )


def search(conn: sqlite3.Connection, query: str, limit: int, *, marks: tuple[str, str]) -> list[SearchHit]:
    """Best bm25 matches among the ``CANDIDATES`` most recent matching parts, in live conversations."""
    match = fts_query(query)
    if not match or limit <= 0:
        return []
    ranked = conn.execute(
        "SELECT rowid, rank FROM parts_fts WHERE parts_fts MATCH ? ORDER BY rowid DESC LIMIT ?", (match, CANDIDATES)
    ).fetchall()
    if not ranked:
        return []
    rank = dict(ranked)
    live = conn.execute(
        "SELECT p.id FROM parts p JOIN messages m ON m.id = p.message_id "
        "JOIN conversations c ON c.id = m.conversation_id "
        "WHERE p.id IN (SELECT value FROM json_each(?)) AND c.deleted_at IS NULL",
        (json.dumps(list(rank)),),
    ).fetchall()
    top = sorted((r[0] for r in live), key=lambda pid: (rank[pid], -pid))[:limit]
    rows = conn.execute(  # a hit in a sub-agent's run names its top-level conversation (``store.agents``)
        "SELECT p.id, COALESCE(c.root_id, c.id), COALESCE(r.title, c.title), m.id, m.role, p.kind, p.text, "
        "m.created_at FROM parts p JOIN messages m ON m.id = p.message_id "
        "JOIN conversations c ON c.id = m.conversation_id LEFT JOIN conversations r ON r.id = c.root_id "
        "WHERE p.id IN (SELECT value FROM json_each(?))",
        (json.dumps(top),),
    ).fetchall()
    by_id = {r[0]: r for r in rows}
    hits = []
    for pid in top:
        _, cid, title, mid, role, kind, text, created = by_id[pid]
        hits.append(SearchHit(cid, title, mid, pid, role, kind, make_snippet(text, query, marks), created))
    return hits
