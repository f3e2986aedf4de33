"""``switchboard ask`` with a conversation store that fills up: SQLite's ``max_page_count`` caps the database at
its size when opened plus ``FULL_STORE_EXTRA_PAGES`` pages (default 40), so later writes fail with SQLITE_FULL,
as on a full disk. Used where a small tmpfs home cannot be mounted.

    python -m tests.support.full_store_ask ask --home DIR … PROMPT
"""

from __future__ import annotations

import os
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


db.Store.__init__ = _capped  # type: ignore[method-assign]

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
