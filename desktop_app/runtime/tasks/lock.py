"""One scheduler per store: the app and ``switchboard serve`` on the same home never both fire a task.

The process whose scheduler runs holds ``<database>.scheduler.lock`` (``flock`` on POSIX, ``msvcrt.locking``
on Windows) for as long as it runs; the kernel drops it with the process. A second process finds it held and
leaves the schedule to the first (its Run now still works).
"""

from __future__ import annotations

import contextlib
import sys
from pathlib import Path
from typing import IO


class SchedulerLock:
    """``acquire()`` returns whether this process may schedule; ``release()`` gives it up."""

    def __init__(self, database: Path) -> None:
        self.path = database.with_name(database.name + ".scheduler.lock")
        self._file: IO[bytes] | None = None

    def acquire(self) -> bool:
        if self._file is not None:
            return True
        try:
            handle = open(self.path, "a+b")  # noqa: SIM115 - held open while this process schedules
        except OSError:
            return True  # a folder we cannot write: the store fails visibly on its own; do not also stop tasks
        try:
            if sys.platform == "win32":  # pragma: no cover - Windows
                import msvcrt

                msvcrt.locking(handle.fileno(), msvcrt.LK_NBLCK, 1)
            else:
                import fcntl

                fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            handle.close()
            return False
        self._file = handle
        return True

    def release(self) -> None:
        if self._file is not None:
            with contextlib.suppress(OSError):
                self._file.close()
            self._file = None
