"""The composer's context meter: how full the model's context window is, by part (system, tools, history,
attachments), from the runtime's estimate (``Runtime.context_budget``). Shown once a conversation has run;
hidden for a model whose window is not known (then the tooltip still has the breakdown's total)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QMouseEvent
from PySide6.QtWidgets import QLabel, QWidget

from desktop_app.ui.chat.usage import human_count
from desktop_app.ui.theme.tokens import tabular

if TYPE_CHECKING:
    from desktop_app.runtime.compaction.budget import ContextBudget

WARN_FRACTION = 0.8
"""From this share of the window on, the meter is drawn as a warning (the compaction threshold's default)."""


class ContextMeter(QLabel):
    """``ctx 10 %`` with the tokens and the breakdown in its tooltip; a click asks to compact the conversation.

    Signals:
        clicked(): the user clicked the meter ("Compact now", see ``chat.compaction``).
    """

    clicked = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("contextMeter")
        self.setAccessibleName("Context used")
        self.setFont(tabular(self.font()))  # the percentage changes in place without jiggling
        self.setCursor(Qt.CursorShape.PointingHandCursor)
        self.hide()

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:
        if event.button() == Qt.MouseButton.LeftButton and self.rect().contains(event.position().toPoint()):
            self.clicked.emit()
        super().mouseReleaseEvent(event)

    def show_budget(self, budget: ContextBudget | None) -> None:
        if budget is None:
            self.hide()
            return
        parts = (
            f"System prompt and indexes: ~{human_count(budget.system)} tokens\n"
            f"Tool schemas: ~{human_count(budget.tools)}\n"
            f"History: ~{human_count(budget.history)}\n"
            f"Attachments: ~{human_count(budget.attachments)}"
        )
        fraction = budget.fraction
        if fraction is None or budget.window is None:
            self.setText(f"ctx ~{human_count(budget.total)}")
            self.setToolTip(
                f"Estimated tokens of the next request (the model's window is not known):\n{parts}\n"
                "Click to compact the conversation now."
            )
        else:
            self.setText(f"ctx {fraction * 100:.0f} %")  # the composer row is narrow: the numbers are in the tooltip
            self.setToolTip(
                f"~{human_count(budget.total)} of the model's {budget.window:,}-token window "
                f"({fraction * 100:.1f} %), estimated for the next request:\n{parts}\n"
                "Click to compact the conversation now."
            )
        warn = fraction is not None and fraction >= WARN_FRACTION
        self.setProperty("warning", warn)
        self.setStyleSheet(
            "QLabel { color: palette(highlight); font-weight: 600; }"
            if warn
            else "QLabel { color: palette(placeholder-text); }"
        )
        self.setMinimumWidth(self.sizeHint().width())
        self.show()
