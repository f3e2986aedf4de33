"""Run as a script: list every widget while Python's cyclic collector is about to delete widgets it holds.

``python -m tests.support.garbage_widgets HOW`` makes widgets that have no Python wrapper yet (a scroll area's
inner widgets), then parent-less widgets kept only by garbage cycles, sets the collector to run on the next
allocation, and lists the widgets ``HOW``: ``qt`` (``QApplication.allWidgets()``), ``all`` or ``top``
(``ui/widget_lists``), or ``theme`` (a switch from the light theme to the dark one, which lists them to
retint). It prints how many it listed and exits 0, or the process crashes (``tests/unit/ui/test_widget_lists``).
"""

from __future__ import annotations

import gc
import sys

from PySide6.QtWidgets import QApplication, QLabel, QScrollArea, QWidget


class Holder:
    """Half of a garbage cycle with a widget."""

    widget: QWidget | None = None


def make_garbage(count: int, after: int) -> None:
    """``count`` parent-less widgets (Python owns them) kept only by garbage cycles that the collector frees
    about ``after`` allocations from now: the cycles are moved to its second generation, which it collects
    once it has collected the first ``after`` times, and it collects the first at every allocation."""
    held = []
    for _ in range(count):
        widget = QWidget()
        holder = Holder()
        holder.widget = widget
        widget.holder = holder  # type: ignore[attr-defined]
        held.append(holder)
    gc.collect(0)  # still held: the cycles move to the second generation
    held.clear()
    gc.set_threshold(1, after, 1_000_000)


def main(how: str) -> int:
    app = QApplication.instance() or QApplication([sys.argv[0]])
    from desktop_app.ui.theme import themes
    from desktop_app.ui.widget_lists import all_widgets, top_level_widgets

    if how == "theme":
        themes.apply_theme("light", app)  # type: ignore[arg-type]
    kept = [QScrollArea() for _ in range(100)]  # their viewports and scroll bars have no wrapper yet
    tinted = QLabel("failed")
    tinted.setStyleSheet(f"color: {themes.tokens('light').danger};")
    gc.disable()
    make_garbage(300, int(sys.argv[2]) if len(sys.argv) > 2 else 300)
    gc.enable()
    if how == "qt":
        listed = len(QApplication.allWidgets())
    elif how == "all":
        listed = len(all_widgets())
    elif how == "top":
        listed = len(top_level_widgets())
    else:
        themes.apply_theme("dark", app)  # type: ignore[arg-type]
        listed = int(themes.tokens("dark").danger in tinted.styleSheet())
    print(listed, len(kept))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1]))
