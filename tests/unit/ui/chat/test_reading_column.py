"""The reading column follows the window from 800 to 1920 px: never wider than the measure (~80 characters
of the reading font, ``measure.reading_width``), the view's whole width minus its margins when the window is
narrower than that, and the composer's field in line with it (the real MainWindow)."""

from __future__ import annotations

from PySide6.QtCore import QEvent
from PySide6.QtWidgets import QApplication

from desktop_app.ui.chat.measure import reading_width
from desktop_app.ui.theme.tokens import reading_font

MARGINS = 2 * 16  # the page's left and right margins around the column


def _settle(qtbot, window, width: int) -> None:
    window.resize(width, 900)
    qtbot.waitUntil(lambda: window.width() == width)
    for _ in range(3):  # every pending layout pass, as before a paint
        QApplication.sendPostedEvents(None, QEvent.Type.LayoutRequest.value)


def test_the_column_width_follows_the_window_within_the_measure(qtbot, window):
    """640 to 1920 px: the view's room (a 640 px window has less than the measure), then the measure."""
    view = window.view
    measure = reading_width()
    assert measure == reading_width(reading_font(QApplication.font()))  # measured in the answers' font
    widths = {}
    for width in (640, 800, 1000, 1200, 1400, 1920):
        _settle(qtbot, window, width)
        room = view.viewport().width() - MARGINS
        column = view.column.width()
        widths[width] = column
        assert column == min(measure, room), (width, column, measure, room)
        field = window.composer.field  # the composer's field: as wide as the column and its own padding
        assert field.width() <= min(measure + 24, window.composer.width())
    assert widths[640] < widths[1920] == measure  # narrow: the whole room; wide: the measure
    assert list(widths.values()) == sorted(widths.values())  # grows with the window, never shrinks
