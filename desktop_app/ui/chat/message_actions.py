"""A message's actions under it (:class:`MessageActions`): Copy (Markdown or plain text), Regenerate on the last
answer, Delete on your messages; shown while the pointer is over the message or one of them has the focus,
else transparent in their place so the transcript does not move. ``view.ChatView`` adds them under blocks.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QEvent, QObject, Qt, QTimer, Signal
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QGraphicsOpacityEffect, QHBoxLayout, QMenu, QToolButton, QWidget


class MessageActions(QWidget):
    """A message's actions under it: Copy (Markdown or plain text); on answers Regenerate (shown on the last
    one), on your messages Delete (the message and its answer).

    They show while the pointer is over the message (``watch``) or one of them has the keyboard focus; else
    they are transparent, keeping their place, so the transcript does not move (``revealed``).

    Signals:
        regenerate_clicked(), delete_clicked()
    """

    regenerate_clicked = Signal()
    delete_clicked = Signal()

    def __init__(
        self,
        markdown: Callable[[], str],
        plain: Callable[[], str],
        parent: QWidget | None = None,
        *,
        role: str = "assistant",
    ) -> None:
        super().__init__(parent)
        self.setObjectName("messageActions")
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        row.setSpacing(2)
        self.copy_button = QToolButton()
        self.copy_button.setObjectName("copyMessageButton")
        self.copy_button.setAccessibleName("Copy this message")
        self.copy_button.setToolTip("Copy this message as Markdown (the arrow: as plain text)")
        self.copy_button.setText("Copy")
        self.copy_button.setAutoRaise(True)
        self.copy_button.setPopupMode(QToolButton.ToolButtonPopupMode.MenuButtonPopup)
        menu = QMenu(self.copy_button)
        menu.setObjectName("copyMessageMenu")
        self.copy_markdown_action = menu.addAction("Copy as Markdown")
        self.copy_markdown_action.setObjectName("copyMarkdownAction")
        self.copy_plain_action = menu.addAction("Copy as plain text")
        self.copy_plain_action.setObjectName("copyPlainAction")
        self.copy_button.setMenu(menu)
        self.copy_button.clicked.connect(lambda: self._copy(markdown()))
        self.copy_markdown_action.triggered.connect(lambda: self._copy(markdown()))
        self.copy_plain_action.triggered.connect(lambda: self._copy(plain()))
        row.addWidget(self.copy_button)
        self.regenerate_button = QToolButton()
        self.regenerate_button.setObjectName("regenerateButton")
        self.regenerate_button.setAccessibleName("Regenerate this answer")
        self.regenerate_button.setToolTip("Ask the model again for this answer (this one is kept: ‹ › switches)")
        self.regenerate_button.setText("Regenerate")
        self.regenerate_button.setAutoRaise(True)
        self.regenerate_button.clicked.connect(self.regenerate_clicked)
        self.regenerate_button.hide()  # the view shows it on the last answer
        row.addWidget(self.regenerate_button)
        self.delete_button = QToolButton()
        self.delete_button.setObjectName("deleteTurnButton")
        self.delete_button.setAccessibleName("Delete this message and its answer")
        self.delete_button.setToolTip("Delete this message and its answer")
        self.delete_button.setText("Delete")
        self.delete_button.setAutoRaise(True)
        self.delete_button.clicked.connect(self.delete_clicked)
        self.edit_button = QToolButton()
        self.edit_button.setObjectName("editMessageButton")
        self.edit_button.setAccessibleName("Edit this message and send it again")
        self.edit_button.setToolTip("Edit and send again (the old version is kept)")
        self.edit_button.setText("Edit")
        self.edit_button.setAutoRaise(True)
        if role != "user":
            self.edit_button.hide()
        row.addWidget(self.edit_button)
        if role != "user":
            self.delete_button.hide()
        row.addWidget(self.delete_button)
        row.addStretch(1)
        self.hovered = False
        self.opacity = QGraphicsOpacityEffect(self)
        self.setGraphicsEffect(self.opacity)
        from desktop_app.ui.theme.icons import icon

        for button, name in (
            (self.copy_button, "copy"),
            (self.regenerate_button, "regenerate"),
            (self.edit_button, "edit"),
            (self.delete_button, "delete"),
        ):
            button.setIcon(icon(name))
            button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
            button.installEventFilter(self)
        self._show_revealed()

    @property
    def revealed(self) -> bool:
        buttons = (self.copy_button, self.regenerate_button, self.edit_button, self.delete_button)
        return self.hovered or any(button.hasFocus() for button in buttons)

    def watch(self, owner: QWidget) -> None:
        """Reveal the actions while the pointer is over ``owner`` (the message they belong to)."""
        owner.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        kind = event.type()
        if kind in (QEvent.Type.Enter, QEvent.Type.Leave):
            if isinstance(watched, QWidget) and not self.isAncestorOf(watched):  # the owner, not a button
                self.hovered = kind == QEvent.Type.Enter
                self._show_revealed()
        elif kind in (QEvent.Type.FocusIn, QEvent.Type.FocusOut):
            QTimer.singleShot(0, self, self._show_revealed)  # after the focus moved (to a neighbour, maybe)
        return False

    def _show_revealed(self) -> None:
        self.opacity.setOpacity(1.0 if self.revealed else 0.0)

    def _copy(self, text: str) -> None:
        QGuiApplication.clipboard().setText(text)
        self.copy_button.setText("Copied")
        QTimer.singleShot(1500, self.copy_button, lambda: self.copy_button.setText("Copy"))


__all__ = ["MessageActions"]
