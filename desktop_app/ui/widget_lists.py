"""Qt's lists of every widget (``QApplication.allWidgets()``, ``topLevelWidgets()``), taken safely.

PySide builds those Python lists from a C++ copy of Qt's list, making a Python wrapper for each widget that
has none yet. Making a wrapper allocates, an allocation may start Python's cyclic garbage collector, and a
collection may delete a widget that only a garbage cycle kept (a closed window without a parent, say): the
copy still holds its address, and wrapping it next reads freed memory. The process crashes (seen as a
segmentation fault in a theme switch, ``themes.retint``, after closed windows were left to the collector).
These functions take the lists with the collector paused; once in the Python list, every widget is
referenced and stays alive while the caller uses it. Use them instead of calling Qt's directly (a test
looks for direct calls in the package).
"""

from __future__ import annotations

import gc
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from PySide6.QtWidgets import QApplication, QWidget


@contextmanager
def collector_paused() -> Iterator[None]:
    """Python's cyclic garbage collector off inside the block (as it was, after it)."""
    was_on = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_on:
            gc.enable()


def _taken(take: Callable[[], list[QWidget]]) -> list[QWidget]:
    with collector_paused():
        return list(take())


def all_widgets() -> list[QWidget]:
    """Every widget of the application, ``QApplication.allWidgets()`` without the crash above."""
    return _taken(QApplication.allWidgets)


def top_level_widgets() -> list[QWidget]:
    """The application's top-level widgets, ``QApplication.topLevelWidgets()`` without the crash above."""
    return _taken(QApplication.topLevelWidgets)


__all__ = ["all_widgets", "collector_paused", "top_level_widgets"]
