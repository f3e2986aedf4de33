"""The Servers dock: every MCP server's state, a Restart button, and its log and stderr.

Host events (``Host.subscribe``) arrive synchronously on the loop thread, which under qasync is the Qt
thread; :class:`~desktop_app.ui.servers.status.HostBridge` turns them into a Qt signal so the panel only
reacts to signals. Add…, Edit…, Enable/Disable, Remove and the mcp.json watcher are in
:mod:`desktop_app.ui.servers.manage`; a server's tools, resources and prompts in
:mod:`desktop_app.ui.servers.inspector`. Rows update
on events; the only timer is the restart countdown. A server that fails or dies is reported as a status-bar
notification ("what happened and what to do"), never as a dialog. The status-bar indicator
("MCP: 3 ready · 1 failed") toggles the dock, as does View → Servers.

Runtime types are only used for type checking: this module is imported before the first paint, when
pydantic and the MCP SDK must not be loaded yet (events are dispatched on their ``kind``).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from html import escape
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QEvent, QObject, Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from desktop_app.ui.asyncqt import TaskRunner, async_slot
from desktop_app.ui.chat.common import MUTED_COLOR
from desktop_app.ui.dialogs.secret_prompt import SecretPrompt, missing_entry
from desktop_app.ui.flow import ButtonFlow
from desktop_app.ui.servers.inspector import ServerInspector
from desktop_app.ui.servers.log_view import (
    LogLine,
    ServerInfo,
    ServerLogView,
    ServerRow,
    log_text,
    state_text,
)
from desktop_app.ui.servers.status import HostBridge, notification_text, origin_text, summary_text

if TYPE_CHECKING:
    from desktop_app.runtime.events import ServerLog, ServerStateChanged, ToolsChanged
    from desktop_app.runtime.host import Host
    from desktop_app.ui.servers.manage import ServerActions

COUNTDOWN_INTERVAL_MS = 250
# The row widget fills its item (the theme pads list items); selected, the theme's selection colour keeps the
# coloured state text readable (the application stylesheet).
SELECTION_STYLE = "QListWidget#serverList::item { padding: 0px; }"


class ServersPanel(QWidget):
    """The dock's content: the server list above, the selected server's details below."""

    summary_changed = Signal(str, bool)
    """The indicator text and whether any server is failed."""
    notification = Signal(str)
    """A server failed or died: a sentence for the status bar."""
    notification_over = Signal(str)
    """The state a server's notification described is over (it is ready, disabled or gone)."""
    notice = Signal(str)
    """What a management action or an outside edit of mcp.json did: a sentence for the status bar."""

    def __init__(
        self,
        parent: QWidget | None = None,
        *,
        tasks: TaskRunner | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("serversPanel")
        self.tasks = tasks or TaskRunner()
        self.clock = clock
        self.host: Host | Any = None
        self.servers: dict[str, ServerInfo] = {}
        self.rows: dict[str, ServerRow] = {}
        self._items: dict[str, QListWidgetItem] = {}
        self._notified: dict[str, str] = {}
        self.bridge = HostBridge(self)
        self.bridge.event_received.connect(self.on_event)
        self.countdown = QTimer(self)
        self.countdown.setInterval(COUNTDOWN_INTERVAL_MS)
        self.countdown.timeout.connect(self.tick)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        self.server_actions: ServerActions | None = None
        self.extension_bar: Any = None  # ui/extensions/manage.py, built with the manager (not at start-up)
        self.import_opener: Callable[[], object] | None = None
        self.add_button = QPushButton("Add…")
        self.add_button.setObjectName("addServerButton")
        self.add_button.setAccessibleName("Add an MCP server")
        self.add_button.setToolTip("Add a server by command (stdio) or URL (HTTP)")
        self.add_button.clicked.connect(self._on_add_clicked)
        self.import_button = QPushButton("Import…")
        self.import_button.setObjectName("importServersButton")
        self.import_button.setAccessibleName("Import MCP servers from another app")
        self.import_button.setToolTip("Find the servers Claude Desktop, VS Code or Cursor use, and pick some")
        self.import_button.clicked.connect(self._on_import_clicked)
        for button in (self.add_button, self.import_button):
            button.setEnabled(False)
        self.toolbar = ButtonFlow([self.add_button, self.import_button])  # wraps in a narrow panel, never cut
        layout.addWidget(self.toolbar)
        self.placeholder = QLabel("MCP servers appear here once Switchboard has started.")
        self.placeholder.setWordWrap(True)
        self.placeholder.setStyleSheet(f"color: {MUTED_COLOR};")
        layout.addWidget(self.placeholder)
        splitter = QSplitter(Qt.Orientation.Vertical)
        splitter.setObjectName("serversSplitter")  # its sizes are kept across restarts (window_state)
        self.list = QListWidget()
        self.list.setObjectName("serverList")
        self.list.setAccessibleName("MCP servers")
        self.list.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.list.setStyleSheet(SELECTION_STYLE)
        self.list.currentRowChanged.connect(self._on_current_row)
        self.list.viewport().installEventFilter(self)  # rows re-fit their wrapped text to a new width
        self.details = ServerLogView()
        self.details.refresh_button.clicked.connect(self.refresh_details)
        self.inspector = ServerInspector(self.details)
        self.inspector.edit_requested.connect(self._on_edit_requested)
        self.inspector.enable_requested.connect(self._on_enable_requested)
        self.inspector.remove_requested.connect(self._on_remove_requested)
        splitter.addWidget(self.list)
        splitter.addWidget(self.inspector)
        self.secret_prompt = SecretPrompt(self)  # "Enter secret…" for a missing ${keyring:…} entry
        self.secret_prompt.on_saved = self.restart
        layout.addWidget(self.secret_prompt)
        splitter.setStretchFactor(0, 2)
        splitter.setStretchFactor(1, 3)
        splitter.setSizes([240, 360])
        layout.addWidget(splitter, 1)

    # -- host --------------------------------------------------------------------------------------

    def attach(self, host: Host | Any) -> None:
        """Show ``host``'s servers and follow its events from now on."""
        self.host = host
        self.bridge.attach(host)
        for name, status in host.states().items():
            info = self._info(name, builtin=bool(getattr(status, "builtin", False)))
            info.state, info.error, info.tool_count = status.state, status.error, status.tool_count
            info.builtin, info.attempt = bool(getattr(status, "builtin", False)), status.attempt
            if status.state == "failed" and status.restart_in_s is not None:
                info.deadline = self.clock() + status.restart_in_s
            self._show(name)
        self.placeholder.setText("No MCP servers are configured. Use File → Import MCP servers… to add some.")
        self.placeholder.setVisible(not self.servers)
        if self.servers and self.list.currentRow() < 0:
            self.list.setCurrentRow(0)
        self._update_secret_prompt()
        self._summarize()

    def detach(self) -> None:
        self.bridge.detach()

    def mark_starting(self) -> None:
        """Show "Starting…" for every external server ``host.start()`` is about to connect.

        The host publishes no event when a connection begins, only when it is ready or failed.
        """
        for name, info in self.servers.items():
            if info.state == "idle" and not info.builtin:
                self._set_local_state(name, "starting")
        self._summarize()

    def _set_local_state(self, name: str, state: str) -> None:
        info = self.servers[name]
        info.state, info.deadline = state, None
        self._show(name)
        self.details.add(name, LogLine("state", state_text(info, self.clock())))

    def on_event(self, event: Any) -> None:
        """Apply one host event (``server_state``, ``server_log`` or ``tools_changed``)."""
        kind = getattr(event, "kind", None)
        if kind == "server_state":
            self._on_state(event)
        elif kind == "server_log":
            self._on_log(event)
        elif kind == "tools_changed":
            self._on_tools(event)

    def _on_state(self, event: ServerStateChanged) -> None:
        status = self.host.states().get(event.server) if event.server not in self.servers and self.host else None
        info = self._info(event.server, builtin=bool(getattr(status, "builtin", False)))  # e.g. skills added later
        info.state, info.error, info.attempt = event.state, event.error, event.attempt
        info.tool_count = event.tool_count if event.state == "ready" else 0
        info.deadline = (
            self.clock() + event.restart_in_s if event.state == "failed" and event.restart_in_s is not None else None
        )
        self._show(event.server)
        text = state_text(info, self.clock())
        reason = (event.error or "").strip()
        if event.state == "failed" and info.deadline is not None:
            text = f"Failed: {reason or 'stopped'}; {text[0].lower()}{text[1:]}"
        elif event.state == "failed":
            text = f"Failed: {reason or 'unknown error'}"  # the whole reason (the row's first line is cut)
        self.details.add(event.server, LogLine("state", text))
        if event.state == "failed":
            message = notification_text(event)
            if self._notified.get(event.server) != message:
                self._notified[event.server] = message
                self.notification.emit(message)
        elif event.state in ("ready", "disabled", "stopped") and self._notified.pop(event.server, ""):
            self.notification_over.emit(event.server)
        if event.state == "stopped" and self.host is not None and event.server not in self.host.states():
            self._drop(event.server)
            self._summarize()
            return
        if event.server == self.selected():
            self.refresh_details()
        self._update_secret_prompt()
        self._summarize()

    def _on_log(self, event: ServerLog) -> None:
        self.details.add(event.server, LogLine(event.level, log_text(event.data), event.logger))

    def _on_tools(self, event: ToolsChanged) -> None:
        info = self._info(event.server)
        info.tool_count = event.tool_count
        self._show(event.server)
        self.details.add(event.server, LogLine("state", f"Tool list changed: {event.tool_count} tools"))

    # -- rows --------------------------------------------------------------------------------------

    def _drop(self, name: str) -> None:
        """Forget a removed server's row."""
        self.servers.pop(name, None)
        self.rows.pop(name, None)
        item = self._items.pop(name, None)
        if item is not None:
            self.list.takeItem(self.list.row(item))
        self.placeholder.setVisible(not self.servers)
        self.refresh_details()

    def sync_rows(self) -> None:
        """Match the rows to the host's servers (after an add, a remove or a reload of mcp.json)."""
        if self.host is None:
            return
        states = self.host.states()
        for name in [n for n in self.servers if n not in states]:
            self._drop(name)
        for name, status in states.items():
            if name not in self.servers:
                info = self._info(name, builtin=bool(getattr(status, "builtin", False)))
                info.state, info.error, info.tool_count = status.state, status.error, status.tool_count
                info.builtin = bool(getattr(status, "builtin", False))
                self._show(name)
        self._summarize()
        self.refresh_details()

    def _info(self, name: str, *, builtin: bool = False) -> ServerInfo:
        """The server's info, with a new row for a server not shown yet: the user's servers come first,
        the built-ins after them."""
        info = self.servers.get(name)
        if info is None:
            info = self.servers[name] = ServerInfo(name, builtin=builtin)
            row = ServerRow(name)
            row.restart_requested.connect(self.restart)
            item = QListWidgetItem()
            item.setData(Qt.ItemDataRole.UserRole, name)
            mine = sum(1 for other in self.servers.values() if not other.builtin and other is not info)
            self.list.insertItem(self.list.count() if builtin else mine, item)
            self.list.setItemWidget(item, row)
            self.rows[name], self._items[name] = row, item
            self.placeholder.hide()
        return info

    def _show(self, name: str) -> None:
        row, item = self.rows[name], self._items[name]
        row.show_info(self.servers[name], self.clock())
        row.name_label.setText(f"<b>{escape(name)}</b>{origin_text(self._entry(name))}")
        row.ensurePolished()  # the theme's stylesheet (button padding, fonts) counts in the row's height
        for child in row.findChildren(QWidget):
            child.ensurePolished()
        item.setSizeHint(row.fit(self.list.viewport().width()))
        self._update_countdown()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        """The list got wider or narrower: every row takes its width (a long name is elided, Restart stays in
        view), and a failed server's wrapped reason takes more or fewer lines."""
        if watched is self.list.viewport() and event.type() == QEvent.Type.Resize:
            width = self.list.viewport().width()
            for name, row in self.rows.items():
                self._items[name].setSizeHint(row.fit(width))
        return False

    def row_text(self, name: str) -> str:
        return self.rows[name].state_label.text()

    def tick(self) -> None:
        """Advance the restart countdowns (the timer calls this; tests may call it after moving the clock)."""
        now = self.clock()
        for name, info in self.servers.items():
            if info.deadline is not None:
                self.rows[name].show_info(info, now)
        self._update_countdown()

    def _update_countdown(self) -> None:
        waiting = any(info.deadline is not None for info in self.servers.values())
        if waiting and not self.countdown.isActive():
            self.countdown.start()
        elif not waiting and self.countdown.isActive():
            self.countdown.stop()

    def _summarize(self) -> None:
        failed = any(info.state == "failed" for info in self.servers.values())
        self.summary_changed.emit(summary_text(self.servers), failed)

    # -- selection and details ---------------------------------------------------------------------

    def selected(self) -> str | None:
        item = self.list.currentItem()
        return None if item is None else str(item.data(Qt.ItemDataRole.UserRole))

    def select(self, name: str) -> None:
        self.list.setCurrentItem(self._items[name])

    def _on_current_row(self, _row: int) -> None:
        self.refresh_details()
        self._update_secret_prompt()

    def _update_secret_prompt(self) -> None:
        """Offer to enter the missing keyring entry of the selected server, else of the first that needs one."""
        selected = self.selected()
        candidates = [selected] if selected in self.servers else []
        candidates += [name for name in self.servers if name != selected]
        for name in candidates:
            info = self.servers[name]
            if info.state == "failed" and missing_entry(info.error):
                self.secret_prompt.show_for(name, info.error)
                return
        self.secret_prompt.show_for(None, None)

    def refresh_details(self) -> None:
        """Show the selected server's log and read its stderr tail from the host again."""
        name = self.selected()
        stderr = ""
        if name is not None and self.host is not None:
            try:
                stderr = self.host.stderr_tail(name)
            except Exception as exc:  # e.g. a server that is no longer configured
                stderr = f"(stderr is not available: {exc})"
        self.details.show_server(name, stderr)
        info = self.servers.get(name) if name is not None else None
        self.inspector.show_server(name, info, self.host, managed=self.server_actions is not None)
        if self.extension_bar is not None:  # an extension's Reconfigure…/Update…, a plugin's origin
            self.extension_bar.show_for(name, self._entry(name))

    def _entry(self, name: str | None) -> object:
        try:
            return self.server_actions.manager.entries().get(name) if self.server_actions is not None and name else None
        except Exception:  # a broken mcp.json is reported elsewhere
            return None

    # -- management ---------------------------------------------------------------------------------

    def attach_manager(self, manager: Any, *, import_opener: Callable[[], object] | None = None) -> ServerActions:
        """Enable Add…, Edit…, Enable/Disable and Remove through ``manager`` (a ``ServerManager``), and
        follow ``mcp.json`` on disk; ``import_opener`` opens the import preview."""
        from desktop_app.ui.extensions.manage import ExtensionBar
        from desktop_app.ui.servers.manage import ServerActions

        self.extension_bar = ExtensionBar(self, self.inspector)
        inspector_layout = self.inspector.layout()
        assert isinstance(inspector_layout, QVBoxLayout)  # the inspector is a column
        inspector_layout.insertWidget(1, self.extension_bar)
        actions = ServerActions(manager, self, tasks=self.tasks)
        actions.notice.connect(self.notice)
        actions.changed.connect(self.sync_rows)
        actions.changed.connect(self.extension_bar.sync)  # an uninstall changed the settings' records
        self.server_actions = actions
        self.import_opener = import_opener
        self.add_button.setEnabled(True)
        self.import_button.setEnabled(import_opener is not None)
        self.refresh_details()
        return actions

    def _on_add_clicked(self) -> None:
        if self.server_actions is not None:
            self.server_actions.open_dialog()

    def _on_import_clicked(self) -> None:
        if self.import_opener is not None:
            self.import_opener()

    def _on_edit_requested(self, name: str) -> None:
        if self.server_actions is not None:
            self.server_actions.open_dialog(name)

    def _on_enable_requested(self, name: str, enabled: bool) -> None:
        if self.server_actions is not None:
            if name in self.servers and enabled:
                self._set_local_state(name, "starting")
            self.server_actions.set_enabled(name, enabled)

    def _on_remove_requested(self, name: str) -> None:
        if self.server_actions is not None:
            self.server_actions.ask_remove(name)

    @async_slot
    async def restart(self, name: str) -> None:
        """Restart ``name`` by hand (also resets its automatic-restart backoff)."""
        if self.host is None:
            return
        self.details.add(name, LogLine("state", "Restart requested"))
        self._set_local_state(name, "starting")  # the host reports the outcome, not the beginning
        self._summarize()
        try:
            await self.host.restart(name)
        finally:
            if name == self.selected():
                self.refresh_details()
            self._show(name)


__all__ = [
    "HostBridge",
    "ServerInfo",
    "ServerRow",
    "ServersPanel",
    "notification_text",
    "state_text",
    "summary_text",
]
