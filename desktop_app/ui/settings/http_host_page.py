"""Settings → MCP over HTTP: serve this Switchboard's agents (and chosen MCP servers) to other MCP clients.

The generated fields are ``Settings.http_host.enabled`` and ``port`` (off by default; 0 is a free port).
:class:`HttpHostPanel` adds what a form cannot: the user's servers to serve too (check boxes; saved as
``http_host.expose``), the host's state (its URL, or why it is not serving), the bearer token (kept in the
keyring, never shown; "Regenerate token"), "Copy connection config" for Claude Desktop, VS Code or Cursor,
and the connected clients and their latest calls, live (a client without a session, 2026-07-28, by its last
activity: "active 2 min ago", idle after a while; redrawn every 30 s). Saving applies the settings at once: the host
starts, restarts on another port or stops, without restarting the app.
"""

from __future__ import annotations

import json
import time
from typing import Any

from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
)

from desktop_app.ui.chat.common import ERROR_COLOR
from desktop_app.ui.settings.form import MUTED_STYLE
from desktop_app.ui.settings.registry import FormSection, PageContext, PageExtra, SettingsPage, register_page

CLIENT_COLUMNS = ("Client", "Protocol", "Connected since", "Last activity", "Calls", "State")
CALL_COLUMNS = ("Time", "Client", "Tool", "Status", "Duration")
MAX_CALL_ROWS = 50
ACTIVITY_REFRESH_MS = 30_000  # "active N min ago" and the idle state follow the clock


def _clock(stamp: float) -> str:
    return time.strftime("%H:%M:%S", time.localtime(stamp)) if stamp else ""


def _section(text: str) -> QLabel:
    label = QLabel(text)
    label.setStyleSheet("QLabel { font-weight: 600; }")
    return label


