"""A tool card's approval controls: Approve (once, or a wider scope from its menu), Deny with a reason, Edit.

``ApprovalControls`` is a collaborator of ``tool_card.ToolCard`` (``card.approval``): it builds and owns the
button row and the deny row, handles Enter on the card (``handle_enter``) and the clicks, and sends the answer
as the card's ``decided(tool_call_id, ApprovalAnswer)``. It reads the card's ``pending``, ``tool_call_id`` and
``args`` (the ``ArgumentsPanel``); the card keeps its widgets' old names as pass-throughs.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QKeyEvent
from PySide6.QtWidgets import QApplication, QHBoxLayout, QLineEdit, QMenu, QPushButton, QToolButton, QWidget

if TYPE_CHECKING:
    from desktop_app.ui.chat.tool_card import ToolCard

_ENTER_KEYS = (Qt.Key.Key_Return, Qt.Key.Key_Enter)

SCOPE_ACTIONS = (
    ("conversation", "Approve for this conversation"),
    ("tool", "Always approve this tool"),
    ("server", "Trust this server (all its tools)"),
)
SCOPE_SUFFIX = {"conversation": "for this conversation", "tool": "always for this tool", "server": "trusted server"}


@dataclass(frozen=True)
class ApprovalAnswer:
    """The user's answer to one pending call; maps 1:1 onto ``Runtime.answer``'s keyword arguments."""

    approved: bool
    reason: str | None = None
    scope: str = "once"
    arguments: dict[str, Any] | None = None


def describe_decision(approved: bool, reason: str | None, source: str, scope: str) -> str:
    """'Approved · always for this tool', 'Approved by grant (tool)', 'Approved by policy', 'Denied: why'."""
    if source == "policy":
        return "Approved by policy" if approved else "Denied by policy"
    if source == "grant":
        return f"Approved by grant ({scope})" if approved else "Denied by grant"
    if not approved:
        return f"Denied: {reason}" if reason else "Denied"
    return f"Approved · {SCOPE_SUFFIX[scope]}" if scope in SCOPE_SUFFIX else "Approved"


class ApprovalControls:
    """The approval half of a ``ToolCard``: its Approve/Deny/Edit row and deny row (``card.approval``)."""

    def __init__(self, card: ToolCard, tool: str) -> None:
        self.card = card
        self.buttons = self._build_buttons(tool)
        self.deny_row = self._build_deny_row(tool)

    def arm(self) -> None:
        """Asked (again): the controls enabled and shown, no edits, no reason, focus on Approve."""
        self.edit_button.setChecked(False)
        self.card.args.stop_editing()
        self.reason_edit.clear()
        self.deny_row.hide()
        for button in (self.edit_button, self.deny_button, self.approve_button, self.approve_menu_button):
            button.setEnabled(True)
        self.deny_confirm_button.setEnabled(True)
        self.reason_edit.setEnabled(True)
        self.buttons.show()
        self.approve_button.setFocus()

    def _build_buttons(self, tool: str) -> QWidget:
        box = QWidget()
        row = QHBoxLayout(box)
        row.setContentsMargins(0, 0, 0, 0)
        row.setSpacing(6)
        self.edit_button = QPushButton("Edit arguments")
        self.edit_button.setObjectName("editArgumentsButton")
        self.edit_button.setAccessibleName(f"Edit the arguments of {tool}")
        self.edit_button.setCheckable(True)
        self.edit_button.toggled.connect(self._on_edit_toggled)
        row.addWidget(self.edit_button)
        row.addStretch(1)
        self.deny_button = QPushButton("Deny…")
        self.deny_button.setObjectName("denyButton")
        self.deny_button.setAccessibleName(f"Deny {tool}")
        self.deny_button.setToolTip("Deny this call, with an optional reason for the model")
        self.deny_button.clicked.connect(self._on_deny_clicked)
        row.addWidget(self.deny_button)
        pair = QHBoxLayout()
        pair.setSpacing(0)
        self.approve_button = QPushButton("Approve")
        self.approve_button.setObjectName("approveButton")
        self.approve_button.setAccessibleName(f"Approve {tool}")
        self.approve_button.setToolTip("Approve this call once (Enter)")
        self.approve_button.setDefault(True)
        self.approve_button.clicked.connect(self._on_approve_clicked)
        pair.addWidget(self.approve_button)
        self.approve_menu = QMenu(self.card)
        self.approve_menu.setObjectName("approveMenu")
        self.scope_actions: dict[str, QAction] = {}
        for scope, label in SCOPE_ACTIONS:
            action = self.approve_menu.addAction(label)
            action.setObjectName(f"approve_{scope}")
            action.triggered.connect(lambda _checked=False, s=scope: self._approve(s))
            self.scope_actions[scope] = action
        self.approve_menu_button = QToolButton()
        self.approve_menu_button.setObjectName("approveMenuButton")
        self.approve_menu_button.setAccessibleName(f"More ways to approve {tool}")
        self.approve_menu_button.setToolTip("Approve for this conversation, always, or trust the server")
        self.approve_menu_button.setMenu(self.approve_menu)
        self.approve_menu_button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        self.approve_menu_button.setArrowType(Qt.ArrowType.DownArrow)
        self.approve_menu_button.setStyleSheet("QToolButton::menu-indicator { image: none; width: 0px; }")
        pair.addWidget(self.approve_menu_button)
        row.addLayout(pair)
        box.hide()
        return box

    def _build_deny_row(self, tool: str) -> QWidget:
        box = QWidget()
        row = QHBoxLayout(box)
        row.setContentsMargins(0, 0, 0, 0)
        row.setSpacing(6)
        self.reason_edit = QLineEdit()
        self.reason_edit.setObjectName("denyReason")
        self.reason_edit.setAccessibleName(f"Reason for denying {tool} (optional)")
        self.reason_edit.setPlaceholderText("Reason for the model (optional) — Enter denies")
        self.reason_edit.returnPressed.connect(self._on_deny_confirmed)
        row.addWidget(self.reason_edit, 1)
        self.deny_cancel_button = QPushButton("Back")
        self.deny_cancel_button.setObjectName("denyCancelButton")
        self.deny_cancel_button.setAccessibleName("Back to approve or deny")
        self.deny_cancel_button.clicked.connect(self._on_deny_cancelled)
        row.addWidget(self.deny_cancel_button)
        self.deny_confirm_button = QPushButton("Deny")
        self.deny_confirm_button.setObjectName("denyConfirmButton")
        self.deny_confirm_button.setAccessibleName(f"Deny {tool} now")
        self.deny_confirm_button.clicked.connect(self._on_deny_confirmed)
        row.addWidget(self.deny_confirm_button)
        box.hide()
        return box

    # -- user input --------------------------------------------------------------------------------------

    def handle_enter(self, event: QKeyEvent) -> bool:
        """Enter approves once when the card (or its Approve button) has focus; on another button it clicks it.
        False: not this object's key (the card handles it as a frame)."""
        mods = event.modifiers() & ~Qt.KeyboardModifier.KeypadModifier
        if event.key() not in _ENTER_KEYS or mods != Qt.KeyboardModifier.NoModifier or not self.card.pending:
            return False
        event.accept()
        focus = QApplication.focusWidget()
        if focus is self.reason_edit:  # returnPressed already denied
            return True
        if focus is self.approve_menu_button:
            self.approve_menu_button.showMenu()
        elif focus in (self.deny_button, self.edit_button, self.deny_cancel_button, self.deny_confirm_button):
            focus.click()
        elif self.buttons.isVisible():
            self._approve("once")
        return True

    def _on_approve_clicked(self) -> None:
        self._approve("once")

    def _approve(self, scope: str) -> None:
        if not self.card.pending or not self.card.args.valid:
            return
        self._send(ApprovalAnswer(True, scope=scope, arguments=self.card.args.edited()))

    def _on_deny_clicked(self) -> None:
        if not self.card.pending:
            return
        self.buttons.hide()
        self.deny_row.show()
        self.reason_edit.setFocus()

    def _on_deny_cancelled(self) -> None:
        self.deny_row.hide()
        self.buttons.show()
        self.deny_button.setFocus()

    def _on_deny_confirmed(self) -> None:
        if not self.card.pending:
            return
        reason = self.reason_edit.text().strip() or None
        self._send(ApprovalAnswer(False, reason=reason))

    def _on_edit_toggled(self, editing: bool) -> None:
        if editing:
            self.card.args.start_editing()
            self.edit_button.setText("Undo edits")
        else:
            self.card.args.stop_editing()
            self.edit_button.setText("Edit arguments")

    def on_validity_changed(self, valid: bool) -> None:
        self.approve_button.setEnabled(valid)
        self.approve_menu_button.setEnabled(valid)
        self.approve_button.setToolTip("Approve this call once (Enter)" if valid else "Fix the arguments first")

    def _send(self, answer: ApprovalAnswer) -> None:
        self.card.pending = False
        for button in (self.edit_button, self.deny_button, self.approve_button, self.approve_menu_button):
            button.setEnabled(False)
        self.deny_confirm_button.setEnabled(False)
        self.reason_edit.setEnabled(False)
        self.card.decided.emit(self.card.tool_call_id, answer)
