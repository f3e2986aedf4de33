"""The app's logging during start-up: warnings on stderr at once, the log file (``desktop_app.log``: rotation and
redaction, ~6 ms of imports) after the first paint, with the records kept until then written first, in order.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from desktop_app.paths import AppPaths


class EarlyLog(logging.Handler):
    """Holds what is logged before the log file is open: the file handler (``desktop_app.log``, with its
    rotation and redaction step) is set up after the first paint, and gets these records first."""

    def __init__(self) -> None:
        super().__init__()
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


def open_log_file(paths: AppPaths, level: str, early: EarlyLog | None = None) -> None:
    """The log file; with ``early`` (from ``start_logging``), after the records it kept, in order."""
    from desktop_app.log import setup_logging

    setup_logging(paths.log_dir, level=getattr(logging, level))
    root = logging.getLogger()
    if early is None:
        add_console(root)
        return
    root.removeHandler(early)
    for handler in [h for h in root.handlers if getattr(h, "_switchboard", False)]:
        for record in early.records:
            handler.handle(record)
    early.records.clear()


def start_logging(level: str) -> EarlyLog:
    """Warnings on stderr at once; everything at ``level`` kept for the log file, which opens later."""
    root = logging.getLogger()
    root.setLevel(getattr(logging, level))
    early = EarlyLog()
    root.addHandler(early)
    add_console(root)
    return early


def add_console(root: logging.Logger) -> None:
    console = logging.StreamHandler()
    console.setLevel(logging.WARNING)
    console.setFormatter(logging.Formatter("%(levelname)s %(name)s: %(message)s"))
    root.addHandler(console)


__all__ = ["EarlyLog", "add_console", "open_log_file", "start_logging"]
