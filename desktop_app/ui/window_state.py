"""The main window's place and shape across restarts: geometry (with the maximised state), dock layout and
splitter sizes, in one INI file next to the settings (``window.ini``; Qt's ``QSettings`` format).

``restore`` puts the geometry back before the window is first shown, and the dock layout and splitters once
the docks exist (the main window builds its hidden docks after the first paint); ``save`` runs when it
closes. A missing or unreadable file restores nothing (the defaults stay); splitters are keyed by their
``objectName``.
"""

from __future__ import annotations

import logging
from pathlib import Path

from PySide6.QtCore import QByteArray, QSettings
from PySide6.QtWidgets import QMainWindow, QSplitter

log = logging.getLogger(__name__)
VERSION = 1  # bump when the dock set changes incompatibly (restoreState refuses a foreign version anyway)


def _settings(path: Path) -> QSettings:
    return QSettings(str(path), QSettings.Format.IniFormat)


def _splitters(window: QMainWindow) -> list[QSplitter]:
    return [s for s in window.findChildren(QSplitter) if s.objectName()]


def save(window: QMainWindow, path: Path) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        store = _settings(path)
        store.setValue("geometry", window.saveGeometry())
        store.setValue("state", window.saveState(VERSION))
        for splitter in _splitters(window):
            store.setValue(f"splitters/{splitter.objectName()}", splitter.saveState())
        store.sync()
    except OSError as exc:  # a read-only config folder must not stop the app from closing
        log.warning("could not save the window's layout to %s: %s", path, exc)


def restore(window: QMainWindow, path: Path, *, geometry: bool = True, layout: bool = True) -> bool:
    """Put the window back as it was (its ``geometry``, its docks and splitters: ``layout``); False when
    nothing was stored."""
    if not path.is_file():
        return False
    store = _settings(path)
    stored = store.value("geometry")
    if geometry and isinstance(stored, QByteArray | bytes) and stored:
        window.restoreGeometry(QByteArray(stored))
    if not layout:
        return True
    state = store.value("state")
    if isinstance(state, QByteArray | bytes) and state:
        window.restoreState(QByteArray(state), VERSION)
    for splitter in _splitters(window):
        sizes = store.value(f"splitters/{splitter.objectName()}")
        if isinstance(sizes, QByteArray | bytes) and sizes:
            splitter.restoreState(QByteArray(sizes))
    return True


__all__ = ["restore", "save"]
