"""``Delegated``: a main-window attribute that belongs to one of the window's collaborators.

``MainWindow`` is composed of collaborators (``window.menus``, ``window.turns``…), each owning its state. The
names many callers use on the window itself (``window.open_conversation``, ``window.new_chat_action``,
``window.store``…) stay as thin pass-throughs declared with this descriptor, so each still has exactly one
owner: reading (or setting) ``window.store`` reads (or sets) ``window.conversation_ctl.store``.
"""

from __future__ import annotations

from typing import Any


class Delegated:
    """Reads and writes ``obj.<owner>.<name>`` for ``obj.<attribute>``."""

    def __init__(self, owner: str, name: str | None = None) -> None:
        self.owner = owner
        self.name = name or ""

    def __set_name__(self, cls: type, attribute: str) -> None:
        self.name = self.name or attribute

    def __get__(self, obj: object, objtype: type | None = None) -> Any:
        if obj is None:
            return self
        return getattr(getattr(obj, self.owner), self.name)

    def __set__(self, obj: object, value: Any) -> None:
        setattr(getattr(obj, self.owner), self.name, value)
