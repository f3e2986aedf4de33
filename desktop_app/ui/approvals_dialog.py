"""Settings → Approvals…: the remembered grants (with Revoke per row) and the read-only auto-approve setting.

Grants come from ``runtime.grants.list()``; Revoke calls ``runtime.revoke_grant(grant)`` and re-reads the
list, so the row disappears. "Auto-approve tools marked read-only" is the saved setting (off by default).
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
    QHeaderView,
    QLabel,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from desktop_app.ui.chat.controller import RuntimeLike
from desktop_app.ui.naming import name_buttons

if TYPE_CHECKING:
    from desktop_app.runtime.approvals import Grant

COLUMNS = ("Scope", "Server", "Tool", "Conversation", "Granted", "Origin", "")
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
        intro = QLabel(
            "Tools and servers you approved beyond a single call. Revoke a grant to be asked again next time."
        )
        intro.setWordWrap(True)
        layout.addWidget(intro)
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
            cells = (
                SCOPE_LABELS.get(grant.scope, grant.scope),
                grant.server,
                grant.tool or "(all tools)",
                conversation[:8] + "…" if len(conversation) > 9 else conversation,
                format_when(grant.granted_at),
                grant.origin,
            )
            for column, text in enumerate(cells):
                item = QTableWidgetItem(text)
                item.setToolTip((grant.conversation_id or "") if column == 3 else text)
                self.table.setItem(row, column, item)
            button = QPushButton("Revoke")
            button.setObjectName("revokeButton")
            target = grant.tool or "all tools"
            button.setAccessibleName(f"Revoke the grant for {grant.server} ({target})")
            button.clicked.connect(lambda _checked=False, g=grant: self.revoke(g))
            self.table.setCellWidget(row, len(COLUMNS) - 1, button)
        self.table.setVisible(bool(self.grants))
        self.empty_label.setVisible(not self.grants)

    def revoke(self, grant: Grant) -> None:
        self.runtime.revoke_grant(grant)
        self.revoked.emit(grant)
        self.refresh()

    def row_texts(self) -> list[list[str]]:
        """The table's text, row by row (for tests and accessibility checks)."""
        rows = []
        for r in range(self.table.rowCount()):
            items = (self.table.item(r, c) for c in range(len(COLUMNS) - 1))
            rows.append([item.text() if item is not None else "" for item in items])
        return rows


__all__ = ["ApprovalsDialog"]
