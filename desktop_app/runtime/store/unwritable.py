"""A store the disk cannot take: what the failure is called, and what every run is told when the store could not
even be opened for that reason.

A full disk (SQLITE_FULL, ``ENOSPC``), a read-only file or folder (SQLITE_READONLY, ``EROFS``) and a disk I/O
error (SQLITE_IOERR, ``EIO``) are the disk's problem, not the database's: ``disk_problem`` names them in words.
When one of them stops the store from opening at start, ``Store`` raises ``StoreUnwritableError`` (not "not a
usable conversation database"), and ``report_unsaved`` makes every run of the session publish a
``StoreFailed`` as it starts, so that ``switchboard ask`` keeps its contract for a run it could not store
(stderr says so, exit 6) and the window shows the same notice as for a store that fills up mid-run.
"""

from __future__ import annotations

import errno
import sqlite3
from collections.abc import Callable
from pathlib import Path

from desktop_app.runtime import events as ev
from desktop_app.runtime.store.schema import StoreError

_SQLITE = {
    sqlite3.SQLITE_FULL: "the disk is full",
    sqlite3.SQLITE_READONLY: "the database file or its folder is read-only",
    sqlite3.SQLITE_IOERR: "the disk reported an I/O error",
}
_ERRNO = {
    errno.ENOSPC: "the disk is full",
    errno.EDQUOT: "the disk quota is used up",
    errno.EROFS: "the disk is mounted read-only",
    errno.EIO: "the disk reported an I/O error",
}
_ADVICE = {
    "the disk is full": "free disk space",
    "the disk quota is used up": "free space within your disk quota",
}


def disk_problem(exc: BaseException) -> str | None:
    """``exc`` in words when the disk is the cause (full, quota, read-only, I/O error), else ``None``."""
    if isinstance(exc, sqlite3.Error):
        code = getattr(exc, "sqlite_errorcode", None)
        if isinstance(code, int):
            return _SQLITE.get(code & 0xFF)  # extended codes (SQLITE_IOERR_WRITE …) keep the primary in the low byte
        return None
    if isinstance(exc, OSError) and exc.errno is not None:
        return _ERRNO.get(exc.errno)
    return None


def advice(problem: str) -> str:
    """What the user can do about ``problem``."""
    return _ADVICE.get(problem, "check that the folder is writable and the disk is healthy")


class StoreUnwritableError(StoreError):
    """The store could not be opened because the disk cannot take writes (full, read-only, I/O error)."""

    code = "store_unwritable"

    def __init__(self, path: Path | str, problem: str, detail: str) -> None:
        self.path = Path(path)
        self.problem = problem
        super().__init__(
            f"{self.path}: {problem} ({detail}), so conversations cannot be saved; {advice(problem)}. "
            "The database was not changed."
        )


def unsaved_message(error: StoreUnwritableError) -> str:
    """What a run is told when the store could not be opened (it matches the recorder's mid-run message)."""
    return (
        f"This conversation cannot be saved to {error.path}: {error.problem}. The answer is kept in memory: save "
        f"it with “Save a copy…” before you close it, then {advice(error.problem)}."
    )


def write_failed_message(path: object, exc: BaseException) -> str:
    """What a run is told when a write failed mid-run (the recorder's message): the disk problem when there is
    one, and what to do."""
    problem = disk_problem(exc)
    if problem is not None:
        return (
            f"This conversation could not be saved to {path}: {problem} ({exc}). The answer is kept in "
            f"memory: save it with “Save a copy…” before you close it, then {advice(problem)}."
        )
    return (
        f"This conversation could not be saved to {path} ({exc}). The answer is kept in memory: "
        "save it with “Save a copy…” before you close it, then free disk space or check that the folder "
        "is writable."
    )


def report_unsaved(
    subscribe: Callable[[Callable[[ev.Event], None]], object],
    notify: Callable[[ev.Event], None],
    error: StoreUnwritableError,
) -> None:
    """Publish a ``StoreFailed`` for every run that starts from now on (the store could not be opened)."""
    message = unsaved_message(error)

    def on_event(event: ev.Event) -> None:
        if isinstance(event, ev.RunStarted):
            notify(
                ev.StoreFailed(
                    conversation_id=event.conversation_id, run_id=event.run_id, message=message, path=str(error.path)
                )
            )

    subscribe(on_event)


__all__ = [
    "StoreUnwritableError",
    "advice",
    "disk_problem",
    "report_unsaved",
    "unsaved_message",
    "write_failed_message",
]
