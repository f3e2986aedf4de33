"""The main window's place and shape across restarts: geometry (with the maximised state), dock layout and
splitter sizes, in one INI file next to the settings (``window.ini``; Qt's ``QSettings`` format).

``restore`` puts the geometry back before the window is first shown, and the dock layout and splitters once
the docks exist (the app builds the hidden docks after ``runtime: ready``); ``save`` runs when it
closes. A missing or unreadable file restores nothing (the defaults stay); splitters are keyed by the
``objectName`` path down to them.
"""

from __future__ import annotations

import logging
from pathlib import Path

from PySide6.QtCore import QByteArray, QSettings
from PySide6.QtWidgets import QMainWindow, QSplitter, QWidget

log = logging.getLogger(__name__)
VERSION = 1  # bump when the dock set changes incompatibly (restoreState refuses a foreign version anyway)


def _settings(path: Path) -> QSettings:
    return QSettings(str(path), QSettings.Format.IniFormat)


def _splitters(window: QMainWindow) -> dict[str, QSplitter]:
    """The window's named splitters, keyed by the path of named widgets down to them (one splitter class can
    sit in two panels, e.g. the server log in the Servers dock and in the inspector)."""
    found: dict[str, QSplitter] = {}
    for splitter in window.findChildren(QSplitter):
        if not splitter.objectName():
            continue
        names: list[str] = []
        widget: QWidget | None = splitter
        while widget is not None and widget is not window:
            if widget.objectName():
                names.append(widget.objectName())
            widget = widget.parentWidget()
        found.setdefault("/".join(reversed(names)), splitter)
    return found


def save(window: QMainWindow, path: Path) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        store = _settings(path)
        store.setValue("geometry", window.saveGeometry())
        store.setValue("state", window.saveState(VERSION))
        for key, splitter in _splitters(window).items():
            store.setValue(f"splitters/{key}", splitter.saveState())
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
    for key, splitter in _splitters(window).items():
        sizes = store.value(f"splitters/{key}")
        if isinstance(sizes, QByteArray | bytes) and sizes:
            splitter.restoreState(QByteArray(sizes))
    return True


__all__ = ["restore", "save"]
