"""The in-chat working indicator: "● ● ●  Working… 6 s" from send until the model's first output.

Without it a slow first token (or a stall being waited out) leaves the chat blank; only the status bar says
"Thinking…". The view shows one ``WorkingLine`` while a run waits for the model and removes it when output
arrives (reasoning, answer, a tool call) or the run ends, fails or is stopped. The dots step and the elapsed
seconds are computed from a start time on an injectable monotonic clock, refreshed by a ``QTimer``; tests
drive it by emitting ``timer.timeout`` with a fake clock, never by waiting.

Its look follows the design tokens: the dots are painted (``WorkingDots``: one fixed-size widget, the lit dot
in ``accent``, the others in ``text_muted``; nothing is re-styled per step), the words are muted text with
tabular figures, so the counting seconds never shift the line. Under reduced motion (``theme.motion``) the
dots stand still, all lit alike; the seconds still count.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable

from PySide6.QtCore import QPointF, QSize, Qt, QTimer
from PySide6.QtGui import QPainter, QPaintEvent
from PySide6.QtWidgets import QHBoxLayout, QLabel, QWidget

from desktop_app.ui.theme import motion
from desktop_app.ui.theme.tokens import SPACE, tabular, tokens

Clock = Callable[[], float]
TICK_MS = 400
DOTS = 3
SHOW_SECONDS_AFTER = 2.0
"""The elapsed time is shown once the wait is longer than this (a fast model never shows a count)."""
DOT_PX = 6
"""A dot's diameter; the dots are ``SPACE.xs`` apart."""


class WorkingDots(QWidget):
    """Three painted dots, one lit (``step``); all alike when ``still`` (reduced motion)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("workingDots")
        self.step = 0
        self.still = motion.reduced_motion()
        self.setFixedSize(self.sizeHint())

    def sizeHint(self) -> QSize:
        return QSize(DOTS * DOT_PX + (DOTS - 1) * SPACE.xs, DOT_PX + 2 * SPACE.xxs)

    def colour_of(self, index: int) -> str:
        """The role a dot is painted in: the lit one ``accent``, the rest ``text_muted`` (still: all muted)."""
        return "accent" if index == self.step and not self.still else "text_muted"

    def paintEvent(self, _event: QPaintEvent) -> None:
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setPen(Qt.PenStyle.NoPen)
        t = tokens()
        radius = DOT_PX / 2
        for index in range(DOTS):
            painter.setBrush(t.qcolor(self.colour_of(index)))
            centre = QPointF(radius + index * (DOT_PX + SPACE.xs), self.height() / 2)
            painter.drawEllipse(centre, radius, radius)
        painter.end()


class WorkingLine(QWidget):
    """Three stepping dots and "Working…" (with the seconds waited, after a moment), under the last block."""

    def __init__(self, *, clock: Clock = time.monotonic, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("workingLine")
        self.setAccessibleName("The model is working")
        self._clock = clock
        self._started = clock()
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, SPACE.xxs, 0, SPACE.xxs)
        layout.setSpacing(SPACE.sm)
        self.dots = WorkingDots()
        layout.addWidget(self.dots, 0, Qt.AlignmentFlag.AlignVCenter)
        self.label = QLabel("")
        self.label.setObjectName("workingText")
        self.label.setProperty("role", "muted")  # the application stylesheet's secondary text
        self.label.setTextFormat(Qt.TextFormat.PlainText)
        self.label.setFont(tabular(self.label.font()))  # the counting seconds keep their width
        layout.addWidget(self.label)
        layout.addStretch(1)
        self.timer = QTimer(self)
        self.timer.setInterval(TICK_MS)
        self.timer.timeout.connect(self.tick)
        self.timer.start()
        self._render()

    @property
    def text(self) -> str:
        return self.label.text()

    @property
    def elapsed(self) -> int:
        """Whole seconds since the wait began."""
        return max(0, math.floor(self._clock() - self._started + 1e-6))

    def tick(self) -> None:
        """Step the dots and refresh the seconds (the timer calls this)."""
        self.dots.step = (self.dots.step + 1) % DOTS
        self.dots.update()
        self._render()

    def stop(self) -> None:
        self.timer.stop()

    def _render(self) -> None:
        waited = self._clock() - self._started
        text = f"Working… {self.elapsed} s" if waited >= SHOW_SECONDS_AFTER else "Working…"
        if text != self.label.text():
            self.label.setText(text)


__all__ = ["WorkingDots", "WorkingLine"]
