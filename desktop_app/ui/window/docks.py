"""Room for the right-hand docks (Servers, Tools) inside the main window's own width.

Opening a dock never grows the window and never squeezes the conversation list below
``CONVERSATIONS_MIN``: the dock gets its last width (``PREFERRED_WIDTH`` at first) where the window has
room for it, else what is left once the list and the chat column have their minimums. A dock narrower than
its content scrolls (its content sits in a scroll area), so the content's own minimum cannot push the window
wider. Closing the dock gives the conversation list back the width it had before, and the window its size if
it changed meanwhile. Restoring a saved layout (``quiet``) is left as stored.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager

from PySide6.QtCore import QEvent, QObject, QSize, Qt, QTimer
from PySide6.QtGui import QGuiApplication, QResizeEvent
from PySide6.QtWidgets import QDockWidget, QFrame, QMainWindow, QScrollArea, QStyle

CONVERSATIONS_MIN = 200
"""The conversation list's narrowest: titles stay readable."""
DOCK_MIN = 160
"""A right dock's narrowest; below its content's minimum the content scrolls sideways."""
MIN_SCROLL = 60
"""Narrower than this a dock would show nothing but its scroll bars: a window that narrow grows."""
PREFERRED_WIDTH = 360
"""A right dock's width the first time it opens (later: the width it had when it was closed)."""


def _scrolling(dock: QDockWidget) -> None:
    """Put the dock's content in a frameless scroll area, so the dock may be narrower than its content."""
    content = dock.widget()
    if content is None or isinstance(content, QScrollArea):
        return
    area = QScrollArea(dock)
    area.setObjectName(f"{dock.objectName()}Scroll")
    area.setFrameShape(QFrame.Shape.NoFrame)
    area.setWidgetResizable(True)
    area.setWidget(content)
    dock.setWidget(area)


