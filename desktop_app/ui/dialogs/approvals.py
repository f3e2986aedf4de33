"""Settings → Approvals…: the remembered grants (with Revoke per row) and the read-only auto-approve setting.

Grants come from ``runtime.grants.list()``; Revoke calls ``runtime.revoke_grant(grant)`` and re-reads the
list, so the row disappears. A grant whose server changed since (another command, arguments or URL:
``runtime.grant_is_stale``) is shown as stale and no longer applies; Confirm (``runtime.confirm_grant``)
binds it to the server as it is now. "Auto-approve tools marked read-only" is the saved setting (off by default).
Opened with ``open()`` (never ``exec()`` on the qasync loop).
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QDialog,
    QDialogButtonBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from desktop_app.ui.chat.blocks import ERROR_COLOR
from desktop_app.ui.chat.controller import RuntimeLike
from desktop_app.ui.dialogs.frame import DialogHeader
from desktop_app.ui.naming import name_buttons

if TYPE_CHECKING:
    from desktop_app.runtime.run.approvals import Grant

COLUMNS = ("Scope", "Server", "Tool", "Conversation", "Granted", "Origin", "State", "")
STALE_TEXT = "Stale: the server changed"
STALE_TIP = (
    "The server's command, arguments or URL changed since this was granted (or the server is gone), so the "
    "grant no longer applies and its calls ask again. Confirm it to trust the server as it is now."
)
SCOPE_LABELS = {"conversation": "This conversation", "tool": "Always (tool)", "server": "Trusted server"}
READ_ONLY_TIP = (
    "Run tools that declare themselves read-only (readOnlyHint) without asking. Off by default: a server "
    "can claim read-only falsely. Built-in read-only tools never ask either way."
)


def format_when(timestamp: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(timestamp))


class ApprovalsDialog(QDialog):
    """List and revoke grants.

    Signals:
        revoked(object): this ``Grant`` was revoked.
    """

    revoked = Signal(object)

    def __init__(self, runtime: RuntimeLike, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("approvalsDialog")
        self.setWindowTitle("Approvals")
        self.resize(860, 380)
        self.runtime = runtime
        self.grants: list[Grant] = []
        layout = QVBoxLayout(self)
        self.header = DialogHeader(
            "Approvals",
            "Tools and servers you approved beyond a single call. Revoke a grant to be asked again next time.",
            icon="approve",
        )
        layout.addWidget(self.header)
        self.table = QTableWidget(0, len(COLUMNS))
        self.table.setObjectName("grantsTable")
        self.table.setAccessibleName("Approval grants")
        self.table.setHorizontalHeaderLabels(list(COLUMNS))
        self.table.verticalHeader().hide()
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setWordWrap(False)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(COLUMNS.index("Origin"), QHeaderView.ResizeMode.Stretch)
        layout.addWidget(self.table, 1)
        self.empty_label = QLabel(
            "No grants yet. “Approve for this conversation”, “Always approve this tool” and "
            "“Trust this server” on a tool card add them here."
        )
        self.empty_label.setObjectName("noGrantsLabel")
        self.empty_label.setWordWrap(True)
        self.empty_label.setStyleSheet("QLabel { color: palette(placeholder-text); }")
        layout.addWidget(self.empty_label)

        self.read_only_box = QCheckBox("Auto-approve tools marked read-only")
        self.read_only_box.setObjectName("autoApproveReadOnly")
        self.read_only_box.setChecked(runtime.settings.auto_approve_read_only)
        self.read_only_box.setToolTip(READ_ONLY_TIP)
        self.read_only_box.toggled.connect(self._on_read_only_toggled)
        layout.addWidget(self.read_only_box)

        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        name_buttons(buttons, "approvals")
        buttons.rejected.connect(self.reject)
        layout.addWidget(buttons)
        self.refresh()

    def _on_read_only_toggled(self, enabled: bool) -> None:
        self.runtime.set_auto_approve_read_only(enabled)

    def refresh(self) -> None:
        """Re-read the grants from the runtime."""
        self.grants = self.runtime.grants.list()
        self.table.setRowCount(len(self.grants))
        for row, grant in enumerate(self.grants):
            conversation = grant.conversation_id or "—"
            cells: tuple[str, ...] = (
                SCOPE_LABELS.get(grant.scope, grant.scope),
                grant.server,
                grant.tool or "(all tools)",
                conversation[:8] + "…" if len(conversation) > 9 else conversation,
                format_when(grant.granted_at),
                grant.origin,
            )
            stale = self._is_stale(grant)
            cells = (*cells, STALE_TEXT if stale else "Active")
            for column, text in enumerate(cells):
                item = QTableWidgetItem(text)
                item.setToolTip(
                    (grant.conversation_id or "") if column == 3 else STALE_TIP if stale and column == 6 else text
                )
                if stale and column == 6:
                    item.setForeground(ERROR_COLOR.qcolor())  # it no longer applies: say so in colour too
                self.table.setItem(row, column, item)
            self.table.setCellWidget(row, len(COLUMNS) - 1, self._actions(grant, stale))
        self.table.setVisible(bool(self.grants))
        self.empty_label.setVisible(not self.grants)

    def _is_stale(self, grant: Grant) -> bool:
        is_stale = getattr(self.runtime, "grant_is_stale", None)
        return bool(is_stale(grant)) if is_stale is not None else False

    def _actions(self, grant: Grant, stale: bool) -> QWidget:
        cell = QWidget()
        row = QHBoxLayout(cell)
        row.setContentsMargins(0, 0, 0, 0)
        target = grant.tool or "all tools"
        if stale:
            confirm = QPushButton("Confirm")
            confirm.setObjectName("confirmGrantButton")
            confirm.setToolTip(STALE_TIP)
            confirm.setAccessibleName(f"Confirm the grant for {grant.server} ({target}) as the server is now")
            confirm.clicked.connect(lambda _checked=False, g=grant: self.confirm(g))
            row.addWidget(confirm)
        button = QPushButton("Revoke")
        button.setObjectName("revokeButton")
        button.setAccessibleName(f"Revoke the grant for {grant.server} ({target})")
        button.clicked.connect(lambda _checked=False, g=grant: self.revoke(g))
        row.addWidget(button)
        return cell

    def confirm(self, grant: Grant) -> None:
        """Trust the changed server again: the grant applies to it as it is now."""
        self.runtime.confirm_grant(grant)
        self.refresh()

    def revoke(self, grant: Grant) -> None:
        self.runtime.revoke_grant(grant)
        self.revoked.emit(grant)
        self.refresh()

    def button(self, row: int, name: str = "revokeButton") -> QPushButton | None:
        """The row's Revoke (or, for a stale grant, ``confirmGrantButton``) button."""
        cell = self.table.cellWidget(row, len(COLUMNS) - 1)
        return cell.findChild(QPushButton, name) if cell is not None else None

    def row_texts(self) -> list[list[str]]:
        """The table's text, row by row (for tests and accessibility checks)."""
        rows = []
        for r in range(self.table.rowCount()):
            items = (self.table.item(r, c) for c in range(len(COLUMNS) - 1))
            rows.append([item.text() if item is not None else "" for item in items])
        return rows


__all__ = ["ApprovalsDialog"]
