"""Settings → Hooks: every hook from every source, what it runs, and whether it may run.

Each row shows the hook's state (trusted, untrusted, modified, disabled), its event (or MCP message key),
its type, where it comes from and the **full** command, URL or ``server/tool`` target; the selected
hook's details are shown in full below the list. **Trust** records the hook's content hash (an edited
hook becomes "modified" and stops running until it is trusted again), **Revoke** forgets that trust,
**Disable**/**Enable** switch any hook off and on. These act at once (they are not part of Save).
"""

from __future__ import annotations

from typing import Any, Protocol

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPushButton,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from desktop_app.ui.chat.common import ERROR_COLOR, MUTED_COLOR, OK_COLOR, WARN_COLOR, escape
from desktop_app.ui.settings.registry import PageContext, PageExtra, SettingsPage, register_page
from desktop_app.ui.tree_items import select_first, top_level_items

STATE_TEXT = {
    "trusted": ("Trusted", OK_COLOR),
    "untrusted": ("Untrusted · not run", WARN_COLOR),
    "modified": ("Modified · not run", ERROR_COLOR),
    "disabled": ("Disabled", MUTED_COLOR),
}
COLUMNS = ("State", "Event", "Type", "Command / URL / target", "Source")
BODY_COLUMN = 3


class HookAdmin(Protocol):
    """The hook runner as this page uses it."""

    def review(self) -> list[Any]: ...

    def trust_hook(self, key: str) -> None: ...

    def revoke_hook(self, key: str) -> None: ...

    def set_enabled(self, key: str, enabled: bool) -> None: ...

    @property
    def problems(self) -> list[str]: ...


