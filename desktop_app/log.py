"""Logging setup: one rotating file under the log folder, every line through the one redaction step.

The redaction itself (known secrets and key-shaped strings) lives in :mod:`desktop_app.runtime.redaction`.
"""

from __future__ import annotations

import logging
import logging.handlers
import sys
from pathlib import Path

from desktop_app.runtime.redaction import redact


class RedactingFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        return redact(super().format(record))


class _LogFileHandler(logging.handlers.RotatingFileHandler):
    """A log file that cannot be written (disk full, read-only) says so once, in one line, and goes quiet,
    instead of a traceback on stderr for every record."""

    failed = False

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
    handler = _LogFileHandler(path, maxBytes=2_000_000, backupCount=3, encoding="utf-8")
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
