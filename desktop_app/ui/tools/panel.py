"""The tool search panel (a dock, Ctrl+K): every tool the model could get, and what it costs.

The panel shows the runtime's tool overview (:mod:`desktop_app.runtime.tools.overview`) for the shown
conversation: a search box (words, or ``tool_search``'s syntax) with live results and a "No tools match"
state; tools grouped by server with their state, which says what the model sees of each this turn (loaded,
pinned, built-in or promoted: its schema; "in index": its name; "hidden": only ``tool_search`` finds it;
excluded or "hook target": nothing), estimated tokens and, for the selected one, the description and a
schema preview; a marker on the tools promoted in this conversation and a highlight on those the model
loaded in its last turn; pin and exclude toggles (written to ``mcp.json`` as ``pinned``/``excludedTools``
and applied without a restart); the context cost per server and in total, and what deferral saves.
"Deferral settings…" opens the Settings page for the mode and thresholds. Its texts: :mod:`.texts`.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QBrush, QColor, QFont, QFontDatabase, QPalette, QShowEvent
from PySide6.QtWidgets import (
    QHeaderView,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QSplitter,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from desktop_app.ui.theme.tokens import tabular
from desktop_app.ui.tools.texts import (
    NO_TOOLS,
    PLACEHOLDER,
    SEARCH_TIP,
    TOGGLE_STYLE,
    detail_text,
    no_match_text,
    sees_tip,
    slow_pattern_text,
    state_text,
    summary_text,
)
from desktop_app.ui.wrap_row import WrapRow

if TYPE_CHECKING:  # the runtime (pydantic, mcp) is imported only once the panel is used, after first paint
    from desktop_app.runtime.tools.overview import Overview, ToolRow

COL_TOOL, COL_STATE, COL_TOKENS, COL_PIN, COL_EXCLUDE = range(5)
HEADERS = ("Tool", "State", "Tokens", "Pin", "Exclude")
REFRESH_DELAY_MS = 60


class ToolPanel(QWidget):
    """Search, browse, pin and exclude tools. Call :meth:`attach_runtime` and :meth:`attach_host`.

    Signals:
        settings_requested(): "Deferral settings…" was clicked.
    """

    settings_requested = Signal()
    refreshed = Signal()  # the list was rebuilt (``window.empty_states`` shows "No tools yet")

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("toolPanel")
        self._runtime: Any = None
        self._host: Any = None
        self._mcp_config: Path | None = None
        self._conversation: Callable[[], str | None] = lambda: None
        self._last_turn: dict[str, set[str]] = {}
        self._rows: dict[str, ToolRow] = {}
        self._expanded: set[str] = set()
        self._filling = False
        self.overview: Overview | None = None

        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 8, 8, 8)
        layout.setSpacing(6)
        self.search = QLineEdit()
        self.search.setObjectName("toolSearch")
        self.search.setAccessibleName("Search the tools")
        self.search.setPlaceholderText(PLACEHOLDER)
        self.search.setClearButtonEnabled(True)
        self.search.setToolTip(SEARCH_TIP)
        layout.addWidget(self.search)
        self.summary = QLabel("No tools yet.")
        self.summary.setObjectName("toolSummary")
        self.summary.setWordWrap(True)
        self.summary.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        layout.addWidget(self.summary)
        self.notice = QLabel("")
        self.notice.setObjectName("toolNotice")
        self.notice.setWordWrap(True)
        self.notice.setProperty("tone", "danger")  # the application stylesheet's error text (theme tokens)
        self.notice.hide()
        layout.addWidget(self.notice)

        self.tree = QTreeWidget()
        self.tree.setObjectName("toolTree")
        self.tree.setFont(tabular(self.tree.font()))  # the token counts line up down their column
        self.tree.setAccessibleName("Tools by server")
        self.tree.setColumnCount(len(HEADERS))
        self.tree.setHeaderLabels(list(HEADERS))
        self.tree.setUniformRowHeights(True)
        self.tree.setAlternatingRowColors(True)
        self.tree.setStyleSheet(TOGGLE_STYLE)
        header = self.tree.header()
        header.setStretchLastSection(False)
        header.setSectionResizeMode(COL_TOOL, QHeaderView.ResizeMode.Stretch)
        for column in (COL_STATE, COL_TOKENS, COL_PIN, COL_EXCLUDE):
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.ResizeToContents)
        self.detail = QPlainTextEdit()
        self.detail.setObjectName("toolDetail")
        self.detail.setAccessibleName("The selected tool's details")
        self.detail.setReadOnly(True)
        self.detail.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.detail.setPlaceholderText("Select a tool to see its description and input schema.")
        self.empty = QLabel("")
        self.empty.setObjectName("toolEmpty")
        self.empty.setWordWrap(True)
        self.empty.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.empty.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.empty.hide()
        list_area = QWidget()
        list_layout = QVBoxLayout(list_area)
        list_layout.setContentsMargins(0, 0, 0, 0)
        list_layout.addWidget(self.tree, 1)
        list_layout.addWidget(self.empty, 1)
        splitter = QSplitter(Qt.Orientation.Vertical)
        splitter.setObjectName("toolPanelSplitter")  # its sizes are kept across restarts (window_state)
        splitter.addWidget(list_area)
        splitter.addWidget(self.detail)
        splitter.setStretchFactor(0, 3)
        splitter.setStretchFactor(1, 1)
        layout.addWidget(splitter, 1)

        self.count_label = QLabel("")
        self.count_label.setObjectName("toolCount")
        self.count_label.setFont(tabular(self.count_label.font()))  # counts that change do not jiggle
        self.settings_button = QPushButton("Deferral settings…")
        self.settings_button.setObjectName("deferralSettingsButton")
        self.settings_button.clicked.connect(self.settings_requested)
        self.footer = WrapRow(self.count_label, self.settings_button)  # stacked in a narrow panel, never cut
        self.footer.setObjectName("toolFooter")
        layout.addWidget(self.footer)

        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(REFRESH_DELAY_MS)
        self._timer.timeout.connect(self.refresh)
        self.search.textChanged.connect(lambda _text: self._timer.start())
        self.tree.itemChanged.connect(self._on_item_changed)
        self.tree.currentItemChanged.connect(self._on_current_changed)
        self.tree.itemExpanded.connect(lambda item: self._expanded.add(self._server_of(item)))
        self.tree.itemCollapsed.connect(lambda item: self._expanded.discard(self._server_of(item)))

    # -- wiring ----------------------------------------------------------------------------------------

    def attach_runtime(self, runtime: Any, conversation: Callable[[], str | None]) -> None:
        """Follow ``runtime``'s deferral; ``conversation()`` names the shown conversation."""
        self._runtime = runtime
        self._conversation = conversation
        subscribe = getattr(runtime, "subscribe", None)
        if subscribe is not None:
            subscribe(self._on_run_event)
        self.schedule_refresh()

    def attach_host(self, host: Any, mcp_config: Path | None) -> None:
        """Follow ``host``'s servers and tools; pins and exclusions are written to ``mcp_config``."""
        self._host = host
        self._mcp_config = mcp_config
        subscribe = getattr(host, "subscribe", None)
        if subscribe is not None:
            subscribe(self._on_host_event)
        self.schedule_refresh()

    def schedule_refresh(self) -> None:
        if self.isVisible():  # a hidden panel (the dock starts hidden) refreshes when shown: showEvent
            self._timer.start()

    def _on_run_event(self, event: Any) -> None:
        kind = getattr(event, "kind", "")
        if kind == "run_started":
            self._last_turn[event.conversation_id] = set()
        elif kind == "tools_promoted":
            if event.reason != "restored":
                self._last_turn.setdefault(event.conversation_id, set()).update(event.tools)
            self.schedule_refresh()

    def _on_host_event(self, event: Any) -> None:
        if getattr(event, "kind", "") in ("tools_changed", "server_state"):
            self.schedule_refresh()

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        self.schedule_refresh()

    # -- the list --------------------------------------------------------------------------------------

    def _deferral(self) -> Any:
        return getattr(self._runtime, "deferral", None)

    def last_turn(self) -> set[str]:
        """What the model loaded (promoted) in the shown conversation's last turn."""
        conversation = self._conversation()
        return set(self._last_turn.get(conversation, set())) if conversation else set()

    def refresh(self) -> None:
        """Rebuild the list for the search text and the shown conversation (keeps expansion and selection)."""
        from desktop_app.runtime.host.bounded_regex import SEARCH_TIME_LIMIT_S, SearchTimeout
        from desktop_app.runtime.tools.overview import overview

        self._timer.stop()
        deferral = self._deferral()
        if deferral is None:
            self.summary.setText("Tools appear here once the runtime has started.")
            self.refreshed.emit()
            return
        conversation = self._conversation()
        view = deferral.view(conversation) if conversation else None
        query = self.search.text()
        try:
            result = overview(deferral, view, query)
        except SearchTimeout:  # a regex that backtracks without end, stopped at the search's time bound
            self.count_label.setText("")
            self.empty.setText(slow_pattern_text(query, SEARCH_TIME_LIMIT_S))
            self.empty.setVisible(True)
            self.tree.setVisible(False)
            self.refreshed.emit()
            return
        self.overview = result
        self._rows = {row.name: row for row in result.rows}
        self.summary.setText(summary_text(result) if result.total else NO_TOOLS)
        if query.strip():
            self.count_label.setText(f"{result.matched:,} of {result.total:,} tools match")
        else:
            self.count_label.setText(f"{result.total:,} tools")
        no_match = bool(query.strip()) and not result.rows and result.total > 0
        self.empty.setText(no_match_text(query) if no_match else "")
        self.empty.setVisible(no_match)
        self.tree.setVisible(not no_match)
        self._fill(result, bool(query.strip()))
        self.refreshed.emit()

    def _fill(self, result: Overview, searching: bool) -> None:
        current = self.tree.currentItem()
        selected = current.data(COL_TOOL, Qt.ItemDataRole.UserRole) if current is not None else None
        highlight = self.last_turn()
        summaries = {s.name: s for s in result.servers}
        accent = QColor(self.palette().color(QPalette.ColorRole.Highlight))
        accent.setAlpha(60)
        bold = QFont(self.font())
        bold.setBold(True)
        self._filling = True
        self.tree.setUpdatesEnabled(False)
        try:
            self.tree.clear()
            restore: QTreeWidgetItem | None = None
            for server, rows in result.grouped().items():
                summary = summaries.get(server)
                group = QTreeWidgetItem([server, "", "", "", ""])
                group.setData(COL_TOOL, Qt.ItemDataRole.UserRole, ("server", server))
                group.setFont(COL_TOOL, bold)
                group.setToolTip(COL_TOOL, server)  # the whole name of a server elided in a narrow panel
                if summary is not None:
                    group.setText(COL_STATE, f"{summary.tools} tool{'s' if summary.tools != 1 else ''}")
                    group.setText(COL_TOKENS, f"~{summary.tokens:,}")
                    group.setToolTip(
                        COL_TOKENS,
                        f"~{summary.tokens:,} tokens for all of {server}'s tools; ~{summary.sent_tokens:,} sent now",
                    )
                    if not summary.builtin:
                        group.setFlags(group.flags() | Qt.ItemFlag.ItemIsUserCheckable)
                        group.setCheckState(
                            COL_PIN, Qt.CheckState.Checked if summary.pinned else Qt.CheckState.Unchecked
                        )
                        group.setToolTip(COL_PIN, f"Pin every tool of {server}: always loaded, never deferred")
                self.tree.addTopLevelItem(group)
                for row in rows:
                    item = self._tool_item(row, row.name in highlight, accent, bold)
                    group.addChild(item)
                    if selected == ("tool", row.name):
                        restore = item
                group.setExpanded(searching or server in self._expanded)
            if restore is not None:
                self.tree.setCurrentItem(restore)
        finally:
            self.tree.setUpdatesEnabled(True)
            self._filling = False
        if restore is None:
            self.detail.clear()

    def _tool_item(self, row: ToolRow, highlighted: bool, accent: QColor, bold: QFont) -> QTreeWidgetItem:
        # Under its server's row the tool's own name says it all (the model-facing name is in the tooltip).
        item = QTreeWidgetItem([row.tool, state_text(row), f"~{row.tokens:,}", "", ""])
        item.setData(COL_TOOL, Qt.ItemDataRole.UserRole, ("tool", row.name))
        item.setToolTip(COL_TOOL, f"{row.name}\n{row.description}".strip())
        item.setToolTip(COL_STATE, sees_tip(row))
        if row.visibility == "search_only":
            item.setFont(COL_STATE, bold)
        if row.promoted:
            item.setFont(COL_STATE, bold)
            item.setToolTip(COL_STATE, "Deferred, and promoted in this conversation: its schema is sent")
        if highlighted:
            for column in range(len(HEADERS)):
                item.setBackground(column, QBrush(accent))
            item.setToolTip(COL_STATE, "The model loaded this tool in its last turn")
        if row.state != "builtin":
            item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
            item.setCheckState(COL_PIN, Qt.CheckState.Checked if row.state == "pinned" else Qt.CheckState.Unchecked)
            item.setCheckState(
                COL_EXCLUDE, Qt.CheckState.Checked if row.state == "excluded" else Qt.CheckState.Unchecked
            )
            item.setToolTip(COL_PIN, "Always send this tool's schema (never deferred)")
            item.setToolTip(COL_EXCLUDE, "Never offer this tool to the model")
        return item

    @staticmethod
    def _server_of(item: QTreeWidgetItem) -> str:
        data = item.data(COL_TOOL, Qt.ItemDataRole.UserRole)
        return str(data[1]) if isinstance(data, tuple) and data[0] == "server" else ""

    def _on_current_changed(self, current: QTreeWidgetItem | None, _previous: QTreeWidgetItem | None) -> None:
        data = current.data(COL_TOOL, Qt.ItemDataRole.UserRole) if current is not None else None
        row = self._rows.get(data[1]) if isinstance(data, tuple) and data[0] == "tool" else None
        if row is None:
            self.detail.clear()
        else:
            self.detail.setPlainText(detail_text(row))

    # -- pin and exclude -------------------------------------------------------------------------------

    def find_item(self, name: str) -> QTreeWidgetItem | None:
        """The row of a tool (by model-facing name) or a server (by name), if it is listed."""
        for index in range(self.tree.topLevelItemCount()):
            group = self.tree.topLevelItem(index)
            if group is None:
                continue
            if self._server_of(group) == name:
                return group
            for child_index in range(group.childCount()):
                child = group.child(child_index)
                if child is not None and child.data(COL_TOOL, Qt.ItemDataRole.UserRole) == ("tool", name):
                    return child
        return None

    def _on_item_changed(self, item: QTreeWidgetItem, column: int) -> None:
        if self._filling or column not in (COL_PIN, COL_EXCLUDE):
            return
        data = item.data(COL_TOOL, Qt.ItemDataRole.UserRole)
        on = item.checkState(column) == Qt.CheckState.Checked
        # Saving rebuilds the list, which deletes ``item``: never while Qt is still inside its signal.
        QTimer.singleShot(0, lambda: self._toggle(data, column, on))

    def _toggle(self, data: object, column: int, on: bool) -> None:
        if isinstance(data, tuple) and data[0] == "server":
            self.set_server_pinned(str(data[1]), on)
        elif isinstance(data, tuple) and data[0] == "tool":
            row = self._rows.get(str(data[1]))
            if row is not None:
                self.set_tool_flag(row, "pin" if column == COL_PIN else "exclude", on)

    def set_server_pinned(self, server: str, on: bool) -> bool:
        return self._save(server, lambda prefs: prefs.pin_server(on))

    def set_tool_flag(self, row: ToolRow, flag: str, on: bool) -> bool:
        if flag == "pin":
            if row.pinned_by_server and not on:
                self._show_notice(f"Every tool of '{row.server}' is pinned; unpin the server to choose single tools.")
                self.refresh()
                return False
            return self._save(row.server, lambda prefs: prefs.pin_tool(row.tool, on))
        return self._save(row.server, lambda prefs: prefs.exclude_tool(row.tool, on))

    def _save(self, server: str, change: Callable[[Any], Any]) -> bool:
        from desktop_app.runtime.errors import ConfigError
        from desktop_app.runtime.tools.prefs import ToolPreferences, save_tool_preferences

        config = getattr(self._host, "config", lambda _name: None)(server)
        ok = False
        if config is None or self._mcp_config is None:
            self._show_notice(f"Pins and exclusions of '{server}' cannot be saved: it is not a server from mcp.json.")
        else:
            try:
                save_tool_preferences(self._mcp_config, self._host, server, change(ToolPreferences.of(config)))
                ok = True
                self._show_notice("")
            except (ConfigError, OSError, ValueError) as exc:
                self._show_notice(f"Could not save the change to mcp.json; nothing was changed. {exc}")
        self.refresh()  # shows the new state, or puts the checkbox back
        return ok

    def _show_notice(self, text: str) -> None:
        self.notice.setText(text)
        self.notice.setVisible(bool(text))


__all__ = ["ToolPanel", "detail_text", "summary_text"]  # texts: texts.py; the dock: dock.py
