"""The in-chat working indicator: "● ● ●  Working… 6 s" from send until the model's first output.

Without it a slow first token (or a stall being waited out) leaves the chat blank; only the status bar says
"Thinking…". The view shows one ``WorkingLine`` while a run waits for the model and removes it when output
arrives (reasoning, answer, a tool call) or the run ends, fails or is stopped. The dots step and the elapsed
seconds are computed from a start time on an injectable monotonic clock, refreshed by a ``QTimer``; tests
drive it by emitting ``timer.timeout`` with a fake clock, never by waiting.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable

from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QHBoxLayout, QLabel, QWidget

Clock = Callable[[], float]
TICK_MS = 400
DOTS = 3
SHOW_SECONDS_AFTER = 2.0
"""The elapsed time is shown once the wait is longer than this (a fast model never shows a count)."""


class WorkingLine(QWidget):
    """Three stepping dots and "Working…" (with the seconds waited, after a moment), under the last block."""

    def __init__(self, *, clock: Clock = time.monotonic, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("workingLine")
        self.setAccessibleName("The model is working")
        self._clock = clock
        self._started = clock()
        self._step = 0
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 2, 0, 2)
        layout.setSpacing(4)
        self.dots: list[QLabel] = []
        for _ in range(DOTS):
            dot = QLabel("●")
            dot.setObjectName("workingDot")
            self.dots.append(dot)
            layout.addWidget(dot)
        self.label = QLabel("")
        self.label.setObjectName("workingText")
        self.label.setTextFormat(Qt.TextFormat.PlainText)
        self.label.setStyleSheet("QLabel { color: palette(placeholder-text); }")
        layout.addSpacing(6)
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
        self._step = (self._step + 1) % DOTS
        self._render()

    def stop(self) -> None:
        self.timer.stop()

    def _render(self) -> None:
        waited = self._clock() - self._started
        self.label.setText(f"Working… {self.elapsed} s" if waited >= SHOW_SECONDS_AFTER else "Working…")
        for index, dot in enumerate(self.dots):
            strong = index == self._step
            dot.setStyleSheet(f"QLabel {{ color: palette({'highlight' if strong else 'mid'}); }}")


__all__ = ["WorkingLine"]
