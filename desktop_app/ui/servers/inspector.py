"""The Servers dock's lower half: the selected server's actions and what it offers.

A header with the server's name and Edit…, Disable/Enable and Remove (built-ins can only be looked at; the
buttons go under the name, wrapped, when the panel is narrow: ``action_row``),
then tabs: Tools (name and description, from ``Host.tools``), Resources and Prompts (asked from the
server when it is ready, through ``Host.list_resources`` / ``list_prompts``), and Log (the server's log
messages and stderr tail, :class:`~desktop_app.ui.servers.log_view.ServerLogView`).

A list row shows the first line of a description; the whole of it (wrapped, selectable) is in the pane under
the list for the selected row, and in the row's tooltip.

A failed server says why in full under the header (wrapped, selectable, with what to do), and its tabs say
they are empty because of that, in a line that spans the list (never cut at the first column).
"""

from __future__ import annotations

import logging
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QFrame,
    QLabel,
    QPushButton,
    QScrollArea,
    QTabWidget,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from desktop_app.ui.asyncqt import TaskRunner, async_slot
from desktop_app.ui.chat.common import ERROR_COLOR, MUTED_COLOR
from desktop_app.ui.flow import ButtonFlow
from desktop_app.ui.servers.action_row import NarrowTabBar, ServerTitle
from desktop_app.ui.servers.log_view import ServerInfo, ServerLogView, first_line, reason_text
from desktop_app.ui.theme.tokens import SPACE
from desktop_app.ui.wrap_row import WrapRow

log = logging.getLogger(__name__)


def _tree(name: str, accessible: str, columns: list[str]) -> QTreeWidget:
    tree = QTreeWidget()
    tree.setObjectName(name)
    tree.setAccessibleName(accessible)
    tree.setHeaderLabels(columns)
    tree.setRootIsDecorated(False)
    tree.setWordWrap(True)
    tree.setUniformRowHeights(False)
    tree.setColumnWidth(0, 170)
    return tree


DETAIL = Qt.ItemDataRole.UserRole + 1  # a row's whole description, shown in the pane under its list


def _with_detail(tree: QTreeWidget, name: str) -> tuple[QWidget, QLabel]:
    """``tree`` over a pane with the selected row's whole description (wrapped, scrolling when long)."""
    box = QWidget()
    layout = QVBoxLayout(box)
    layout.setContentsMargins(0, 0, 0, 0)
    layout.setSpacing(0)
    layout.addWidget(tree, 3)
    detail = QLabel("")
    detail.setObjectName(name)
    detail.setAccessibleName("The selected row's whole description")
    detail.setWordWrap(True)
    detail.setTextFormat(Qt.TextFormat.PlainText)
    detail.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    detail.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
    detail.setContentsMargins(8, 6, 8, 6)
    scroll = QScrollArea()
    scroll.setObjectName(f"{name}Scroll")
    scroll.setWidgetResizable(True)
    scroll.setFrameShape(QFrame.Shape.NoFrame)
    scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
    scroll.setWidget(detail)
    scroll.setMinimumHeight(detail.fontMetrics().lineSpacing() * 3 + 12)
    layout.addWidget(scroll, 1)

    def show(current: QTreeWidgetItem | None, _previous: object = None) -> None:
        text = current.data(0, DETAIL) if current is not None else None
        detail.setText(text if isinstance(text, str) else "")
        scroll.setVisible(bool(detail.text()))

    tree.currentItemChanged.connect(show)
    scroll.hide()
    return box, detail


def placeholder(tree: QTreeWidget, text: str) -> QTreeWidgetItem:
    """A line saying why a list is empty, across all its columns (readable in full, wrapped if need be)."""
    item = QTreeWidgetItem(tree, [text])
    item.setFirstColumnSpanned(True)
    item.setToolTip(0, text)
    return item


def unavailable_text(info: ServerInfo | None) -> str:
    """What an empty tab of a server that is not ready says."""
    if info is not None and info.state == "failed":
        return "Not available: the server failed to start."  # (its reason is above the tabs)
    if info is not None and info.state == "disabled":
        return "The server is disabled."
    return "Shown when the server is ready."


def _row(tree: QTreeWidget, cells: list[str], description: str | None) -> QTreeWidgetItem:
    """A row with the description's first line in its last cell and the whole of it for the detail pane."""
    item = QTreeWidgetItem(tree, cells)
    whole = (description or "").strip()
    item.setToolTip(len(cells) - 1, whole)
    heading = cells[0]
    item.setData(0, DETAIL, f"{heading}\n\n{whole}" if whole else None)
    return item


