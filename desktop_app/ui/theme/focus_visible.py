"""A focus ring for keyboard focus only (CSS's ``:focus-visible``), for a widget as large as the transcript.

A click in the transcript gives the ``ChatView`` focus (so its arrow keys scroll), and a ring drawn on
``:focus`` then framed the whole conversation like a selection. :class:`FocusVisible` sets the widget's
``focusVisible`` property while it has focus that came from the keyboard (Tab, Shift+Tab, a shortcut, or a
programmatic move while no mouse button is down; a click on it ends that), and the stylesheet draws the ring on
``[focusVisible="true"]`` instead of ``:focus``. Focus coming back to the window or from a closed popup keeps
the look it had; a mouse click shows none.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtGui import QFocusEvent, QGuiApplication
from PySide6.QtWidgets import QWidget

PROPERTY = "focusVisible"
KEYBOARD = (Qt.FocusReason.TabFocusReason, Qt.FocusReason.BacktabFocusReason, Qt.FocusReason.ShortcutFocusReason)
KEEP = (Qt.FocusReason.ActiveWindowFocusReason, Qt.FocusReason.PopupFocusReason)
"""Focus that comes back (the window activated again, a menu closed): the ring stays as it was."""


def _from_keyboard(event: QFocusEvent, was: bool) -> bool:
    reason = event.reason()
    if reason in KEYBOARD:
        return True
    if reason in KEEP:
        return was
    if reason == Qt.FocusReason.OtherFocusReason:  # moved by the app: a key's doing unless a button is down
        return QGuiApplication.mouseButtons() == Qt.MouseButton.NoButton
    return False  # the mouse (a click, the wheel), the menu bar


class FocusVisible(QObject):
    """Keeps ``widget``'s ``focusVisible`` property true while it has keyboard focus (see the module)."""

    def __init__(self, widget: QWidget) -> None:
        super().__init__(widget)
        self.widget = widget
        self._visible = False
        widget.setProperty(PROPERTY, False)
        widget.installEventFilter(self)
        viewport = getattr(widget, "viewport", None)  # a scroll area: a click on its page ends the keyboard look
        if callable(viewport):
            viewport().installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        kind = event.type()
        if kind == QEvent.Type.FocusIn and isinstance(event, QFocusEvent):
            self._show(_from_keyboard(event, self._visible))
        elif kind == QEvent.Type.FocusOut and isinstance(event, QFocusEvent) and event.reason() not in KEEP:
            self._show(False)
        elif kind == QEvent.Type.MouseButtonPress and self.widget.hasFocus():
            self._show(False)  # clicked while focused from the keyboard: the mouse is in use now
        return False

    def _show(self, visible: bool) -> None:
        self._visible = visible
        if bool(self.widget.property(PROPERTY)) == visible:
            return
        self.widget.setProperty(PROPERTY, visible)
        style = self.widget.style()
        style.unpolish(self.widget)
        style.polish(self.widget)
        self.widget.update()


def install_focus_visible(widget: QWidget) -> FocusVisible:
    return FocusVisible(widget)


__all__ = ["PROPERTY", "FocusVisible", "install_focus_visible"]
