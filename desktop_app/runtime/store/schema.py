"""The store's schema as a list of versioned migrations, tracked in ``PRAGMA user_version``.

``MIGRATIONS[i]`` takes a database from version ``i`` to ``i + 1``; each runs in its own transaction
together with the version bump, so a crash mid-migration leaves the previous version intact. A database
written by a newer Switchboard (a version above ``SCHEMA_VERSION``) is refused before anything is written.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Sequence
from pathlib import Path

from desktop_app.runtime.errors import SwitchboardError

Migration = Callable[[sqlite3.Connection], None]


class StoreError(SwitchboardError):
    """The conversation store cannot be opened or written."""

    code = "store_error"


class SchemaTooNewError(StoreError):
    """The database was written by a newer Switchboard; it is left untouched."""

    code = "store_schema_too_new"

    def __init__(self, path: Path | str, found: int, supported: int) -> None:
        self.path = Path(path)
        self.found = found
        self.supported = supported
        super().__init__(
            f"{self.path}: the conversation database has schema version {found}, but this Switchboard only "
            f"knows versions up to {supported}. Update Switchboard, or move the file away to start afresh; "
            "the file was not changed."
        )


MESSAGE_STATUSES = ("complete", "streaming", "interrupted", "stopped", "failed")
RUN_STATUSES = ("running", "finished", "failed", "cancelled", "interrupted", "paused")
PART_KINDS = ("text", "reasoning", "tool_call", "tool_result", "notice")
DECISIONS = ("pending", "approved", "denied", "cancelled", "interrupted")
SEARCHABLE_KINDS = ("text", "reasoning")


def _values(names: Sequence[str]) -> str:
    return ", ".join(f"'{n}'" for n in names)


def _v1(conn: sqlite3.Connection) -> None:
    statements = [
        """CREATE TABLE conversations (
            id TEXT PRIMARY KEY,
            title TEXT NOT NULL DEFAULT '',
            created_at REAL NOT NULL,
            updated_at REAL NOT NULL,
            base_url TEXT NOT NULL DEFAULT '',
            model TEXT NOT NULL DEFAULT '',
            deleted_at REAL
        )""",
        "CREATE INDEX conversations_by_update ON conversations (updated_at DESC)",
        f"""CREATE TABLE runs (
            id TEXT PRIMARY KEY,
            conversation_id TEXT NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
            status TEXT NOT NULL CHECK (status IN ({_values(RUN_STATUSES)})),
            reason TEXT,
            error TEXT,
            started_at REAL NOT NULL,
            ended_at REAL
        )""",
        "CREATE INDEX runs_by_conversation ON runs (conversation_id)",
        "CREATE INDEX runs_by_status ON runs (status)",
        f"""CREATE TABLE messages (
            id INTEGER PRIMARY KEY,
            conversation_id TEXT NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
            run_id TEXT REFERENCES runs (id) ON DELETE SET NULL,
            role TEXT NOT NULL CHECK (role IN ('system', 'user', 'assistant', 'tool')),
            status TEXT NOT NULL CHECK (status IN ({_values(MESSAGE_STATUSES)})),
            position INTEGER NOT NULL,
            created_at REAL NOT NULL,
            UNIQUE (conversation_id, position)
        )""",
        "CREATE INDEX messages_by_run ON messages (run_id)",
        "CREATE INDEX messages_by_status ON messages (status) WHERE status = 'streaming'",
        f"""CREATE TABLE parts (
            id INTEGER PRIMARY KEY,
            message_id INTEGER NOT NULL REFERENCES messages (id) ON DELETE CASCADE,
            position INTEGER NOT NULL,
            kind TEXT NOT NULL CHECK (kind IN ({_values(PART_KINDS)})),
            text TEXT NOT NULL DEFAULT '',
            payload TEXT,
            tool_call_id TEXT,
            UNIQUE (message_id, position)
        )""",
        "CREATE INDEX parts_by_tool_call ON parts (tool_call_id) WHERE tool_call_id IS NOT NULL",
        f"""CREATE TABLE approvals (
            tool_call_id TEXT PRIMARY KEY,
            conversation_id TEXT NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
            run_id TEXT,
            server TEXT NOT NULL DEFAULT '',
            tool TEXT NOT NULL DEFAULT '',
            decision TEXT NOT NULL CHECK (decision IN ({_values(DECISIONS)})),
            reason TEXT,
            source TEXT,
            scope TEXT,
            arguments_before TEXT,
            arguments_after TEXT,
            requested_at REAL,
            decided_at REAL
        )""",
        "CREATE INDEX approvals_by_conversation ON approvals (conversation_id)",
        """CREATE TABLE usage (
            id INTEGER PRIMARY KEY,
            run_id TEXT NOT NULL,
            conversation_id TEXT NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
            prompt_tokens INTEGER NOT NULL DEFAULT 0,
            completion_tokens INTEGER NOT NULL DEFAULT 0,
            total_tokens INTEGER NOT NULL DEFAULT 0,
            cache_hit_tokens INTEGER NOT NULL DEFAULT 0,
            cache_miss_tokens INTEGER NOT NULL DEFAULT 0,
            created_at REAL NOT NULL
        )""",
        "CREATE INDEX usage_by_conversation ON usage (conversation_id)",
        # Full-text index over text and reasoning parts; rowid = parts.id. Rows are written explicitly when
        # a part is complete (so a streaming flush stays O(delta)); the trigger removes them with the part.
        # A 3-character prefix index keeps search-as-you-type (``term*``) fast.
        "CREATE VIRTUAL TABLE parts_fts USING fts5 (text, tokenize = 'unicode61 remove_diacritics 2', prefix = '3')",
        """CREATE TRIGGER parts_fts_delete AFTER DELETE ON parts BEGIN
            DELETE FROM parts_fts WHERE rowid = old.id;
        END""",
    ]
    for statement in statements:
        conn.execute(statement)


def _v2(conn: sqlite3.Connection) -> None:
    """Conversations started in the quick prompt are marked (listed like the others, with a mark)."""
    conn.execute("ALTER TABLE conversations ADD COLUMN quick INTEGER NOT NULL DEFAULT 0")


def _v3(conn: sqlite3.Connection) -> None:
    """Runs record the process that writes them (``store.lease``); approvals are keyed by conversation and
    tool-call id, so the same id in two conversations never shares (or overwrites) a record."""
    conn.execute("ALTER TABLE runs ADD COLUMN owner TEXT")
    conn.execute(
        f"""CREATE TABLE approvals_v3 (
            tool_call_id TEXT NOT NULL,
            conversation_id TEXT NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
            run_id TEXT,
            server TEXT NOT NULL DEFAULT '',
            tool TEXT NOT NULL DEFAULT '',
            decision TEXT NOT NULL CHECK (decision IN ({_values(DECISIONS)})),
            reason TEXT,
            source TEXT,
            scope TEXT,
            arguments_before TEXT,
            arguments_after TEXT,
            requested_at REAL,
            decided_at REAL,
            PRIMARY KEY (conversation_id, tool_call_id)
        )"""
    )
    conn.execute("INSERT INTO approvals_v3 SELECT * FROM approvals")
    conn.execute("DROP TABLE approvals")
    conn.execute("ALTER TABLE approvals_v3 RENAME TO approvals")
    conn.execute("CREATE INDEX approvals_by_run ON approvals (run_id)")


def _v4(conn: sqlite3.Connection) -> None:
    """Versions of a conversation from an edited user message on (edit and resend keeps the old one)."""
    conn.execute(
        """CREATE TABLE branches (
            conversation_id TEXT NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
            anchor INTEGER NOT NULL,
            version INTEGER NOT NULL,
            live INTEGER NOT NULL DEFAULT 0,
            payload TEXT NOT NULL DEFAULT '[]',
            created_at REAL NOT NULL,
            PRIMARY KEY (conversation_id, anchor, version)
        )"""
    )


def _v5(conn: sqlite3.Connection) -> None:
    """Each conversation records the agent it talks to; a sub-agent's run (``chat-with-<agent>``) is a child
    conversation of the tool call that started it, under its top-level (root) conversation."""
    conn.execute("ALTER TABLE conversations ADD COLUMN agent TEXT NOT NULL DEFAULT ''")
    conn.execute("ALTER TABLE conversations ADD COLUMN parent_id TEXT")
    conn.execute("ALTER TABLE conversations ADD COLUMN parent_tool_call_id TEXT")
    conn.execute("ALTER TABLE conversations ADD COLUMN root_id TEXT")
    conn.execute("CREATE INDEX conversations_by_parent ON conversations (parent_id) WHERE parent_id IS NOT NULL")


def _v6(conn: sqlite3.Connection) -> None:
    """Compactions (#16): a summary that stands for a conversation's first ``turns`` user turns in requests.
    The messages it covers are never deleted; ``boundary`` is the position of the first message kept
    verbatim when it was made, ``undone_at`` is set by Undo."""
    conn.execute(
        """CREATE TABLE compactions (
            id TEXT PRIMARY KEY,
            conversation_id TEXT NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
            turns INTEGER NOT NULL,
            boundary INTEGER NOT NULL,
            summary TEXT NOT NULL,
            payload TEXT NOT NULL DEFAULT '{}',
            created_at REAL NOT NULL,
            undone_at REAL
        )"""
    )
    conn.execute("CREATE INDEX compactions_by_conversation ON compactions (conversation_id, created_at)")


TASK_RUN_STATUSES = ("running", "waiting", "finished", "failed", "cancelled", "interrupted", "skipped", "missed")
TASK_TRIGGERS = ("schedule", "catch_up", "manual")


def _v7(conn: sqlite3.Connection) -> None:
    """Tasks (#25): a prompt or a workflow with its inputs, an agent and a schedule (cron, zone, expiration;
    NULL cron: on request only). ``anchor`` is the instant up to which fire times are accounted for. Each run
    of a task is a row of ``task_runs`` and a conversation tagged with the task (``conversations.task_id``)."""
    conn.execute(
        """CREATE TABLE tasks (
            id TEXT PRIMARY KEY,
            name TEXT NOT NULL,
            prompt TEXT NOT NULL DEFAULT '',
            workflow TEXT,
            inputs TEXT NOT NULL DEFAULT '{}',
            agent TEXT NOT NULL DEFAULT '',
            cron TEXT,
            zone TEXT NOT NULL DEFAULT 'UTC',
            expires TEXT,
            enabled INTEGER NOT NULL DEFAULT 1,
            anchor REAL NOT NULL,
            created_at REAL NOT NULL,
            updated_at REAL NOT NULL
        )"""
    )
    conn.execute(
        f"""CREATE TABLE task_runs (
            id TEXT PRIMARY KEY,
            task_id TEXT NOT NULL REFERENCES tasks (id) ON DELETE CASCADE,
            conversation_id TEXT,
            trigger TEXT NOT NULL CHECK (trigger IN ({_values(TASK_TRIGGERS)})),
            scheduled_for REAL,
            started_at REAL NOT NULL,
            ended_at REAL,
            status TEXT NOT NULL CHECK (status IN ({_values(TASK_RUN_STATUSES)})),
            note TEXT NOT NULL DEFAULT '',
            answer TEXT NOT NULL DEFAULT '',
            owner TEXT
        )"""
    )
    conn.execute("CREATE INDEX task_runs_by_task ON task_runs (task_id, started_at DESC)")
    conn.execute("ALTER TABLE conversations ADD COLUMN task_id TEXT")


MIGRATIONS: tuple[Migration, ...] = (_v1, _v2, _v3, _v4, _v5, _v6, _v7)
SCHEMA_VERSION = len(MIGRATIONS)


def schema_version(conn: sqlite3.Connection) -> int:
    row = conn.execute("PRAGMA user_version").fetchone()
    return int(row[0])


def check_version(conn: sqlite3.Connection, path: Path | str, migrations: Sequence[Migration] = MIGRATIONS) -> int:
    """The database's version; raises ``SchemaTooNewError`` (without writing) when it is newer than ours."""
    found = schema_version(conn)
    if found > len(migrations):
        raise SchemaTooNewError(path, found, len(migrations))
    return found


def migrate(conn: sqlite3.Connection, path: Path | str, migrations: Sequence[Migration] = MIGRATIONS) -> int:
    """Apply the missing migrations in order, one transaction each. Returns the final version.

    ``conn`` must be in autocommit mode (``isolation_level=None``); the transactions are explicit.
    """
    version = check_version(conn, path, migrations)
    while version < len(migrations):
        conn.execute("BEGIN IMMEDIATE")
        try:
            current = schema_version(conn)  # another process may have migrated meanwhile
            if current != version:
                conn.execute("ROLLBACK")
                version = check_version(conn, path, migrations)
                continue
            migrations[version](conn)
            conn.execute(f"PRAGMA user_version = {version + 1}")
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        version += 1
    return version
