"""The rows of a run's life: ``runs``, ``approvals`` and ``usage``, written inside the caller's transaction.

Each function takes the open connection (``Store.transaction()`` yields it) and the time to stamp; ``Store``
keeps the public methods (``start_run``, ``record_approval_decision``, ``mark_interrupted_runs`` …) and calls
these. Nothing here commits or opens anything.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from typing import Any


def dump(value: Any) -> str | None:
    """A JSON column's text (``None`` stays NULL)."""
    return None if value is None else json.dumps(value, ensure_ascii=False)


def start_run(c: sqlite3.Connection, now: float, run_id: str, conversation_id: str, owner: str) -> None:
    c.execute(
        "INSERT OR IGNORE INTO runs (id, conversation_id, status, started_at, owner) VALUES (?, ?, 'running', ?, ?)",
        (run_id, conversation_id, now, owner),
    )


def set_run_status(
    c: sqlite3.Connection, ended_at: float | None, run_id: str, status: str, reason: str | None, error: str | None
) -> None:
    c.execute(
        "UPDATE runs SET status = ?, ended_at = ?, reason = COALESCE(?, reason), error = COALESCE(?, error) "
        "WHERE id = ?",
        (status, ended_at, reason, error, run_id),
    )


def interrupt_runs(c: sqlite3.Connection, now: float, is_live: Callable[[str], bool]) -> tuple[list[str], list[int]]:
    """Mark the live-looking runs whose owner is gone (``is_live(owner)`` false) ``interrupted``, with their
    pending approvals and streaming messages; returns the runs marked and those messages (to index again)."""
    live = c.execute(
        "SELECT id, owner FROM runs WHERE status = 'running' OR (status = 'paused' AND ended_at IS NULL)"
    ).fetchall()
    dead = [run_id for run_id, owner in live if not is_live(owner)]
    ids = json.dumps(dead)
    c.execute(
        "UPDATE runs SET status = 'interrupted', ended_at = ? WHERE id IN (SELECT value FROM json_each(?))",
        (now, ids),
    )
    c.execute(
        "UPDATE approvals SET decision = 'interrupted', decided_at = ? WHERE decision = 'pending' "
        "AND (run_id IS NULL OR run_id IN (SELECT value FROM json_each(?)))",
        (now, ids),
    )
    streaming = c.execute(
        "SELECT id FROM messages WHERE status = 'streaming' "
        "AND (run_id IS NULL OR run_id IN (SELECT value FROM json_each(?)))",
        (ids,),
    ).fetchall()
    messages = [int(message_id) for (message_id,) in streaming]
    for message_id in messages:
        c.execute("UPDATE messages SET status = 'interrupted' WHERE id = ?", (message_id,))
    return dead, messages


def request_approval(
    c: sqlite3.Connection,
    now: float,
    tool_call_id: str,
    conversation_id: str,
    run_id: str,
    server: str,
    tool: str,
    arguments: Any,
) -> None:
    c.execute(
        "INSERT INTO approvals (tool_call_id, conversation_id, run_id, server, tool, decision, "
        "arguments_before, requested_at) VALUES (?, ?, ?, ?, ?, 'pending', ?, ?) "
        "ON CONFLICT (conversation_id, tool_call_id) DO UPDATE SET decision = 'pending', "
        "arguments_before = excluded.arguments_before, requested_at = excluded.requested_at",
        (tool_call_id, conversation_id, run_id, server, tool, dump(arguments), now),
    )


def decide_approval(
    c: sqlite3.Connection,
    now: float,
    tool_call_id: str,
    conversation_id: str,
    run_id: str,
    *,
    decision: str,
    reason: str | None,
    source: str,
    scope: str,
    arguments_after: dict[str, Any] | None,
) -> None:
    """Decide an approval; a policy decision with no request before it creates the row. Edited
    ``arguments_after`` also replace the arguments of the stored tool call, as in the history."""
    row = c.execute(
        "SELECT p.payload FROM parts p JOIN messages m ON m.id = p.message_id "
        "WHERE p.tool_call_id = ? AND p.kind = 'tool_call' AND m.conversation_id = ? "
        "ORDER BY p.id DESC LIMIT 1",
        (tool_call_id, conversation_id),
    ).fetchone()
    call = json.loads(row[0]) if row and row[0] else {}
    c.execute(
        "INSERT INTO approvals (tool_call_id, conversation_id, run_id, server, tool, decision, "
        "arguments_before) VALUES (?, ?, ?, ?, ?, 'pending', ?) "
        "ON CONFLICT (conversation_id, tool_call_id) DO NOTHING",
        (
            tool_call_id,
            conversation_id,
            run_id,
            call.get("server", ""),
            call.get("tool", ""),
            dump(call.get("arguments")),
        ),
    )
    c.execute(
        "UPDATE approvals SET decision = ?, reason = ?, source = ?, scope = ?, "
        "arguments_after = COALESCE(?, arguments_before), decided_at = ? "
        "WHERE conversation_id = ? AND tool_call_id = ?",
        (decision, reason, source, scope, dump(arguments_after), now, conversation_id, tool_call_id),
    )
    if arguments_after is not None and row is not None:
        c.execute(
            "UPDATE parts SET payload = json_set(payload, '$.arguments', json(?)) WHERE tool_call_id = ? "
            "AND kind = 'tool_call' AND message_id IN (SELECT id FROM messages WHERE conversation_id = ?)",
            (dump(arguments_after), tool_call_id, conversation_id),
        )


def cancel_pending_approvals(c: sqlite3.Connection, now: float, run_id: str) -> None:
    c.execute(
        "UPDATE approvals SET decision = 'cancelled', decided_at = ? WHERE run_id = ? AND decision = 'pending'",
        (now, run_id),
    )


USAGE_FIELDS = ("prompt_tokens", "completion_tokens", "total_tokens", "cache_hit_tokens", "cache_miss_tokens")


def add_usage(c: sqlite3.Connection, now: float, run_id: str, conversation_id: str, usage: dict[str, int]) -> None:
    c.execute(
        f"INSERT INTO usage (run_id, conversation_id, {', '.join(USAGE_FIELDS)}, created_at) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        (run_id, conversation_id, *(usage.get(name, 0) for name in USAGE_FIELDS), now),
    )
