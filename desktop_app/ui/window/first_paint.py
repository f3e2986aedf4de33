"""Waiting for a window's first paint without an asyncio loop: the start-up shows the window before asyncio,
qasync and the rest of the app are imported, so it waits on a plain ``QEventLoop``.

``desktop_app.ui.asyncqt.first_paint`` is the same wait as a future, for code already on the qasync loop.
"""

from __future__ import annotations

import time

from PySide6.QtCore import QEvent, QEventLoop, QObject, QTimer
from PySide6.QtWidgets import QApplication, QWidget


class _PaintWatch(QObject):
    """The window's event filter: notes the time of its first paint (Qt paints a window before its children).

    Not an application-wide filter: that one is called for every event of every object, and for objects of a
    class PySide does not know (Qt's animation timer, when the working indicator starts) shiboken makes the
    Python types it might be, QStyle with its ~300 enums among them (~4 ms before the first paint, issue 27)."""

    def __init__(self, window: QWidget, loop: QEventLoop) -> None:
        super().__init__(window)
        self.window = window
        self.loop = loop
        self.painted_at: float | None = None

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if (
            self.painted_at is None
            and event.type() == QEvent.Type.Paint
            and isinstance(watched, QWidget)
            and watched.window() is self.window
        ):
            self.painted_at = time.perf_counter()
            self.loop.quit()
        return False


def show_and_wait_for_paint(window: QWidget, timeout_s: float) -> float | None:
    """Show ``window`` and run Qt's event loop until it is first painted; the ``time.perf_counter()`` of that
    paint, or None when ``timeout_s`` passed first."""
    app = QApplication.instance()
    if app is None:
        raise RuntimeError("show_and_wait_for_paint() needs a QApplication")
    loop = QEventLoop()
    watch = _PaintWatch(window, loop)
    window.installEventFilter(watch)
    timer = QTimer()
    timer.setSingleShot(True)
    timer.timeout.connect(loop.quit)
    timer.start(int(timeout_s * 1000))
    try:
        window.show()
        if watch.painted_at is None:
            loop.exec()
    finally:
        timer.stop()
        window.removeEventFilter(watch)
        watch.deleteLater()
    return watch.painted_at


__all__ = ["show_and_wait_for_paint"]
