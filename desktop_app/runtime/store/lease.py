"""Run ownership: which process is writing which run, so that a second process never takes a live run for dead.

Every open ``Store`` holds a lease: a small file ``<database>.owners/<owner>.lock``, locked for as long as the
store is open (``flock`` on POSIX; on Windows the open file itself cannot be deleted). Runs are stored with
their owner. At start, ``Store.mark_interrupted_runs`` only marks runs whose owner's lease is gone: the owner
closed its store, exited or was killed (the kernel drops the lock with the process).
"""

from __future__ import annotations

import contextlib
import os
import sys
import uuid
from pathlib import Path
from typing import IO

if sys.platform != "win32":
    import fcntl

SUFFIX = ".lock"


def owners_dir(database: Path) -> Path:
    return database.with_name(database.name + ".owners")


class Lease:
    """This process's lease on runs it writes to ``database``; ``release()`` (or process exit) ends it."""

    def __init__(self, database: Path) -> None:
        self.owner = f"{os.getpid()}-{uuid.uuid4().hex[:12]}"
        self.folder = owners_dir(database)
        self.path = self.folder / f"{self.owner}{SUFFIX}"
        self._file: IO[bytes] | None = None
        try:
            self.folder.mkdir(exist_ok=True)
            handle = open(self.path, "wb")  # noqa: SIM115 - held open for the store's lifetime
        except OSError:
            return  # a store that cannot write its folder fails at its first write, with a clear error
        if sys.platform != "win32":
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        self._file = handle

    def release(self) -> None:
        if self._file is None:
            return
        with contextlib.suppress(OSError):
            self.path.unlink()
        self._file.close()
        self._file = None


def owner_alive(database: Path, owner: str | None, *, me: str | None = None) -> bool:
    """Whether ``owner`` (a run's recorded owner) still holds its lease. No owner (older runs), or this
    store itself (``me``: it asks at start, before it runs anything), counts as gone."""
    if not owner or owner == me:
        return False
    path = owners_dir(database) / f"{owner}{SUFFIX}"
    if sys.platform == "win32":  # pragma: no cover - a file its owner holds open cannot be deleted
        try:
            path.unlink()
        except FileNotFoundError:
            return False
        except OSError:
            return True
        return False
    try:
        handle = open(path, "rb")  # noqa: SIM115
    except FileNotFoundError:
        return False
    with handle:
        try:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return True
        with contextlib.suppress(OSError):
            path.unlink()  # a dead owner's leftover lease
        return False
