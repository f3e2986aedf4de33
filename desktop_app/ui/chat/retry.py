"""The inline retry line: why the model call is retried, a live countdown, and "Retry now" / "Stop".

One ``RetryLine`` stands for the retries of one model call: a further ``RetryScheduled`` updates it. When
the answer (or the end of the run) arrives, ``settle`` turns it into a quiet one-line note. The countdown
is computed from a deadline on an injectable monotonic clock and refreshed by a one-second ``QTimer``, so
tests drive it by emitting ``timer.timeout`` with a fake clock, never by waiting.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QFontDatabase
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton, QToolButton, QVBoxLayout, QWidget

if TYPE_CHECKING:
    from desktop_app.runtime.events import RetryInfo

Clock = Callable[[], float]
TICK_MS = 1000


def retry_headline(info: RetryInfo) -> str:
    """'DeepSeek rate limit', 'DeepSeek is temporarily unavailable (HTTP 503)', 'DeepSeek stream
    disconnected' when the provider is known; else 'Rate limited (HTTP 429)', 'Stream disconnected', …"""
    if info.provider:
        return f"{info.provider} {_provider_cause(info)}"
    if info.status_code == 429:
        return "Rate limited (HTTP 429)"
    reason = info.reason.strip().removeprefix("API ").strip() or "Request failed"
    reason = reason[:1].upper() + reason[1:]
    if info.status_code is not None and f"HTTP {info.status_code}" not in reason:
        reason += f" (HTTP {info.status_code})"
    return reason


def _provider_cause(info: RetryInfo) -> str:
    status = info.status_code
    if status == 429:
        return "rate limit"
    if status is not None and 500 <= status < 600:
        return f"is temporarily unavailable (HTTP {status})"
    if status is not None:
        return f"request failed (HTTP {status})"
    reason = info.reason.strip().removeprefix("API ").strip() or "request failed"
    return reason[:1].lower() + reason[1:]


def retry_sentence(info: RetryInfo, when: str, *, discarded: bool = False) -> str:
    """'DeepSeek rate limit: Too many requests. Retrying in 4 s (2 of 4)': what happened, the provider's
    own words, and what happens next (``when``: 'Retrying in 4 s' or 'Retrying now…'). ``discarded``: the
    failed attempt had shown partial output, which is gone (a stall before any output discards nothing)."""
    text = retry_headline(info)
    if info.message:
        text += f": {info.message.rstrip('. ')}"
    if discarded:
        text += "; the partial output was discarded"
    return f"{text}. {when} ({info.attempt} of {info.max_attempts})"


def retry_cause(info: RetryInfo) -> str:
    """The cause as a noun phrase for the settled note: 'rate limit', 'stream disconnected', …"""
    if info.status_code == 429:
        return "rate limit"
    if info.status_code is not None and 500 <= info.status_code < 600:
        return f"a temporary outage (HTTP {info.status_code})"
    headline = retry_headline(info.model_copy(update={"provider": None}))
    return headline[:1].lower() + headline[1:]


