"""Logging setup: one rotating file under the log folder, every line through the one redaction step.

The redaction itself (known secrets and key-shaped strings) lives in :mod:`desktop_app.runtime.redaction`.
The rotation is the standard library's ``RotatingFileHandler``'s, done here on a plain ``FileHandler``: its
module, ``logging.handlers``, brings ``pickle`` and ``socket`` for its other handlers (~2.5 ms on the way to
``runtime: ready``, where the app opens its log file; issue 27).
"""

from __future__ import annotations

import logging
import os
import sys
from pathlib import Path

from desktop_app.runtime.redaction import redact


class RedactingFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        return redact(super().format(record))


class _LogFileHandler(logging.FileHandler):
    """``switchboard.log``, renamed to ``.1`` (and ``.1`` to ``.2`` …, the oldest dropped) when the next record
    would take it past ``max_bytes``, as ``RotatingFileHandler`` does. A log file that cannot be written (disk
    full, read-only) says so once, in one line, and goes quiet, instead of a traceback on stderr per record."""

    failed = False

    def __init__(self, path: Path, *, max_bytes: int, backups: int) -> None:
        super().__init__(path, mode="a", encoding="utf-8")
        self.max_bytes = max_bytes
        self.backups = backups

    def emit(self, record: logging.LogRecord) -> None:
        try:
            if self._full_with(record):
                self._roll_over()
        except Exception:
            self.handleError(record)
            return
        super().emit(record)

    def _full_with(self, record: logging.LogRecord) -> bool:
        if self.stream is None:
            self.stream = self._open()
        if self.max_bytes <= 0 or (os.path.exists(self.baseFilename) and not os.path.isfile(self.baseFilename)):
            return False
        line = f"{self.format(record)}{self.terminator}"
        self.stream.seek(0, 2)
        return bool(self.stream.tell() + len(line) >= self.max_bytes)

    def _roll_over(self) -> None:
        if self.stream is not None:
            self.stream.close()
            self.stream = None
        base = self.baseFilename
        for index in range(self.backups - 1, 0, -1):
            older, newer = f"{base}.{index}", f"{base}.{index + 1}"
            if os.path.exists(older):
                os.replace(older, newer)
        if self.backups > 0 and os.path.exists(base):
            os.replace(base, f"{base}.1")
        self.stream = self._open()

    def handleError(self, record: logging.LogRecord) -> None:
        if self.failed:
            return
        self.failed = True
        error = sys.exc_info()[1]
        sys.stderr.write(f"switchboard: cannot write the log file {self.baseFilename} ({error}); not logging to it.\n")


def setup_logging(log_dir: Path, *, level: int = logging.INFO) -> Path:
    """Log to ``switchboard.log`` in ``log_dir`` (rotating, 2 MB × 3). Returns the file path."""
    log_dir.mkdir(parents=True, exist_ok=True)
    path = log_dir / "switchboard.log"
    handler = _LogFileHandler(path, max_bytes=2_000_000, backups=3)
    handler.setFormatter(RedactingFormatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    root = logging.getLogger()
    for old in [h for h in root.handlers if getattr(h, "_switchboard", False)]:
        root.removeHandler(old)
        old.close()
    handler._switchboard = True  # type: ignore[attr-defined]
    root.addHandler(handler)
    root.setLevel(level)
    # Third-party chatter stays out of the log unless it is a warning.
    for noisy in ("httpx", "httpcore", "httpx2", "httpcore2", "mcp", "asyncio"):
        logging.getLogger(noisy).setLevel(logging.WARNING)
    return path


__all__ = ["RedactingFormatter", "redact", "setup_logging"]
