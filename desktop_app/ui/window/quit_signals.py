"""SIGINT, SIGTERM and SIGHUP quit the app with its ordered shutdown (runs stopped and stored as stopped, MCP
servers closed), instead of killing it on the spot and leaving stdio servers running under PID 1.

Qt owns the loop, so a Python signal handler alone would only run at the next Python callback. The C-level
handler writes to a socket (``signal.set_wakeup_fd``) that a ``QSocketNotifier`` watches, so the quit
starts at once. On Windows (no SIGTERM/SIGHUP, no wakeup socket for Qt) only Ctrl+C is handled, by polling.
"""

from __future__ import annotations

import signal
import socket
import sys
from collections.abc import Callable

from PySide6.QtCore import QObject, QSocketNotifier, QTimer

QUIT_SIGNALS = tuple(s for s in (signal.SIGINT, getattr(signal, "SIGTERM", None), getattr(signal, "SIGHUP", None)) if s)


class QuitSignals(QObject):
    """Keeps the wakeup socket and its notifier alive; ``close()`` restores the previous handlers."""

    def __init__(self, quit_app: Callable[[], None], parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._quit = quit_app
        self.received: list[int] = []
        self._previous = {s: signal.getsignal(s) for s in QUIT_SIGNALS}
        for signum in QUIT_SIGNALS:
            signal.signal(signum, self._on_signal)
        self._reader: socket.socket | None = None
        self._writer: socket.socket | None = None
        self._old_fd = -1
        if sys.platform == "win32":  # pragma: no cover - let the interpreter run now and then to see Ctrl+C
            self._timer = QTimer(self)
            self._timer.start(250)
            return
        self._reader, self._writer = socket.socketpair()
        self._reader.setblocking(False)
        self._writer.setblocking(False)
        self._old_fd = signal.set_wakeup_fd(self._writer.fileno())
        self._notifier = QSocketNotifier(self._reader.fileno(), QSocketNotifier.Type.Read, self)
        self._notifier.activated.connect(self._drain)

    def _on_signal(self, signum: int, _frame: object) -> None:
        self.received.append(signum)
        self._quit()

    def _drain(self) -> None:
        """The wakeup byte: Python has run (or is about to run) ``_on_signal``; empty the socket."""
        if self._reader is None:
            return
        try:
            while self._reader.recv(64):
                pass
        except BlockingIOError:
            pass

    def close(self) -> None:
        for signum, handler in self._previous.items():
            signal.signal(signum, handler)
        if self._reader is not None and self._writer is not None:
            signal.set_wakeup_fd(self._old_fd)
            self._notifier.setEnabled(False)
            self._reader.close()
            self._writer.close()
            self._reader = self._writer = None


def install_quit_signals(quit_app: Callable[[], None]) -> QuitSignals:
    """Make SIGINT, SIGTERM and SIGHUP call ``quit_app`` (the app's ordered shutdown)."""
    return QuitSignals(quit_app)


__all__ = ["QUIT_SIGNALS", "QuitSignals", "install_quit_signals"]