class RetryLine(QFrame):
    """'↻ DeepSeek rate limit: Too many requests. Retrying in 30 s (2 of 4)  [Details] [Retry now] [Stop]'.

    Signals:
        retry_now_clicked(): the user wants the pending retry to happen at once.
        stop_clicked(): the user wants the run stopped.
    """

    retry_now_clicked = Signal()
    stop_clicked = Signal()

    def __init__(
        self,
        info: RetryInfo,
        *,
        clock: Clock = time.monotonic,
        discarded: bool = False,
        parent: QWidget | None = None,
    ) -> None:
        """``discarded``: the failed attempt's partial output was shown and is now gone (see ``schedule``)."""
        super().__init__(parent)
        self.setObjectName("retryLine")
        self.setAccessibleName("Retry notice")
        self.setStyleSheet(
            "QFrame#retryLine { border: 1px solid palette(mid); border-radius: 6px; background: palette(base); }"
            ' QFrame#retryLine[settled="true"] { border: none; background: transparent; }'
        )
        self._clock = clock
        column = QVBoxLayout(self)
        column.setContentsMargins(10, 4, 6, 4)
        column.setSpacing(2)
        layout = QHBoxLayout()
        layout.setContentsMargins(0, 0, 0, 0)
        column.addLayout(layout)
        self.label = QLabel("")
        self.label.setObjectName("retryText")
        self.label.setWordWrap(True)
        self.label.setTextFormat(Qt.TextFormat.PlainText)
        self.label.setStyleSheet("QLabel { color: palette(placeholder-text); }")
        layout.addWidget(self.label, 1)
        self.details_button = QToolButton()
        self.details_button.setObjectName("retryDetailsButton")
        self.details_button.setText("Details")
        self.details_button.setAccessibleName("Show the provider's answer")
        self.details_button.setCheckable(True)
        self.details_button.setAutoRaise(True)
        self.details_button.toggled.connect(self._on_details_toggled)
        self.details_button.hide()
        layout.addWidget(self.details_button)
        self.retry_button = QPushButton("Retry now")
        self.retry_button.setObjectName("retryNowButton")
        self.retry_button.setAccessibleName("Retry now")
        self.retry_button.clicked.connect(self._on_retry_clicked)
        layout.addWidget(self.retry_button)
        self.stop_button = QPushButton("Stop")
        self.stop_button.setObjectName("retryStopButton")
        self.stop_button.setAccessibleName("Stop the run")
        self.stop_button.clicked.connect(self.stop_clicked)
        layout.addWidget(self.stop_button)
        self.details = QLabel("")
        self.details.setObjectName("retryDetails")
        self.details.setAccessibleName("The provider's answer, as it came")
        self.details.setTextFormat(Qt.TextFormat.PlainText)
        self.details.setWordWrap(True)
        self.details.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.details.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.details.hide()
        column.addWidget(self.details)
        self.timer = QTimer(self)
        self.timer.setInterval(TICK_MS)
        self.timer.setTimerType(Qt.TimerType.PreciseTimer)  # a coarse timer could show a second too many
        self.timer.timeout.connect(self.tick)
        self.info = info
        self.retries = 0
        self.discarded = False
        self.discarded_now = False
        self.active = True
        self._deadline = 0.0
        self._retrying = False
        self.schedule(info, discarded=discarded)

    @property
    def text(self) -> str:
        return self.label.text()

    @property
    def remaining(self) -> int:
        """Whole seconds left before the retry (rounded up)."""
        return max(0, math.ceil(self._deadline - self._clock() - 1e-6))

    def schedule(self, info: RetryInfo, *, discarded: bool = False) -> None:
        """Show (another) pending retry and restart the countdown. ``discarded``: this attempt's partial
        output was on screen and is gone, which the line then says (only then)."""
        self.info = info
        self.retries += 1
        self.discarded_now = discarded
        self.discarded = self.discarded or discarded
        self.active = True
        self._retrying = False
        self._deadline = self._clock() + max(0.0, info.delay_s)
        self.retry_button.setEnabled(True)
        self.retry_button.show()
        self.stop_button.show()
        self.setProperty("settled", False)
        self.details.setText(info.details or "")
        self.details_button.setVisible(bool(info.details))
        self.details.setVisible(bool(info.details) and self.details_button.isChecked())
        self._restyle()
        self._render()
        if self.remaining > 0:
            self.timer.start()

    def tick(self) -> None:
        """Refresh the countdown (the timer calls this once a second)."""
        if not self.active:
            self.timer.stop()
            return
        self._render()
        if self.remaining == 0:
            self.timer.stop()

    def mark_retrying(self) -> None:
        """The retry is under way (the user clicked Retry now)."""
        if self.active:
            self._retrying = True
            self.timer.stop()
            self.retry_button.setEnabled(False)
            self._render()

    def settle(self, note: str | None = None) -> None:
        """The retried call is over: stop the countdown and leave a quiet note (or ``note``)."""
        if not self.active:
            return
        self.active = False
        self.timer.stop()
        self.retry_button.hide()
        self.stop_button.hide()
        if note is None:
            note = f"Retried after {retry_cause(self.info)}"
            if self.retries > 1:
                note += f" ({self.retries} retries)"
            if self.discarded:
                note += "; the interrupted partial output was discarded"
        self.label.setText(f"↻ {note}")
        self.setProperty("settled", True)
        self._restyle()

    def drop_details(self) -> None:
        """The run failed with the same answer in its error: the error's Details shows it, not this note."""
        self.details_button.setChecked(False)
        self.details_button.hide()
        self.details.hide()

    def _on_details_toggled(self, shown: bool) -> None:
        self.details.setVisible(shown and bool(self.details.text()))
        self.details_button.setText("Hide details" if shown else "Details")

    def _on_retry_clicked(self) -> None:
        self.mark_retrying()
        self.retry_now_clicked.emit()

    def _render(self) -> None:
        left = self.remaining
        when = "Retrying now…" if self._retrying or left == 0 else f"Retrying in {left} s"
        self.label.setText(f"↻ {retry_sentence(self.info, when, discarded=self.discarded_now)}")

    def _restyle(self) -> None:
        self.style().unpolish(self)
        self.style().polish(self)


__all__ = ["RetryLine", "retry_cause", "retry_headline", "retry_sentence"]
