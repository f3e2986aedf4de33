"""The crash-safe conversation store: one SQLite file in WAL mode, written in small transactions.

Reads rebuild the runtime's conversation model (``load_messages``) and search all conversations with FTS5.
The low-level writers (``add_message``, ``add_part``, ``append_text`` …) are what the ``Recorder`` uses;
wrap several in ``transaction()`` to make them one commit.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from desktop_app.runtime.messages import Message
from desktop_app.runtime.store import read, run_rows
from desktop_app.runtime.store.connect import open_database
from desktop_app.runtime.store.lease import Lease, owner_alive
from desktop_app.runtime.store.records import (
    ConversationInfo,
    SearchHit,
    StoredMessage,
    StoredRun,
    make_title,
    to_model_messages,
)
from desktop_app.runtime.store.run_rows import dump
from desktop_app.runtime.store.schema import SEARCHABLE_KINDS, StoreError


class Store:
    """Conversations, messages, parts, runs, approvals and usage in one SQLite database."""

    def __init__(self, path: Path | str, *, clock: Callable[[], float] = time.time) -> None:
        self.path = Path(path)
        self._clock = clock
        self._depth = 0
        conn = open_database(self.path)
        self._conn = conn
        self._lease = Lease(self.path)
        self.owner = self._lease.owner
        """This store's lease on the runs it writes (see :mod:`.lease`)."""

    @classmethod
    def open(cls, path: Path | str, **kwargs: Any) -> Store:
        """Open (creating the folder and the file if needed)."""
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        return cls(path, **kwargs)

    def close(self) -> None:
        self._conn.close()
        self._lease.release()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def connection(self) -> sqlite3.Connection:
        return self._conn

    def now(self) -> float:
        return self._clock()

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """One commit for everything inside; nested uses join the outer transaction."""
        if self._depth == 0:
            self._conn.execute("BEGIN IMMEDIATE")
        self._depth += 1
        try:
            yield self._conn
        except BaseException:
            self._depth -= 1
            if self._depth == 0 and self._conn.in_transaction:  # SQLITE_FULL may have rolled it back already
                self._conn.execute("ROLLBACK")
            raise
        self._depth -= 1
        if self._depth == 0:
            try:
                self._conn.execute("COMMIT")
            except sqlite3.Error:
                if self._conn.in_transaction:  # never leave it open: every later BEGIN would fail
                    self._conn.execute("ROLLBACK")
                raise

    def integrity_check(self) -> str:
        return str(self._conn.execute("PRAGMA integrity_check").fetchone()[0])

    # -- conversations ---------------------------------------------------------------------------------

    def create_conversation(
        self, conversation_id: str | None = None, *, title: str = "", base_url: str = "", model: str = ""
    ) -> str:
        import uuid

        cid = conversation_id or uuid.uuid4().hex
        now = self.now()
        with self.transaction() as c:
            c.execute(
                "INSERT INTO conversations (id, title, created_at, updated_at, base_url, model) VALUES (?,?,?,?,?,?)",
                (cid, make_title(title), now, now, base_url, model),
            )
        return cid

    def ensure_conversation(self, conversation_id: str, *, base_url: str = "", model: str = "") -> None:
        """Create the conversation if it is new; otherwise record the provider it now uses (if given)."""
        now = self.now()
        with self.transaction() as c:
            c.execute(
                "INSERT INTO conversations (id, created_at, updated_at, base_url, model) VALUES (?,?,?,?,?) "
                "ON CONFLICT (id) DO UPDATE SET updated_at = excluded.updated_at, "
                "base_url = CASE WHEN excluded.base_url = '' THEN base_url ELSE excluded.base_url END, "
                "model = CASE WHEN excluded.model = '' THEN model ELSE excluded.model END",
                (conversation_id, now, now, base_url, model),
            )

    def rename_conversation(self, conversation_id: str, title: str) -> None:
        with self.transaction() as c:
            self._changed(
                c.execute(
                    "UPDATE conversations SET title = ?, updated_at = ? WHERE id = ?",
                    (make_title(title), self.now(), conversation_id),
                ),
                conversation_id,
            )

    def set_title_if_empty(self, conversation_id: str, text: str) -> bool:
        """Title an untitled conversation from ``text`` (the first prompt or answer). Returns whether it did."""
        title = make_title(text)
        if not title:
            return False
        with self.transaction() as c:
            cur = c.execute("UPDATE conversations SET title = ? WHERE id = ? AND title = ''", (title, conversation_id))
        return cur.rowcount > 0

    def delete_conversation(self, conversation_id: str) -> None:
        """Soft delete: hidden from lists and search until ``restore_conversation`` (undo) or ``purge_deleted``
        (its sub-agent runs with it)."""
        with self.transaction() as c:
            self._changed(
                c.execute("UPDATE conversations SET deleted_at = ? WHERE id = ?", (self.now(), conversation_id)),
                conversation_id,
            )
            c.execute("UPDATE conversations SET deleted_at = ? WHERE root_id = ?", (self.now(), conversation_id))

    def restore_conversation(self, conversation_id: str) -> None:
        with self.transaction() as c:
            self._changed(
                c.execute("UPDATE conversations SET deleted_at = NULL WHERE id = ?", (conversation_id,)),
                conversation_id,
            )
            c.execute("UPDATE conversations SET deleted_at = NULL WHERE root_id = ?", (conversation_id,))

    def purge_deleted(self, older_than_s: float = 0.0) -> int:
        """Really delete conversations soft-deleted at least ``older_than_s`` seconds ago."""
        with self.transaction() as c:
            cur = c.execute(
                "DELETE FROM conversations WHERE deleted_at IS NOT NULL AND deleted_at <= ?",
                (self.now() - older_than_s,),
            )
        return cur.rowcount

    def get_conversation(self, conversation_id: str) -> ConversationInfo | None:
        return read.conversation(self._conn, conversation_id)

    def list_conversations(self, *, include_deleted: bool = False, limit: int | None = None) -> list[ConversationInfo]:
        """Most recently updated first; sub-agent runs (``store.agents``) only with ``include_deleted`` (all)."""
        return read.conversations(self._conn, include_deleted=include_deleted, limit=limit)

    def mark_quick(self, conversation_id: str) -> None:
        """Mark a conversation as started in the quick prompt (it must exist: the recorder creates it)."""
        with self.transaction() as c:
            c.execute("UPDATE conversations SET quick = 1 WHERE id = ?", (conversation_id,))

    def touch(self, conversation_id: str) -> None:
        with self.transaction() as c:
            c.execute("UPDATE conversations SET updated_at = ? WHERE id = ?", (self.now(), conversation_id))

    @staticmethod
    def _changed(cursor: sqlite3.Cursor, conversation_id: str) -> None:
        if cursor.rowcount == 0:
            raise StoreError(f"Conversation {conversation_id!r} does not exist.")

    # -- runs ------------------------------------------------------------------------------------------

    def start_run(self, run_id: str, conversation_id: str) -> None:
        with self.transaction() as c:
            run_rows.start_run(c, self.now(), run_id, conversation_id, self.owner)

    def set_run_status(
        self, run_id: str, status: str, *, ended: bool = False, reason: str | None = None, error: str | None = None
    ) -> None:
        with self.transaction() as c:
            run_rows.set_run_status(c, self.now() if ended else None, run_id, status, reason, error)

    def mark_interrupted_runs(self) -> int:
        """On start: runs left live by a process that is gone become ``interrupted``, their streaming messages
        and pending approvals too; partial text is kept.

        Runs whose owner still holds its lease (another app or ``switchboard ask`` on the same home, still
        running) are left alone. Call it once when the app (or ``switchboard ask``) starts, before any run.
        Returns the number of runs marked.
        """
        with self.transaction() as c:
            dead, messages = run_rows.interrupt_runs(
                c, self.now(), lambda owner: owner_alive(self.path, owner, me=self.owner)
            )
            for message_id in messages:
                self._index_message(message_id)
        return len(dead)

    # -- low-level writers (the recorder's) ------------------------------------------------------------

    def add_message(self, conversation_id: str, role: str, *, run_id: str | None, status: str) -> int:
        with self.transaction() as c:
            row = c.execute(
                "SELECT COALESCE(MAX(position), -1) + 1 FROM messages WHERE conversation_id = ?", (conversation_id,)
            ).fetchone()
            cur = c.execute(
                "INSERT INTO messages (conversation_id, run_id, role, status, position, created_at) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                (conversation_id, run_id, role, status, int(row[0]), self.now()),
            )
        return int(cur.lastrowid or 0)

    def set_message_status(self, message_id: int, status: str) -> None:
        with self.transaction() as c:
            c.execute("UPDATE messages SET status = ? WHERE id = ?", (status, message_id))

    def delete_message(self, message_id: int) -> None:
        with self.transaction() as c:
            c.execute("DELETE FROM messages WHERE id = ?", (message_id,))

    def delete_message_range(self, conversation_id: str, start: int, end: int | None = None) -> int:
        """Delete the conversation's messages at positions ``start`` up to ``end`` (exclusive; None: to the
        end), with their parts and index entries (regenerate, retry, delete a turn). Returns how many went.
        A compaction that covered any of them is undone: its summary no longer says what they were."""
        with self.transaction() as c:
            cur = c.execute(
                "DELETE FROM messages WHERE conversation_id = ? AND position >= ? AND position < ?",
                (conversation_id, start, end if end is not None else 2**62),
            )
            c.execute(
                "UPDATE compactions SET undone_at = ? WHERE conversation_id = ? AND boundary > ? AND undone_at IS NULL",
                (self.now(), conversation_id, start),
            )
        return int(cur.rowcount)

    def add_part(
        self,
        message_id: int,
        kind: str,
        text: str = "",
        *,
        payload: dict[str, Any] | None = None,
        tool_call_id: str | None = None,
        index: bool = False,
    ) -> int:
        """Append a part to a message. ``index`` adds a finished text/reasoning part to the search index."""
        with self.transaction() as c:
            row = c.execute(
                "SELECT COALESCE(MAX(position), -1) + 1 FROM parts WHERE message_id = ?", (message_id,)
            ).fetchone()
            cur = c.execute(
                "INSERT INTO parts (message_id, position, kind, text, payload, tool_call_id) VALUES (?,?,?,?,?,?)",
                (message_id, int(row[0]), kind, text, dump(payload), tool_call_id),
            )
            part_id = int(cur.lastrowid or 0)
            if index and kind in SEARCHABLE_KINDS and text:
                c.execute("INSERT INTO parts_fts (rowid, text) VALUES (?, ?)", (part_id, text))
        return part_id

    def set_part_text(self, part_id: int, text: str) -> None:
        """Replace a part's text (and its search entry, if it had one)."""
        with self.transaction() as c:
            c.execute("UPDATE parts SET text = ? WHERE id = ?", (text, part_id))
            indexed = c.execute("SELECT 1 FROM parts_fts WHERE rowid = ?", (part_id,)).fetchone()
        if indexed:
            self.index_part(part_id)

    def set_part_payload(self, part_id: int, payload: dict[str, Any]) -> None:
        """Replace a part's payload (e.g. a reasoning part's ``duration_s`` once it ends)."""
        with self.transaction() as c:
            c.execute("UPDATE parts SET payload = ? WHERE id = ?", (dump(payload), part_id))

    def append_text(self, part_id: int, text: str) -> None:
        with self.transaction() as c:
            c.execute("UPDATE parts SET text = text || ? WHERE id = ?", (text, part_id))

    def index_part(self, part_id: int) -> None:
        """Add a finished text/reasoning part to the search index (idempotent)."""
        with self.transaction() as c:
            c.execute("DELETE FROM parts_fts WHERE rowid = ?", (part_id,))
            c.execute(
                "INSERT INTO parts_fts (rowid, text) SELECT id, text FROM parts "
                f"WHERE id = ? AND text != '' AND kind IN {tuple(SEARCHABLE_KINDS)!r}",
                (part_id,),
            )

    def _index_message(self, message_id: int) -> None:
        rows = self._conn.execute("SELECT id FROM parts WHERE message_id = ?", (message_id,)).fetchall()
        for (part_id,) in rows:
            self.index_part(part_id)

    def tool_call_message(self, conversation_id: str, tool_call_id: str) -> int | None:
        """The message that holds this tool call, if it is stored already."""
        row = self._conn.execute(
            "SELECT p.message_id FROM parts p JOIN messages m ON m.id = p.message_id "
            "WHERE p.tool_call_id = ? AND p.kind = 'tool_call' AND m.conversation_id = ?",
            (tool_call_id, conversation_id),
        ).fetchone()
        return int(row[0]) if row else None

    def record_approval_request(
        self, tool_call_id: str, conversation_id: str, run_id: str, server: str, tool: str, arguments: Any
    ) -> None:
        with self.transaction() as c:
            run_rows.request_approval(c, self.now(), tool_call_id, conversation_id, run_id, server, tool, arguments)

    def record_approval_decision(
        self,
        tool_call_id: str,
        conversation_id: str,
        run_id: str,
        *,
        decision: str,
        reason: str | None,
        source: str,
        scope: str = "once",
        arguments_after: dict[str, Any] | None = None,
    ) -> None:
        """Decide an approval; a policy decision with no request before it creates the row.

        Edited ``arguments_after`` also replace the arguments of the stored tool call, as in the history.
        """
        with self.transaction() as c:
            run_rows.decide_approval(
                c,
                self.now(),
                tool_call_id,
                conversation_id,
                run_id,
                decision=decision,
                reason=reason,
                source=source,
                scope=scope,
                arguments_after=arguments_after,
            )

    def cancel_pending_approvals(self, run_id: str) -> None:
        with self.transaction() as c:
            run_rows.cancel_pending_approvals(c, self.now(), run_id)

    def add_usage(self, run_id: str, conversation_id: str, usage: dict[str, int]) -> None:
        with self.transaction() as c:
            run_rows.add_usage(c, self.now(), run_id, conversation_id, usage)

    # -- reads ---------------------------------------------------------------------------------------------

    def messages(self, conversation_id: str, *, from_position: int = 0) -> list[StoredMessage]:
        """The stored messages of the conversation (all, or those from ``from_position`` on), in order, with
        their parts."""
        return read.messages(self._conn, conversation_id, from_position)

    def user_positions(self, conversation_id: str) -> list[int]:
        """The positions of the conversation's user messages, in order (no message text is read)."""
        rows = self._conn.execute(
            "SELECT position FROM messages WHERE conversation_id = ? AND role = 'user' ORDER BY position",
            (conversation_id,),
        ).fetchall()
        return [int(row[0]) for row in rows]

    def tail_position(self, conversation_id: str, limit: int) -> tuple[int, int]:
        """``(position, earlier)``: where the latest ``limit`` messages start in whole turns (a user message),
        and how many messages come before it (``(0, 0)`` when the conversation is that short)."""
        return read.tail_position(self._conn, conversation_id, limit)

    def runs(self, conversation_id: str) -> dict[str, StoredRun]:
        return read.runs(self._conn, conversation_id)

    def load_messages(self, conversation_id: str, *, close_dangling_calls: bool = False) -> list[Message]:
        """The conversation as the runtime's model messages (no system prompt), ready to continue.

        Tool calls of a paused or interrupted turn stay without results, so that the runtime can offer to
        continue them (``run.pending_tool_calls``). ``close_dangling_calls`` instead answers each with an
        ``is_error`` result, for a history that goes straight to a provider.
        """
        messages, runs = self.messages(conversation_id), self.runs(conversation_id)
        return to_model_messages(messages, runs, close_dangling_calls=close_dangling_calls)

    def approvals(self, conversation_id: str) -> list[dict[str, Any]]:
        return read.approvals(self._conn, conversation_id)

    def usage(self, conversation_id: str) -> list[dict[str, Any]]:
        return read.usage(self._conn, conversation_id)

    def search(self, query: str, limit: int = 50, *, marks: tuple[str, str] = ("[", "]")) -> list[SearchHit]:
        """Full-text search over message text and reasoning in every live conversation, best match first."""
        return read.search(self._conn, query, limit, marks=marks)