class HooksPage(PageExtra):
    """The review list with Trust, Disable/Enable and Revoke."""

    def __init__(self, admin: HookAdmin | None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.admin = admin
        self.setObjectName("hooksPage")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(8)
        self.problems = QLabel("")
        self.problems.setObjectName("hooksProblems")
        self.problems.setWordWrap(True)
        self.problems.setStyleSheet(f"QLabel {{ color: {ERROR_COLOR}; }}")
        self.problems.hide()
        layout.addWidget(self.problems)
        self.filter = QLineEdit()
        self.filter.setObjectName("hooksFilter")
        self.filter.setPlaceholderText("Filter hooks by event, source, state or command…")
        self.filter.setAccessibleName("Filter hooks")
        self.filter.setClearButtonEnabled(True)
        self.filter.textChanged.connect(self._apply_filter)
        layout.addWidget(self.filter)
        self.tree = QTreeWidget()
        self.tree.setObjectName("hooksList")
        self.tree.setAccessibleName("Hooks")
        self.tree.setHeaderLabels(list(COLUMNS))
        self.tree.setRootIsDecorated(False)
        self.tree.setAlternatingRowColors(True)
        self.tree.setUniformRowHeights(True)
        self.tree.setMinimumHeight(220)
        header = self.tree.header()
        header.setStretchLastSection(False)
        for column in range(len(COLUMNS)):
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(BODY_COLUMN, QHeaderView.ResizeMode.Stretch)
        for column, width in ((1, 190), (2, 150)):  # event keys and types can be long: the body gets the room
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.Interactive)
            self.tree.setColumnWidth(column, width)
        self.tree.currentItemChanged.connect(lambda *_: self._on_selection())
        layout.addWidget(self.tree)
        self.details = QLabel("")
        self.details.setObjectName("hookDetails")
        self.details.setWordWrap(True)
        self.details.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.details.setStyleSheet(
            "QLabel { border: 1px solid palette(mid); border-radius: 6px; padding: 8px; background: palette(base); }"
        )
        layout.addWidget(self.details)
        buttons = QHBoxLayout()
        self.trust_button = QPushButton("Trust")
        self.trust_button.setObjectName("hookTrust")
        self.trust_button.setToolTip("Let this exact hook run (an edit makes it 'modified' and stops it again)")
        self.enable_button = QPushButton("Disable")
        self.enable_button.setObjectName("hookEnable")
        self.revoke_button = QPushButton("Revoke trust")
        self.revoke_button.setObjectName("hookRevoke")
        for button in (self.trust_button, self.enable_button, self.revoke_button):
            buttons.addWidget(button)
        buttons.addStretch(1)
        layout.addLayout(buttons)
        self.trust_button.clicked.connect(lambda: self._act("trust"))
        self.enable_button.clicked.connect(lambda: self._act("enable"))
        self.revoke_button.clicked.connect(lambda: self._act("revoke"))
        self.items: list[Any] = []
        self.refresh()

    def refresh(self) -> None:
        """Read the hooks again (files may have changed) and keep the selection."""
        current = self._selected()
        key = current.entry.key if current is not None else None
        self.tree.clear()
        self.items = self.admin.review() if self.admin is not None else []
        problems = self.admin.problems if self.admin is not None else []
        self.problems.setText("\n".join(problems))
        self.problems.setVisible(bool(problems))
        for index, item in enumerate(self.items):
            entry = item.entry
            text, color = STATE_TEXT.get(item.state, (item.state, MUTED_COLOR))
            event = entry.event + (f" · server {entry.scope}" if entry.scope else "")
            kind = entry.type + (f" · match {entry.match}" if entry.match else "")
            row = QTreeWidgetItem([text, event, kind, entry.body, entry.source.short()])
            row.setForeground(0, QColor(str(color)))  # the role's colour in the theme in force
            row.setToolTip(BODY_COLUMN, entry.body)
            row.setToolTip(1, event)
            row.setToolTip(2, kind)
            row.setToolTip(BODY_COLUMN + 1, entry.source.describe())
            row.setData(0, Qt.ItemDataRole.UserRole, index)
            self.tree.addTopLevelItem(row)
            if entry.key == key:
                self.tree.setCurrentItem(row)
        if self.tree.currentItem() is None and self.items:
            select_first(self.tree)
        self._apply_filter(self.filter.text())
        if not self.items:
            self.details.setText(
                'No hooks yet. Add them under "hooks" in settings.json or mcp.json, or in a project\'s '
                ".switchboard/hooks.json (see Help → User guide, Hooks)."
            )
        self._on_selection()

    def _apply_filter(self, text: str) -> None:
        needle = text.strip().lower()
        for row in top_level_items(self.tree):
            haystack = " ".join(row.text(column) for column in range(len(COLUMNS))).lower()
            row.setHidden(bool(needle) and needle not in haystack)

    def _selected(self) -> Any:
        row = self.tree.currentItem() if hasattr(self, "tree") else None
        if row is None:
            return None
        index = row.data(0, Qt.ItemDataRole.UserRole)
        return self.items[index] if isinstance(index, int) and 0 <= index < len(self.items) else None

    def _on_selection(self) -> None:
        item = self._selected()
        for button in (self.trust_button, self.enable_button, self.revoke_button):
            button.setEnabled(item is not None)
        if item is None:
            return
        entry = item.entry
        default = entry.source.trusted_by_default
        self.trust_button.setEnabled(not default and item.state in ("untrusted", "modified"))
        self.revoke_button.setEnabled(not default and item.state in ("trusted", "modified", "disabled"))
        self.enable_button.setText("Enable" if item.state == "disabled" else "Disable")
        text, _color = STATE_TEXT.get(item.state, (item.state, ""))
        why = {
            "trusted": "It runs." if not default else "It runs: it comes from your own settings.",
            "untrusted": "It never runs until you trust it.",
            "modified": "It changed since you trusted it, so it does not run until you trust it again.",
            "disabled": "It is switched off.",
        }.get(item.state, "")
        lines = [
            f"<b>{escape(text)}</b> — {escape(why)}",
            f"Event: {escape(entry.event)}" + (f" (server {escape(entry.scope)})" if entry.scope else ""),
            f"Type: {escape(entry.type)}" + (f", match <code>{escape(entry.match)}</code>" if entry.match else ""),
            f"Source: {escape(entry.source.describe())}",
            f"Runs: <code>{escape(entry.body)}</code>",
        ]
        if entry.description:
            lines.insert(1, f"Description: {escape(entry.description)}")
        self.details.setText("<br>".join(lines))

    def _act(self, action: str) -> None:
        item = self._selected()
        if item is None or self.admin is None:
            return
        key = item.entry.key
        if action == "trust":
            self.admin.trust_hook(key)
        elif action == "revoke":
            self.admin.revoke_hook(key)
        else:
            self.admin.set_enabled(key, item.state == "disabled")
        self.refresh()


def _hooks_extra(context: PageContext) -> PageExtra:
    host = context.host
    admin = getattr(host, "hooks", None) if host is not None else None
    if admin is None:
        admin = getattr(getattr(context.runtime, "host", None), "hooks", None)
    return HooksPage(admin, context.parent)


register_page(
    SettingsPage(
        key="hooks",
        title="Hooks",
        order=45,
        description="Hooks run on tool calls, prompts and MCP messages. Hooks from your own settings and "
        "mcp.json run; hooks from a project, a plugin or an imported file never run until you trust them. "
        "Changes here apply at once.",
        extra=_hooks_extra,
    )
)
