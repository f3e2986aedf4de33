"""The ``‹ n/m ›`` switch that a message with versions shows: the user message's (Edit) and the answer's
(Regenerate) are the same three widgets, built here once."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtWidgets import QHBoxLayout, QLabel, QToolButton


def _arrow(name: str, accessible: str, text: str, step: Callable[[], None]) -> QToolButton:
    button = QToolButton()
    button.setObjectName(name)
    button.setAccessibleName(accessible)
    button.setText(text)
    button.setAutoRaise(True)
    button.clicked.connect(step)
    return button


def add_version_switch(
    row: QHBoxLayout, step: Callable[[int], None], *, of: str = ""
) -> tuple[QToolButton, QLabel, QToolButton]:
    """‹, the ``n/m`` label and › added to ``row``; the arrows call ``step(-1)`` / ``step(+1)``. ``of`` ends the
    arrows' accessible names ("Previous version of the answer")."""
    previous = _arrow("previousVersionButton", f"Previous version{of}", "‹", lambda: step(-1))
    label = QLabel("")
    label.setObjectName("versionLabel")
    following = _arrow("nextVersionButton", f"Next version{of}", "›", lambda: step(1))
    for widget in (previous, label, following):
        row.addWidget(widget)
    return previous, label, following


__all__ = ["add_version_switch"]
