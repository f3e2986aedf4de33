"""One owner for a window's non-modal dialog of a kind: it creates, shows and forgets the dialog.

A dialog held in a plain attribute outlives its C++ object: with ``WA_DeleteOnClose`` Qt deletes it after it
closes, and the next ``isVisible()`` on the stale wrapper raises ``RuntimeError: Internal C++ object already
deleted`` (the provider dialog then opened only once per session). A :class:`DialogSlot` is the only holder:
it marks the dialog delete-on-close and forgets it when Qt emits ``destroyed``, so what it hands out is
always a live dialog or ``None``. A dialog that is closed but not yet deleted (the deferred delete has not
run) is not reused: the next request builds a fresh one from the state in force now.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Generic, TypeVar

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDialog

D = TypeVar("D", bound=QDialog)


class DialogSlot(Generic[D]):
    """At most one open dialog of a kind; ``None`` once Qt has deleted it."""

    def __init__(self) -> None:
        self._dialog: D | None = None
        self._token: object | None = None

    @property
    def dialog(self) -> D | None:
        """The dialog this slot holds (open, or closed and not yet deleted), else ``None``."""
        return self._dialog

    def shown(self) -> D | None:
        """The held dialog if it is on screen."""
        dialog = self._dialog
        return dialog if dialog is not None and dialog.isVisible() else None

    def open(
        self,
        build: Callable[[], D],
        *,
        modal: bool = False,
        on_raise: Callable[[D], None] | None = None,
    ) -> D:
        """Raise the dialog on screen (after ``on_raise``), else build, hold and show a new one.

        ``modal``: window-modal through ``open()`` (never ``exec()`` on the qasync loop); else ``show()``.
        """
        dialog = self.shown()
        if dialog is None:
            dialog = self.hold(build())
            if modal:
                dialog.open()
            else:
                dialog.show()
        elif on_raise is not None:
            on_raise(dialog)
        dialog.raise_()
        dialog.activateWindow()
        return dialog

    def hold(self, dialog: D) -> D:
        """Own ``dialog``: Qt deletes it when it closes, and this slot forgets it then."""
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        token = object()
        self._dialog, self._token = dialog, token
        dialog.destroyed.connect(lambda _obj=None, token=token: self._forget(token))
        return dialog

    def _forget(self, token: object) -> None:
        if token is self._token:  # an older dialog's late deletion must not drop the current one
            self._dialog, self._token = None, None


__all__ = ["DialogSlot"]