class DockRoom(QObject):
    """Fits the right docks into ``window`` when they open, and gives the room back when they close."""

    def __init__(self, window: QMainWindow, conversations: QDockWidget, docks: Sequence[QDockWidget]) -> None:
        super().__init__(window)
        self.setObjectName("dockRoom")
        self.window = window
        self.conversations = conversations
        self.docks = list(docks)
        self._quiet = False
        self._widths: dict[QDockWidget, int] = {}
        self._given: dict[QDockWidget, int] = {}
        self._last: tuple[QSize, int | None] = (
            window.size(),
            None if conversations.isHidden() else conversations.width(),
        )
        """The window's size and the list's width while no right dock was open (kept as they change: the
        main window's layout squeezes the list as soon as a dock shows, before the dock hears of it). Taken
        now too: the app makes the room after ``runtime: ready``, the window shown and sized, and with no
        event since the first dock squeezed the list to ``CONVERSATIONS_MIN`` in a 1920 px window."""
        self._before: tuple[QSize, int | None] | None = None  # ``_last`` when the first right dock opened
        self._fitted: QSize | None = None  # the window's size once a dock was fitted (a later change: the user's)
        conversations.setMinimumWidth(CONVERSATIONS_MIN)
        conversations.installEventFilter(self)
        window.installEventFilter(self)
        for dock in self.docks:
            _scrolling(dock)
            dock.setMinimumWidth(DOCK_MIN)
            dock.installEventFilter(self)

    @contextmanager
    def quiet(self) -> Iterator[None]:
        """Docks shown inside this block (a restored layout) keep the sizes they come with."""
        self._quiet = True
        try:
            yield
        finally:
            self._quiet = False

    def _room(self) -> int:
        """The width left for the right docks once the chat column has its minimum."""
        window = self.window
        separator = window.style().pixelMetric(QStyle.PixelMetric.PM_DockWidgetSeparatorExtent, None, window)
        central = window.centralWidget()
        central_min = central.minimumSizeHint().width() if central is not None else 0
        return window.width() - central_min - 2 * separator

    def _set_dock_minimum(self) -> None:
        """In a narrow window a right dock may be narrower than ``DOCK_MIN`` rather than widen the window."""
        room = self._room() - (0 if self.conversations.isHidden() else CONVERSATIONS_MIN)
        for dock in self.docks:
            dock.setMinimumWidth(max(MIN_SCROLL, min(DOCK_MIN, room)))

    def _keep_width(self, old: QSize) -> None:
        """The chat column's minimum grew while a right dock was open (the runtime's composer buttons came
        in after a restored layout): the dock gives way, down to ``MIN_SCROLL``, so that the window keeps the
        width it had instead of growing past it (and past the screen)."""
        window = self.window
        separator = window.style().pixelMetric(QStyle.PixelMetric.PM_DockWidgetSeparatorExtent, None, window)
        central = window.centralWidget()
        central_min = central.minimumSizeHint().width() if central is not None else 0
        room = old.width() - central_min - 2 * separator
        room -= 0 if self.conversations.isHidden() else CONVERSATIONS_MIN
        if room < MIN_SCROLL:
            return  # too narrow for a dock at all: the window grows (the MIN_SCROLL rule)
        for dock in self.docks:
            dock.setMinimumWidth(min(DOCK_MIN, room))
        QTimer.singleShot(0, lambda: window.resize(old.width(), window.height()))  # once the minimum is new

    def _right_open(self) -> bool:
        """A right dock is open or opening (``isHidden`` turns false before the layout makes room for it)."""
        return any(not d.isHidden() and not d.isFloating() for d in self.docks)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() in (QEvent.Type.Resize, QEvent.Type.Show) and watched in (self.window, self.conversations):
            if watched is self.window:
                self._set_dock_minimum()
            if not self._right_open():
                self._last = (self.window.size(), self._list_width())
            elif watched is self.window and self.window.width() == self.window.minimumWidth():
                self._fitted = self.window.size()  # pushed wider by the dock's minimum: not the user's size
                if isinstance(event, QResizeEvent) and event.oldSize().width() < self.window.width():
                    self._keep_width(event.oldSize())
            elif (
                watched is self.window
                and not self._quiet
                and isinstance(event, QResizeEvent)
                and event.oldSize().width() < self.window.width()
            ):
                QTimer.singleShot(0, self._regrow)
        elif isinstance(watched, QDockWidget) and watched in self.docks and not self._quiet:
            if event.type() == QEvent.Type.ShowToParent and self.window.isVisible():
                self._opening(watched)
            elif event.type() == QEvent.Type.HideToParent:
                self._closing(watched)
            elif event.type() == QEvent.Type.Resize:
                self._squeezed(watched)
        return False

    def _list_width(self) -> int | None:
        return None if self.conversations.isHidden() else self.conversations.width()

    def _opening(self, dock: QDockWidget) -> None:
        if dock.isFloating() or self.window.dockWidgetArea(dock) != Qt.DockWidgetArea.RightDockWidgetArea:
            return
        if self._before is None:  # the first right dock to open: the layout to give back when the last closes
            self._before = self._last
        QTimer.singleShot(0, lambda: self.fit(dock))

    def _squeezed(self, dock: QDockWidget) -> None:
        """A right dock resized: by the user's hand while a mouse button is down (dragging the separator: that
        width is the one it reopens and regrows to), else by the window (narrowed, or the dock's minimum
        changed), and then the width it was given follows it, so ``_regrow`` gives the dock its width back when
        the window grows again (it kept the ~160 px it had at 800 px after the window was widened to 1400 and
        1920: the design screenshots' Tools panel)."""
        if dock not in self._given or not dock.isVisible() or dock.isFloating():
            return
        if QGuiApplication.mouseButtons() != Qt.MouseButton.NoButton:
            self._widths[dock] = dock.width()
        else:
            self._given[dock] = dock.width()

    def _regrow(self) -> None:
        """The user made the window wider: a right dock that had to open narrower than its width (the window
        had no room then) takes it now, instead of staying squeezed beside a wide chat column. A dock the user
        narrowed by hand keeps that width; the window's size to give back on closing is left as it was."""
        for dock in self.docks:
            given = self._given.get(dock)
            if given is None or not dock.isVisible() or dock.isFloating() or abs(dock.width() - given) > 2:
                continue
            if (
                dock.width() < self._widths.get(dock, PREFERRED_WIDTH)
                and self._room() > dock.width() + CONVERSATIONS_MIN
            ):
                self.fit(dock, user_size=False)

    def fit(self, dock: QDockWidget, user_size: bool = True) -> None:
        """Give ``dock`` its width within the window's, the list at least ``CONVERSATIONS_MIN`` (``user_size``
        false: the window's size is the user's own, not one to give back when the dock closes)."""
        if not dock.isVisible() or dock.isFloating():
            return
        window = self.window
        free = self._room()
        wanted = self._widths.get(dock, PREFERRED_WIDTH)
        _size, list_width = self._before or self._last
        if self.conversations.isVisible() and not self.conversations.isFloating():
            dock_width = max(dock.minimumWidth(), min(wanted, free - CONVERSATIONS_MIN))
            list_width = max(CONVERSATIONS_MIN, min(list_width or CONVERSATIONS_MIN, free - dock_width))
            window.resizeDocks([self.conversations, dock], [list_width, dock_width], Qt.Orientation.Horizontal)
        else:
            dock_width = max(dock.minimumWidth(), min(wanted, free))
            window.resizeDocks([dock], [dock_width], Qt.Orientation.Horizontal)
        self._given[dock] = dock_width
        if user_size:
            self._fitted = window.size()

    def _closing(self, dock: QDockWidget) -> None:
        if dock.isFloating():
            return
        if abs(dock.width() - self._given.get(dock, dock.width())) > 2:
            self._widths[dock] = dock.width()  # the user's own width: the next opening starts from it
        if self._before is None or self._right_open():
            return  # another right dock still holds the room
        (size, list_width), self._before = self._before, None
        grown = self.window.size() == self._fitted and self.window.size() != size
        QTimer.singleShot(0, lambda: self._give_back(size if grown else None, list_width))

    def _give_back(self, size: QSize | None, list_width: int | None) -> None:
        """The layout before the first right dock opened (once the closed dock has left the layout)."""
        window = self.window
        if self._right_open():
            return
        if size is not None and not window.isMaximized() and not window.isFullScreen():
            window.resize(size)  # grown for the dock, and not resized by the user since
        if list_width is not None and not self.conversations.isHidden():
            window.resizeDocks([self.conversations], [list_width], Qt.Orientation.Horizontal)


__all__ = ["CONVERSATIONS_MIN", "DOCK_MIN", "PREFERRED_WIDTH", "DockRoom"]
