"""An empty state: what a panel or the chat shows when it has nothing yet, and the one thing to do next.

``EmptyState`` is an icon of the set, a title, one or two lines saying what to do, and ONE primary button
(``action_requested`` when clicked). The conversation list (no conversations), the Servers and Tools panels
(no servers, no tools) and the chat (no provider, no keyring) each build one (``ui.window.empty_states``).
Its look comes from the application stylesheet (``kind="primary"``, ``role="title"``/``"muted"``) and the
chrome sheet (``theme.chrome_sheet``: ``QWidget#emptyState``).
"""

from __future__ import annotations

from PySide6.QtCore import QSize, Qt, Signal
from PySide6.QtWidgets import QLabel, QPushButton, QToolButton, QVBoxLayout, QWidget

from desktop_app.ui.theme.icons import icon
from desktop_app.ui.theme.tokens import SPACE

ICON_PX = 32


class EmptyState(QWidget):
    """Icon, title, explanation and one primary action, centred (see the module docstring).

    Signals:
        action_requested(): the primary button was clicked.
    """

    action_requested = Signal()

    def __init__(
        self, icon_name: str, title: str, text: str, action: str, parent: QWidget | None = None, *, name: str = ""
    ) -> None:
        super().__init__(parent)
        self.setObjectName("emptyState")
        self.setProperty("state", name)
        self.setAccessibleName(title)
        outer = QVBoxLayout(self)
        outer.setContentsMargins(SPACE.xl, SPACE.xl, SPACE.xl, SPACE.xl)  # the column or panel sets the measure
        outer.setSpacing(SPACE.sm)
        outer.addStretch(1)
        self.icon = QToolButton()  # drawn by the icon engine at paint time: it follows the theme
        self.icon.setObjectName("emptyStateIcon")
        self.icon.setAutoRaise(True)
        self.icon.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.icon.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents)
        self.icon.setIcon(icon(icon_name))
        self.icon.setIconSize(QSize(ICON_PX, ICON_PX))
        self.icon.setAccessibleName(title)
        outer.addWidget(self.icon, 0, Qt.AlignmentFlag.AlignHCenter)
        self.title = QLabel(title)
        self.title.setObjectName("emptyStateTitle")
        self.title.setProperty("role", "title")
        self.title.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.title.setWordWrap(True)
        outer.addWidget(self.title)
        self.text = QLabel(text)
        self.text.setObjectName("emptyStateText")
        self.text.setProperty("role", "muted")
        self.text.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.text.setWordWrap(True)
        self.text.setTextFormat(Qt.TextFormat.PlainText)
        outer.addWidget(self.text)
        self.button = QPushButton(action)
        self.button.setObjectName("emptyStateAction")
        self.button.setProperty("kind", "primary")
        self.button.setAutoDefault(False)
        self.button.clicked.connect(self.action_requested)
        outer.addSpacing(SPACE.xs)
        outer.addWidget(self.button, 0, Qt.AlignmentFlag.AlignHCenter)
        outer.addStretch(1)

    def set_text(self, title: str, text: str, action: str) -> None:
        """Say something else (the same state in other words: e.g. a keyring that stopped working)."""
        self.title.setText(title)
        self.setAccessibleName(title)
        self.text.setText(text)
        self.button.setText(action)


__all__ = ["EmptyState"]
