"""Waiting for Qt's layout after a resize in UI tests, without sleeping."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QEvent
from PySide6.QtWidgets import QApplication, QWidget


def settle_size(qtbot: Any, window: QWidget, width: int, height: int) -> None:
    """Resize ``window`` and run the layout passes that follow (posted layout requests, then the zero-time
    timers the docks fit themselves on), as happens before the next paint."""
    window.resize(width, height)
    qtbot.waitUntil(lambda: window.width() == width)
    for _ in range(3):
        QApplication.sendPostedEvents(None, QEvent.Type.LayoutRequest.value)
        QApplication.processEvents()
