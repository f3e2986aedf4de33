"""Versioned migrations: a fresh database, re-opening, a newer database refused untouched, stepwise upgrades."""

from __future__ import annotations

import sqlite3
from contextlib import closing
from pathlib import Path

import pytest

from desktop_app.runtime.store import SCHEMA_VERSION, SchemaTooNewError, Store, StoreError
from desktop_app.runtime.store.schema import migrate, schema_version


def test_fresh_database_gets_every_table_wal_and_the_current_version(tmp_path: Path) -> None:
    path = tmp_path / "new" / "s.db"
    with Store.open(path) as store:
        conn = store.connection
        assert schema_version(conn) == SCHEMA_VERSION
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert conn.execute("PRAGMA foreign_keys").fetchone()[0] == 1
        assert conn.execute("PRAGMA synchronous").fetchone()[0] == 1  # NORMAL
        names = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type IN ('table', 'view')")}
        assert {"conversations", "messages", "parts", "approvals", "usage", "runs", "parts_fts"} <= names


def test_reopening_keeps_data_and_runs_no_migration_twice(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    with Store.open(path) as store:
        cid = store.create_conversation(title="Kept")
    with Store.open(path) as store:
        assert schema_version(store.connection) == SCHEMA_VERSION
        info = store.get_conversation(cid)
        assert info is not None and info.title == "Kept"


def test_a_newer_database_is_refused_with_a_clear_error_and_left_untouched(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    with closing(sqlite3.connect(path)) as conn:
        conn.execute("CREATE TABLE future (x)")
        conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
        conn.commit()
    before = path.read_bytes()
    with pytest.raises(SchemaTooNewError) as info:
        Store.open(path)
    assert f"schema version {SCHEMA_VERSION + 1}" in str(info.value)
    assert "not changed" in str(info.value)
    assert path.read_bytes() == before
    with closing(sqlite3.connect(path)) as conn:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "delete"  # not switched to WAL


def test_a_file_that_is_not_a_database_is_refused_untouched(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    path.write_bytes(b"this is not sqlite" * 100)
    with pytest.raises(StoreError, match="not a usable conversation database"):
        Store.open(path)
    assert path.read_bytes() == b"this is not sqlite" * 100


def test_migrations_apply_stepwise_each_with_its_version(tmp_path: Path) -> None:
    applied: list[int] = []

    def v1(conn: sqlite3.Connection) -> None:
        conn.execute("CREATE TABLE a (x)")
        applied.append(1)

    def v2(conn: sqlite3.Connection) -> None:
        conn.execute("ALTER TABLE a ADD COLUMN y")
        applied.append(2)

    def broken_v3(conn: sqlite3.Connection) -> None:
        conn.execute("CREATE TABLE b (x)")
        raise RuntimeError("boom")

    with closing(sqlite3.connect(tmp_path / "m.db", isolation_level=None)) as conn:
        assert migrate(conn, "m.db", [v1]) == 1
        assert migrate(conn, "m.db", [v1, v2]) == 2
        assert applied == [1, 2]
        with pytest.raises(RuntimeError):
            migrate(conn, "m.db", [v1, v2, broken_v3])
        assert schema_version(conn) == 2  # the failed step rolled back with its version bump
        assert conn.execute("SELECT name FROM sqlite_master WHERE name = 'b'").fetchone() is None
        with pytest.raises(SchemaTooNewError):
            migrate(conn, "m.db", [v1])