class HttpHostPanel(PageExtra):
    def __init__(self, context: PageContext) -> None:
        super().__init__(context.parent)
        from desktop_app.runtime.serve.service import CONFIG_FILES

        self.context = context
        self.ui = _ui_for(context)
        self.service = self.ui.service
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(8)

        self.state = QLabel("")
        self.state.setObjectName("httpHostState")
        self.state.setWordWrap(True)
        self.state.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        layout.addWidget(self.state)

        layout.addWidget(_section("Also serve these MCP servers"))
        self.servers = QListWidget()
        self.servers.setObjectName("httpHostServers")
        self.servers.setAccessibleName("MCP servers whose tools are served too")
        self.servers.setMaximumHeight(84)
        self.servers.itemChanged.connect(lambda _item: self.changed.emit())
        layout.addWidget(self.servers)

        layout.addWidget(_section("Connecting a client"))
        token_row = QHBoxLayout()
        self.token_note = QLabel("")
        self.token_note.setObjectName("httpHostTokenNote")
        self.token_note.setWordWrap(True)
        self.token_note.setStyleSheet(MUTED_STYLE)
        token_row.addWidget(self.token_note, 1)
        self.regenerate = QPushButton("Regenerate token")
        self.regenerate.setObjectName("httpHostRegenerateToken")
        self.regenerate.setAccessibleName("Regenerate the bearer token")
        self.regenerate.setToolTip("Clients configured with the old token stop working until you copy the config again")
        self.regenerate.clicked.connect(self.regenerate_token)
        token_row.addWidget(self.regenerate)
        layout.addLayout(token_row)
        copy_row = QHBoxLayout()
        self.client_choice = QComboBox()
        self.client_choice.setObjectName("httpHostClientChoice")
        self.client_choice.setAccessibleName("Client to copy the connection config for")
        for name, where in CONFIG_FILES.items():
            self.client_choice.addItem(name, where)
        self.client_choice.currentIndexChanged.connect(lambda _i: self._show_where())
        copy_row.addWidget(self.client_choice)
        self.copy = QPushButton("Copy connection config")
        self.copy.setObjectName("httpHostCopyConfig")
        self.copy.setAccessibleName("Copy the connection config")
        self.copy.clicked.connect(self.copy_config)
        copy_row.addWidget(self.copy)
        copy_row.addStretch(1)
        layout.addLayout(copy_row)
        self.where = QLabel("")
        self.where.setObjectName("httpHostConfigWhere")
        self.where.setWordWrap(True)
        self.where.setStyleSheet(MUTED_STYLE)
        layout.addWidget(self.where)

        layout.addWidget(_section("Connected clients"))
        self.clients = QTreeWidget()
        self.clients.setObjectName("httpHostClients")
        self.clients.setAccessibleName("MCP clients connected over HTTP")
        self.clients.setHeaderLabels(list(CLIENT_COLUMNS))
        self.clients.setRootIsDecorated(False)
        self.clients.setMaximumHeight(110)
        layout.addWidget(self.clients)
        layout.addWidget(_section("Their latest calls"))
        self.calls = QTreeWidget()
        self.calls.setObjectName("httpHostCalls")
        self.calls.setAccessibleName("Tool calls made over HTTP")
        self.calls.setHeaderLabels(list(CALL_COLUMNS))
        self.calls.setRootIsDecorated(False)
        self.calls.setMinimumHeight(130)
        layout.addWidget(self.calls)

        self._fill_servers(context.runtime.settings.http_host.expose)
        self._unsubscribe = [self.service.subscribe(self.refresh), self.service.clients.subscribe(self._on_clients)]
        self.destroyed.connect(lambda *_: self._close())
        self.activity_timer = QTimer(self)
        self.activity_timer.setInterval(ACTIVITY_REFRESH_MS)
        self.activity_timer.timeout.connect(self.refresh_clients)
        self.activity_timer.start()
        self._show_where()
        self.refresh()
        self.refresh_clients()
        self.refresh_calls()

    def _close(self) -> None:
        for unsubscribe in self._unsubscribe:
            unsubscribe()
        self._unsubscribe.clear()

    # -- servers -----------------------------------------------------------------------------------------

    def _fill_servers(self, chosen: list[str]) -> None:
        host = self.context.host
        names: list[str] = []
        if host is not None and hasattr(host, "states"):
            is_builtin = getattr(host, "is_builtin", lambda _n: False)
            names = [n for n in host.states() if not is_builtin(n)]
        names += [n for n in chosen if n not in names]  # a chosen server no longer configured stays visible
        self.servers.blockSignals(True)
        self.servers.clear()
        for name in sorted(names):
            item = QListWidgetItem(name)
            item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
            item.setCheckState(Qt.CheckState.Checked if name in chosen else Qt.CheckState.Unchecked)
            self.servers.addItem(item)
        if not names:
            item = QListWidgetItem("No MCP servers yet: add them in the Servers panel")
            item.setFlags(Qt.ItemFlag.NoItemFlags)
            self.servers.addItem(item)
        self.servers.blockSignals(False)

    def chosen_servers(self) -> list[str]:
        items = [self.servers.item(i) for i in range(self.servers.count())]
        checkable = [i for i in items if i.flags() & Qt.ItemFlag.ItemIsUserCheckable]
        return [i.text() for i in checkable if i.checkState() == Qt.CheckState.Checked]

    def contribute(self, data: dict[str, Any]) -> None:
        data["http_host"]["expose"] = self.chosen_servers()

    def apply(self, settings: Any) -> None:
        self.ui.apply(settings, self.context.tasks)

    # -- state, token, configs ---------------------------------------------------------------------------

    def refresh(self) -> None:
        service = self.service
        if service.state == "serving":
            self.state.setText(f"Serving MCP on {service.url}")
            self.state.setStyleSheet("QLabel { font-weight: 600; }")
        elif service.state == "failed":
            self.state.setText(service.error)
            self.state.setStyleSheet(f"QLabel {{ color: {ERROR_COLOR}; }}")
        elif service.state == "starting":
            self.state.setText("Starting…")
            self.state.setStyleSheet(MUTED_STYLE)
        else:
            self.state.setText("Not serving. Turn it on above and press Save.")
            self.state.setStyleSheet(MUTED_STYLE)
        credentials = self.service.credentials
        kept = "in the system keyring" if getattr(credentials, "persistent", True) else "in memory for this session"
        self.token_note.setText(
            f"Clients send a bearer token, kept {kept} (service switchboard, entry serve-token). It is never "
            "shown or logged; the copied config holds it."
        )
        self.copy.setEnabled(service.state == "serving")
        self.copy.setToolTip("" if service.state == "serving" else "Start serving first: the config names the URL")

    def _show_where(self) -> None:
        self.where.setText(f"Paste it into {self.client_choice.currentData()}.")

    def copy_config(self) -> str:
        """The chosen client's config for the running host, on the clipboard (returned too)."""
        config = self.service.configs().get(self.client_choice.currentText())
        if config is None:
            return ""
        text = json.dumps(config, indent=2)
        QGuiApplication.clipboard().setText(text)
        self.where.setText(
            f"Copied the {self.client_choice.currentText()} config (with the token): paste it into "
            f"{self.client_choice.currentData()}."
        )
        return text

    def regenerate_token(self) -> None:
        self.service.regenerate_token()
        self.where.setText("A new token is in force: copy the connection config again for each client.")

    # -- clients and calls -------------------------------------------------------------------------------

    def _on_clients(self, what: str) -> None:
        if what == "clients":
            self.refresh_clients()
        else:
            self.refresh_calls()

    def refresh_clients(self) -> None:
        from desktop_app.runtime.serve.clients import activity

        self.clients.clear()
        log = self.service.clients
        for client in sorted(log.clients.values(), key=lambda c: -c.last_seen):
            row = QTreeWidgetItem(
                [
                    client.label,
                    client.protocol,
                    _clock(client.connected_at),
                    activity(max(0.0, log.clock() - client.last_seen)),
                    str(client.calls),
                    log.state(client),
                ]
            )
            row.setToolTip(3, f"Last request at {_clock(client.last_seen)}")
            if client.sessionless:
                row.setToolTip(5, "No session (2026-07-28): shown by its last activity, idle after 5 min")
            self.clients.addTopLevelItem(row)
        if not self.service.clients.clients:
            self.clients.addTopLevelItem(QTreeWidgetItem(["No client has connected yet"]))
        for column in range(len(CLIENT_COLUMNS)):
            self.clients.resizeColumnToContents(column)

    def refresh_calls(self) -> None:
        self.calls.clear()
        for call in list(reversed(self.service.clients.calls))[:MAX_CALL_ROWS]:
            duration = "" if call.duration_s is None else f"{call.duration_s:.1f} s"
            row = QTreeWidgetItem([_clock(call.started_at), call.client_label, call.tool, call.status, duration])
            if call.detail:
                row.setToolTip(3, call.detail)
            if call.status in ("error", "denied"):
                row.setForeground(3, ERROR_COLOR.qcolor())
            self.calls.addTopLevelItem(row)
        for column in range(len(CALL_COLUMNS) - 1):
            self.calls.resizeColumnToContents(column)


def _ui_for(context: PageContext) -> Any:
    from desktop_app.ui.servers.http_host import attach_http_host

    window = context.parent.parentWidget() if context.parent is not None else None
    return attach_http_host(window, context.runtime, context.host)


register_page(
    SettingsPage(
        key="http_host",
        title="MCP over HTTP",
        order=60,
        description=(
            "Serve your agents as MCP over streamable HTTP on 127.0.0.1, so editors, Claude Desktop and other "
            "Switchboards on this computer can use them. Every call needs the bearer token; calls that need "
            "approval ask you here first, and hooks run on them as on your own."
        ),
        sections=(FormSection("http_host", fields=("enabled", "port")),),
        extra=HttpHostPanel,
    )
)
