"""``switchboard ask`` with a conversation store that fills up: SQLite's ``max_page_count`` caps the database at
its size when opened plus ``FULL_STORE_EXTRA_PAGES`` pages (default 40), so later writes fail with SQLITE_FULL,
as on a full disk. Used where a small tmpfs home cannot be mounted. With ``FULL_STORE_AT_START=1`` the disk is
full before the store opens: every connection is capped at one page, so creating the database fails.

    python -m tests.support.full_store_ask ask --home DIR … PROMPT
"""

from __future__ import annotations

import os
import sqlite3
import sys
from typing import Any

from desktop_app.cli import main
from desktop_app.runtime.store import db

_open = db.Store.__init__


def _capped(self: db.Store, *args: Any, **kwargs: Any) -> None:
    _open(self, *args, **kwargs)
    pages = int(self.connection.execute("PRAGMA page_count").fetchone()[0])
    extra = int(os.environ.get("FULL_STORE_EXTRA_PAGES", "40"))
    self.connection.execute(f"PRAGMA max_page_count = {pages + extra}")


_connect = sqlite3.connect


def _full_connect(*args: Any, **kwargs: Any) -> sqlite3.Connection:
    conn = _connect(*args, **kwargs)
    conn.execute("PRAGMA max_page_count = 1")  # no room for a single table
    return conn


if os.environ.get("FULL_STORE_AT_START") == "1":
    db.sqlite3.connect = _full_connect  # type: ignore[assignment]
else:
    db.Store.__init__ = _capped  # type: ignore[method-assign]

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