class ServerInspector(QWidget):
    """Actions and contents of one server.

    Signals:
        edit_requested(str), remove_requested(str): the user asked to edit or remove the server;
        enable_requested(str, bool): enable (True) or disable (False) it.
    """

    edit_requested = Signal(str)
    enable_requested = Signal(str, bool)
    remove_requested = Signal(str)

    def __init__(self, log_view: ServerLogView, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("serverInspector")
        self.server: str | None = None
        self.info: ServerInfo | None = None
        self.tasks = TaskRunner(on_error=self._on_task_failed)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.title = ServerTitle()  # the name elided (whole in its tooltip), never cut through a letter
        self.edit_button = QPushButton("Edit…")
        self.edit_button.setObjectName("editServerButton")
        self.toggle_button = QPushButton("Disable")
        self.toggle_button.setObjectName("toggleServerButton")
        self.remove_button = QPushButton("Remove")
        self.remove_button.setObjectName("removeServerButton")
        for button in (self.edit_button, self.toggle_button, self.remove_button):
            button.setEnabled(False)
        self.edit_button.clicked.connect(self._on_edit)
        self.toggle_button.clicked.connect(self._on_toggle)
        self.remove_button.clicked.connect(self._on_remove)
        self.action_buttons = ButtonFlow([self.edit_button, self.toggle_button, self.remove_button])
        self.header = WrapRow(self.title, self.action_buttons)  # the buttons under the title (and wrapped) when narrow
        self.header.setObjectName("serverInspectorHeader")
        layout.addWidget(self.header)
        self.note = QLabel("")
        self.note.setWordWrap(True)
        self.note.setStyleSheet(f"color: {MUTED_COLOR};")
        self.note.hide()
        layout.addWidget(self.note)
        self.failure = QLabel("")
        self.failure.setObjectName("serverFailure")
        self.failure.setAccessibleName("Why the server failed")
        self.failure.setWordWrap(True)
        self.failure.setTextFormat(Qt.TextFormat.PlainText)
        self.failure.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.failure.setStyleSheet(
            f"QLabel {{ color: {ERROR_COLOR}; border: 1px solid {ERROR_COLOR}; border-radius: 4px; padding: 4px 8px; }}"
        )
        self.failure.hide()
        layout.addWidget(self.failure)

        self.tabs = QTabWidget()
        self.tabs.setObjectName("serverTabs")
        self.tabs.setAccessibleName("Server details")
        # A narrow panel elides the tabs' titles ("Re…", whole in their tooltips) before it scrolls them (a dock at
        # its narrowest); their padding is the scale's small step, so the four fit the panel of an 800 px window.
        self.tabs.setTabBar(NarrowTabBar(self.tabs))
        self.tabs.tabBar().setObjectName("serverTabBar")
        self.tabs.setElideMode(Qt.TextElideMode.ElideRight)
        self.tabs.setStyleSheet(f"QTabBar::tab {{ padding: {SPACE.xs}px {SPACE.sm}px; }}")
        self.tools = _tree("serverToolsList", "Tools of the selected server", ["Tool", "Description"])
        self.resources = _tree(
            "serverResourcesList", "Resources of the selected server", ["Resource", "URI", "Description"]
        )
        self.prompts = _tree("serverPromptsList", "Prompts of the selected server", ["Prompt", "Description"])
        self.detail_labels: dict[str, QLabel] = {}
        for tree, title, key in (
            (self.tools, "Tools", "tool"),
            (self.resources, "Resources", "resource"),
            (self.prompts, "Prompts", "prompt"),
        ):
            box, self.detail_labels[key] = _with_detail(tree, f"server{key.capitalize()}Detail")
            self.tabs.setTabToolTip(self.tabs.addTab(box, title), title)  # whole, when elided
        self.tabs.setTabToolTip(self.tabs.addTab(log_view, "Log"), "Log")
        layout.addWidget(self.tabs, 1)
        self._loaded: tuple[str, str] | None = None

    def _on_edit(self) -> None:
        if self.server:
            self.edit_requested.emit(self.server)

    def _on_remove(self) -> None:
        if self.server:
            self.remove_requested.emit(self.server)

    def _on_toggle(self) -> None:
        if self.server is not None and self.info is not None:
            self.enable_requested.emit(self.server, self.info.state == "disabled")

    def show_server(self, name: str | None, info: ServerInfo | None, host: Any, *, managed: bool) -> None:
        """Show ``name`` (``None``: nothing selected); ``managed``: its entry can be edited in mcp.json."""
        self.server, self.info = name, info
        editable = name is not None and info is not None and not info.builtin and managed
        for button in (self.edit_button, self.toggle_button, self.remove_button):
            button.setEnabled(editable)
        self._show_failure(info)
        if name is None or info is None:
            self.title.set_server(None)
            self.tools.clear()
            self.resources.clear()
            self.prompts.clear()
            return
        kind = "built-in server" if info.builtin else "MCP server"
        self.title.set_server(name, kind)
        disabled = info.state == "disabled"
        self.toggle_button.setText("Enable" if disabled else "Disable")
        for button, verb in ((self.edit_button, "Edit"), (self.remove_button, "Remove")):
            button.setAccessibleName(f"{verb} MCP server {name}")
        self.toggle_button.setAccessibleName(f"{'Enable' if disabled else 'Disable'} MCP server {name}")
        if info.builtin:
            self._set_note("Built into Switchboard: it starts on first use and cannot be edited or removed.")
        elif not managed:
            self._set_note("Servers can be edited once Switchboard knows its mcp.json (start the app normally).")
        else:
            self._set_note("")
        self._show_tools(name, host)
        key = (name, info.state)
        if info.state == "ready" and self._loaded != key and hasattr(host, "list_resources"):
            self._loaded = key
            self.load_contents(name, host)
        elif info.state != "ready":
            self._loaded = None
            for tree in (self.resources, self.prompts):
                tree.clear()
                placeholder(tree, unavailable_text(info))

    def _show_failure(self, info: ServerInfo | None) -> None:
        """A failed server's whole reason, and what to do about it."""
        reason = reason_text(info.error) if info is not None and info.state == "failed" else ""
        if reason and info is not None:
            waiting = info.deadline is not None
            fix = "Press Restart to try again." if info.builtin else "Fix it (Edit…), then press Restart."
            todo = "It restarts by itself." if waiting else fix
            self.failure.setText(f"{'Stopped' if waiting else 'Failed to start'}: {reason}\n{todo}")
        self.failure.setVisible(bool(reason))

    def _set_note(self, text: str) -> None:
        self.note.setText(text)
        self.note.setVisible(bool(text))

    def _show_tools(self, name: str, host: Any) -> None:
        self.tools.clear()
        try:
            tools = host.tools(include_excluded=True)
        except TypeError:  # an older host without the include_excluded keyword
            tools = host.tools()
        except Exception:
            tools = []
        mine = sorted((t for t in tools if t.server == name), key=lambda t: t.tool)
        for tool in mine:
            item = _row(self.tools, [tool.tool, first_line(tool.description, 400)], tool.description)
            if getattr(tool, "excluded", False):
                item.setText(0, f"{tool.tool} (excluded)")
        if not mine:
            ready = self.info is not None and self.info.state == "ready"
            placeholder(self.tools, "This server offers no tools." if ready else unavailable_text(self.info))
        self.tabs.setTabText(0, f"Tools ({len(mine)})" if mine else "Tools")
        if mine:
            first = self.tools.topLevelItem(0)
            if first is not None:
                self.tools.setCurrentItem(first)  # its whole description in the pane

    @async_slot
    async def load_contents(self, name: str, host: Any) -> None:
        """Ask the server for its resources and prompts (a server without them shows that)."""
        for tree, method, label in (
            (self.resources, "list_resources", "resources"),
            (self.prompts, "list_prompts", "prompts"),
        ):
            tree.clear()
            lister = getattr(host, method, None)
            if lister is None:
                continue
            try:
                items = await lister(name)
            except Exception as exc:
                if self.server == name:
                    tree.clear()
                    placeholder(tree, f"Could not list its {label}: {first_line(str(exc), 300)}")
                continue
            if self.server != name:
                return
            for entry in items:
                if label == "resources":
                    cells = [entry.name, str(entry.uri), first_line(entry.description or "", 300)]
                else:
                    cells = [entry.name, first_line(entry.description or "", 300)]
                _row(tree, cells, entry.description)
            if not items:
                placeholder(tree, f"This server offers no {label}.")
            index = 1 if label == "resources" else 2
            self.tabs.setTabText(index, f"{label.capitalize()} ({len(items)})" if items else label.capitalize())

    def tree_texts(self, tree: QTreeWidget, column: int = 0) -> list[str]:
        items = (tree.topLevelItem(i) for i in range(tree.topLevelItemCount()))
        return [item.text(column) for item in items if item is not None]

    def _on_task_failed(self, exc: BaseException) -> None:
        log.warning("server inspector task failed", exc_info=exc)

    def select_tab(self, title_start: str) -> None:
        for index in range(self.tabs.count()):
            if self.tabs.tabText(index).startswith(title_start):
                self.tabs.setCurrentIndex(index)
                return


__all__ = ["ServerInspector"]
