"""The one dialog look: a header (our icon in a tone colour, a title, a muted line), the body, and a button row
whose primary action is the accent button. Every dialog (approval, install, import, hook before/after,
errors, confirmations) is built from these, so none shows a stock message-box icon
(``tests/unit/ui/dialogs/test_dialog_frame.py`` scans for them).

    header = DialogHeader("Install “Files”?", "by Example Inc · 1.2.0", icon="resource", tone="accent")
    layout.addWidget(header)
    buttons = button_row(dialog, primary="Install", secondary=("Cancel",))

    box = message_box(parent, "Remove “notes”?", "Its tools go away.", icon="delete", tone="danger",
                      primary=("Remove", QMessageBox.ButtonRole.DestructiveRole))

Tones are token roles: ``accent``, ``danger``, ``warning``, ``success``, ``text_muted``.
"""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import QSize, Qt
from PySide6.QtGui import QPixmap
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QHBoxLayout,
    QLabel,
    QMessageBox,
    QPushButton,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from desktop_app.ui.theme.icons import icon as themed_icon
from desktop_app.ui.theme.icons import svg_source
from desktop_app.ui.theme.tokens import SPACE

HEADER_ICON = 32  # px
BOX_ICON = 40  # px: a message box's icon, where the stock one was


def icon_pixmap(name: str, tone: str, size: int) -> QPixmap:
    """Our icon ``name`` in the ``tone`` colour (a null pixmap when the icon file is missing: a dialog without
    its icon still says what it has to)."""
    try:
        svg_source(name)
    except OSError:
        return QPixmap()
    return themed_icon(name, tone).pixmap(QSize(size, size))


class DialogHeader(QWidget):
    """Icon, title and a muted subtitle, the top of every dialog (``objectName`` ``dialogHeader``)."""

    def __init__(
        self, title: str, subtitle: str = "", *, icon: str = "", tone: str = "accent", parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.setObjectName("dialogHeader")
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Maximum)  # never stretched tall
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, SPACE.sm)
        row.setSpacing(SPACE.md)
        self.icon = QLabel()
        self.icon.setObjectName("dialogIcon")
        pixmap = icon_pixmap(icon, tone, HEADER_ICON) if icon else QPixmap()
        self.icon.setPixmap(pixmap)
        self.icon.setVisible(not pixmap.isNull())
        row.addWidget(self.icon, 0, Qt.AlignmentFlag.AlignTop)
        column = QVBoxLayout()
        column.setSpacing(SPACE.xxs)
        self.title = QLabel(title)
        self.title.setObjectName("dialogTitle")
        self.title.setWordWrap(True)
        self.subtitle = QLabel(subtitle)
        self.subtitle.setObjectName("dialogSubtitle")
        self.subtitle.setWordWrap(True)
        self.subtitle.setVisible(bool(subtitle))
        column.addWidget(self.title)
        column.addWidget(self.subtitle)
        row.addLayout(column, 1)

    def set_subtitle(self, text: str) -> None:
        self.subtitle.setText(text)
        self.subtitle.setVisible(bool(text))


def mark_primary(button: QPushButton | None, *, destructive: bool = False) -> None:
    """Make ``button`` the dialog's one primary action (the accent fill; a destructive one in danger text)."""
    if button is not None:
        button.setProperty("kind", "danger" if destructive else "primary")
        button.style().unpolish(button)
        button.style().polish(button)


def button_row(
    dialog: QDialog, *, primary: str, secondary: Sequence[str] = ("Cancel",), destructive: bool = False
) -> QDialogButtonBox:
    """The button row: ``secondary`` buttons (reject) then the ``primary`` one (accept), in the platform's
    order; Enter presses the primary."""
    buttons = QDialogButtonBox(dialog)
    buttons.setObjectName("dialogButtons")
    for text in secondary:
        buttons.addButton(text, QDialogButtonBox.ButtonRole.RejectRole)
    main = buttons.addButton(primary, QDialogButtonBox.ButtonRole.AcceptRole)
    main.setDefault(True)
    mark_primary(main, destructive=destructive)
    buttons.accepted.connect(dialog.accept)
    buttons.rejected.connect(dialog.reject)
    return buttons


def message_box(
    parent: QWidget | None,
    title: str,
    text: str,
    *,
    informative: str = "",
    icon: str = "warning",
    tone: str = "warning",
    primary: tuple[str, QMessageBox.ButtonRole] | None = None,
    secondary: QMessageBox.StandardButton = QMessageBox.StandardButton.Cancel,
) -> QMessageBox:
    """A confirmation or error box in the dialog look: our ``icon`` tinted ``tone`` where the stock icon was,
    the ``primary`` button (text, role) marked as such (destructive for ``DestructiveRole``)."""
    box = QMessageBox(parent)
    box.setObjectName("messageBox")
    box.setWindowTitle(title)
    box.setText(text)
    if informative:
        box.setInformativeText(informative)
    pixmap = icon_pixmap(icon, tone, BOX_ICON)
    if not pixmap.isNull():
        box.setIconPixmap(pixmap)
    if secondary != QMessageBox.StandardButton.NoButton:
        box.setStandardButtons(secondary)
    if primary is not None:
        main = box.addButton(primary[0], primary[1])
        mark_primary(main, destructive=primary[1] == QMessageBox.ButtonRole.DestructiveRole)
        box.setDefaultButton(main)
    return box


__all__ = ["DialogHeader", "button_row", "icon_pixmap", "mark_primary", "message_box"]
