"""The reading column's measure: how wide a line of answer prose may grow, in pixels of the reading font.

The chat view caps its column at it, the composer its field and the quick prompt its page, so the three line up.
"""

from __future__ import annotations

import math

from PySide6.QtGui import QFont, QFontMetricsF
from PySide6.QtWidgets import QApplication

MEASURE_CHARS = 80  # the reading column's widest, in characters of prose (a 70–80 character line)
_SAMPLE = "The failure is a torn write: the file is truncated first and filled later, so a crash leaves it empty."


def reading_width(font: QFont | None = None) -> int:
    """The reading column's widest, in pixels: ``MEASURE_CHARS`` characters of ordinary prose in ``font`` (the
    answers' reading font, ``tokens.reading_font``), so it follows the font size; a narrower window narrows the
    column with it (down to the view's width minus its margins)."""
    from desktop_app.ui.theme.tokens import reading_font

    metrics = QFontMetricsF(font or reading_font(QApplication.font()))
    per_char = metrics.horizontalAdvance(_SAMPLE) / len(_SAMPLE)
    return math.ceil(MEASURE_CHARS * per_char) + 8  # the text's own margins
