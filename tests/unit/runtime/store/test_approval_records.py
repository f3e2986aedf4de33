"""Approval records are keyed by conversation and tool-call id: the same id in two conversations keeps two
records; a version-2 database keeps its approvals when it moves to the new key."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from desktop_app.runtime.store import Store
from desktop_app.runtime.store.schema import MIGRATIONS, migrate


def test_the_same_call_id_in_two_conversations_keeps_two_records(store: Store) -> None:
    for conversation, decision in (("a", "approved"), ("b", "denied")):
        store.ensure_conversation(conversation)
        message = store.add_message(conversation, "assistant", run_id=None, status="complete")
        store.add_part(
            message, "tool_call", "t", payload={"server": f"s-{conversation}", "tool": "t"}, tool_call_id="call_0"
        )
        store.record_approval_request("call_0", conversation, f"run-{conversation}", f"s-{conversation}", "t", {})
        store.record_approval_decision(
            "call_0", conversation, f"run-{conversation}", decision=decision, reason=None, source="user",
            arguments_after={"edited": conversation} if decision == "approved" else None,
        )  # fmt: skip
    [a] = store.approvals("a")
    [b] = store.approvals("b")
    assert (a["decision"], a["server"], a["arguments_after"]) == ("approved", "s-a", {"edited": "a"})
    assert (b["decision"], b["server"], b["arguments_after"]) == ("denied", "s-b", {})
    # the edit of conversation a's call did not touch conversation b's stored call
    [b_call] = [p for m in store.messages("b") for p in m.parts if p.kind == "tool_call"]
    assert "arguments" not in (b_call.payload or {})


def test_a_version_2_database_keeps_its_approvals(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    conn = sqlite3.connect(path, isolation_level=None)
    migrate(conn, path, MIGRATIONS[:2])
    conn.execute("INSERT INTO conversations (id, created_at, updated_at) VALUES ('c', 0, 0)")
    conn.execute("INSERT INTO approvals (tool_call_id, conversation_id, decision) VALUES ('x', 'c', 'approved')")
    conn.close()
    with Store.open(path) as store:
        assert [(r["tool_call_id"], r["decision"]) for r in store.approvals("c")] == [("x", "approved")]
