"""Files the operating system asks the running app to open (macOS Finder sends a ``QFileOpenEvent`` to the
application instead of passing the path on the command line): a ``.mcpb`` opens the install screen, another
file is attached, through the same path as a file given on the command line
(:meth:`~desktop_app.ui.tray.desktop.DesktopShell.apply_launch`)."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QEvent, QObject
from PySide6.QtGui import QFileOpenEvent


class FileOpenFilter(QObject):
    """An event filter for the ``QApplication``: each ``FileOpen`` event calls ``open_files([path])``."""

    def __init__(self, open_files: Callable[[list[str]], None], parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.open_files = open_files

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.FileOpen and isinstance(event, QFileOpenEvent) and event.file():
            self.open_files([event.file()])
            return True
        return super().eventFilter(watched, event)


__all__ = ["FileOpenFilter"]
