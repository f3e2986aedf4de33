"""Opening the store's SQLite file: the version check, the pragmas (WAL, foreign keys, busy timeout) and the
migrations, with a full or read-only disk, a newer database and a broken file each named as such.

``Store.__init__`` calls :func:`open_database`; nothing else here touches the data.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from desktop_app.runtime.store.schema import StoreError, check_version, migrate
from desktop_app.runtime.store.unwritable import StoreUnwritableError, disk_problem


def open_database(path: Path) -> sqlite3.Connection:
    """The open, migrated connection (autocommit: ``Store.transaction`` begins and commits)."""
    try:
        conn = sqlite3.connect(path, isolation_level=None)
    except sqlite3.Error as exc:
        raise StoreError(f"{path}: cannot open the conversation database: {exc}") from exc
    try:
        check_version(conn, path)  # before any write: a newer database stays untouched
        conn.execute("PRAGMA journal_mode = WAL")
        conn.execute("PRAGMA synchronous = NORMAL")
        conn.execute("PRAGMA foreign_keys = ON")
        conn.execute("PRAGMA busy_timeout = 5000")
        migrate(conn, path)
    except sqlite3.DatabaseError as exc:
        conn.close()
        problem = disk_problem(exc)  # a full or read-only disk is not a broken database
        if problem is not None:
            raise StoreUnwritableError(path, problem, str(exc)) from exc
        raise StoreError(f"{path}: not a usable conversation database ({exc}); it was not changed.") from exc
    except BaseException:
        conn.close()
        raise
    return conn
