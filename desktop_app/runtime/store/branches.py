"""Versions of a conversation from a position on (``‹ 1/2 ›``), kept in the ``branches`` table.

Two actions make them, the same way. Editing the user message at position ``anchor`` and sending it again
keeps what followed it (the message too) as a version; regenerating the last answer keeps that answer (the
messages after its prompt: ``anchor`` is the prompt's position + 1) as a version. The messages from
``anchor`` on are saved (as JSON, with their parts and positions) and deleted, and what comes next becomes
the live version. Every anchor has versions 1…n in the order they were made; exactly one is ``live`` (its
messages are the conversation's own, its payload empty). Switching saves the live version the same way and
puts the chosen one's messages back at their positions. Versions of later anchors inside a version that is
left (an answer regenerated after an edit) are saved in its payload and come back with it.
"""

from __future__ import annotations

import json
from typing import Any

from desktop_app.runtime.store.db import Store
from desktop_app.runtime.store.schema import SEARCHABLE_KINDS


def _dump_from(store: Store, conversation_id: str, anchor: int) -> str:
    """The messages from ``anchor`` on and the versions of later anchors, as a version's payload."""
    messages = [m for m in store.messages(conversation_id, from_position=anchor) if m.position >= anchor]
    nested = store.connection.execute(
        "SELECT anchor, version, live, payload, created_at FROM branches WHERE conversation_id = ? AND anchor > ?",
        (conversation_id, anchor),
    ).fetchall()
    return json.dumps(
        {
            "messages": [
                {
                    "role": m.role,
                    "status": m.status,
                    "run_id": m.run_id,
                    "position": m.position,
                    "parts": [
                        {"kind": p.kind, "text": p.text, "payload": p.payload, "tool_call_id": p.tool_call_id}
                        for p in m.parts
                    ],
                }
                for m in messages
            ],
            "branches": [
                {"anchor": a, "version": v, "live": live, "payload": payload, "created_at": created}
                for a, v, live, payload, created in nested
            ],
        },
        ensure_ascii=False,
    )


def _restore(store: Store, conversation_id: str, payload: str) -> None:
    """Put a version's messages back at their positions (the positions from its anchor on are free), and the
    versions of later anchors it held. A payload from before versions nested is a plain list of messages."""
    data: Any = json.loads(payload)
    messages, nested = (data, []) if isinstance(data, list) else (data.get("messages", []), data.get("branches", []))
    runs = {
        row[0] for row in store.connection.execute("SELECT id FROM runs WHERE conversation_id = ?", (conversation_id,))
    }
    for message in messages:
        run_id = message.get("run_id") if message.get("run_id") in runs else None
        mid = store.add_message(conversation_id, message["role"], run_id=run_id, status=message["status"])
        if isinstance(message.get("position"), int):
            with store.transaction() as c:
                c.execute("UPDATE messages SET position = ? WHERE id = ?", (message["position"], mid))
        for part in message.get("parts", []):
            store.add_part(
                mid,
                part["kind"],
                part.get("text", ""),
                payload=part.get("payload"),
                tool_call_id=part.get("tool_call_id"),
                index=part["kind"] in SEARCHABLE_KINDS,
            )
    with store.transaction() as c:
        c.executemany(
            "INSERT INTO branches (conversation_id, anchor, version, live, payload, created_at) VALUES (?,?,?,?,?,?)",
            [
                (conversation_id, row["anchor"], row["version"], row["live"], row["payload"], row["created_at"])
                for row in nested
            ],
        )


def versions(store: Store, conversation_id: str) -> dict[int, tuple[int, int]]:
    """``{anchor: (live version, number of versions)}`` for the conversation's edited messages."""
    rows = store.connection.execute(
        "SELECT anchor, MAX(CASE WHEN live = 1 THEN version END), COUNT(*) FROM branches "
        "WHERE conversation_id = ? GROUP BY anchor",
        (conversation_id,),
    ).fetchall()
    return {int(a): (int(live or 0), int(n)) for a, live, n in rows}


def _leave_live(store: Store, conversation_id: str, anchor: int) -> None:
    """Save the live version at ``anchor`` (creating version 1 the first time) and clear its messages and the
    versions of later anchors (they are in the saved payload)."""
    payload = _dump_from(store, conversation_id, anchor)
    with store.transaction() as c:
        live = c.execute(
            "SELECT version FROM branches WHERE conversation_id = ? AND anchor = ? AND live = 1",
            (conversation_id, anchor),
        ).fetchone()
        if live is None:
            c.execute(
                "INSERT INTO branches (conversation_id, anchor, version, live, payload, created_at) "
                "VALUES (?, ?, 1, 0, ?, ?)",
                (conversation_id, anchor, payload, store.now()),
            )
        else:
            c.execute(
                "UPDATE branches SET live = 0, payload = ? WHERE conversation_id = ? AND anchor = ? AND version = ?",
                (payload, conversation_id, anchor, live[0]),
            )
        c.execute("DELETE FROM branches WHERE conversation_id = ? AND anchor > ?", (conversation_id, anchor))
    store.delete_message_range(conversation_id, anchor)


def start_version(store: Store, conversation_id: str, anchor: int) -> int:
    """Before an edited message at ``anchor`` is sent, or the answer at ``anchor`` is asked for again: keep
    what is there as a version, make a new live one (empty: the resent prompt or the new answer fills it).
    Returns the new version's number."""
    _leave_live(store, conversation_id, anchor)
    with store.transaction() as c:
        row = c.execute(
            "SELECT COALESCE(MAX(version), 0) + 1 FROM branches WHERE conversation_id = ? AND anchor = ?",
            (conversation_id, anchor),
        ).fetchone()
        version = int(row[0])
        c.execute(
            "INSERT INTO branches (conversation_id, anchor, version, live, payload, created_at) "
            "VALUES (?, ?, ?, 1, '[]', ?)",
            (conversation_id, anchor, version, store.now()),
        )
    return version


def switch(store: Store, conversation_id: str, anchor: int, version: int) -> bool:
    """Show version ``version`` at ``anchor`` (the live one is kept as a version). False: no such version."""
    row = store.connection.execute(
        "SELECT live, payload FROM branches WHERE conversation_id = ? AND anchor = ? AND version = ?",
        (conversation_id, anchor, version),
    ).fetchone()
    if row is None:
        return False
    if row[0]:
        return True
    payload: Any = row[1]
    _leave_live(store, conversation_id, anchor)
    _restore(store, conversation_id, payload)
    with store.transaction() as c:
        c.execute(
            "UPDATE branches SET live = 1, payload = '[]' WHERE conversation_id = ? AND anchor = ? AND version = ?",
            (conversation_id, anchor, version),
        )
    return True


__all__ = ["start_version", "switch", "versions"]
