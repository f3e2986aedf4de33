"""Versions of a conversation after an edited user message (``‹ 1/2 ›``), kept in the ``branches`` table.

Editing the user message at position ``anchor`` and sending it again keeps what followed it as a version:
the messages from ``anchor`` on are saved (as JSON, with their parts) and deleted, and the new prompt and
its answer become the live version. Every anchor has versions 1…n in the order they were made; exactly one
is ``live`` (its messages are the conversation's own, its payload empty). Switching saves the live version
the same way and puts the chosen one's messages back. Versions of later anchors inside a version that is
left are dropped with it (one level of branches).
"""

from __future__ import annotations

import json
from typing import Any

from desktop_app.runtime.store.db import Store
from desktop_app.runtime.store.schema import SEARCHABLE_KINDS


def _dump_from(store: Store, conversation_id: str, anchor: int) -> str:
    messages = [m for m in store.messages(conversation_id, from_position=anchor) if m.position >= anchor]
    return json.dumps(
        [
            {
                "role": m.role,
                "status": m.status,
                "run_id": m.run_id,
                "parts": [
                    {"kind": p.kind, "text": p.text, "payload": p.payload, "tool_call_id": p.tool_call_id}
                    for p in m.parts
                ],
            }
            for m in messages
        ],
        ensure_ascii=False,
    )


def _restore(store: Store, conversation_id: str, payload: str) -> None:
    runs = {
        row[0] for row in store.connection.execute("SELECT id FROM runs WHERE conversation_id = ?", (conversation_id,))
    }
    for message in json.loads(payload):
        run_id = message.get("run_id") if message.get("run_id") in runs else None
        mid = store.add_message(conversation_id, message["role"], run_id=run_id, status=message["status"])
        for part in message.get("parts", []):
            store.add_part(
                mid,
                part["kind"],
                part.get("text", ""),
                payload=part.get("payload"),
                tool_call_id=part.get("tool_call_id"),
                index=part["kind"] in SEARCHABLE_KINDS,
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
    """Save the live version at ``anchor`` (creating version 1 for a first edit) and clear the messages."""
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
    """Before an edited message at ``anchor`` is sent: keep what is there as a version, make a new live
    one (empty: the resent prompt fills it). Returns the new version's number."""
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
