"""Settings → Apps: MCP App views (issue 26) on or off, and which servers may show them.

The generated field is ``Settings.apps.enabled`` (off: tools show their text results only and Qt WebEngine is
never loaded). :class:`AppsPanel` lists the user's MCP servers with a check box each (checked: its views are
shown; unchecked servers are saved as ``apps.blocked_servers``). A server learns the change at its next
connection (MCP Apps is advertised when it connects); views are shown or not from the next tool result on.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QListWidget, QListWidgetItem, QVBoxLayout

from desktop_app.ui.settings.form import MUTED_STYLE
from desktop_app.ui.settings.registry import FormSection, PageContext, PageExtra, SettingsPage, register_page

NO_SERVERS = "No MCP servers yet: add them in the Servers panel"


class AppsPanel(PageExtra):
    """The per-server allow list (see the module docstring)."""

    def __init__(self, context: PageContext) -> None:
        super().__init__(context.parent)
        self.context = context
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        title = QLabel("Servers that may show views")
        title.setStyleSheet("QLabel { font-weight: 600; }")
        layout.addWidget(title)
        self.servers = QListWidget()
        self.servers.setObjectName("appsServers")
        self.servers.setAccessibleName("MCP servers whose app views are shown")
        self.servers.setMaximumHeight(140)
        self.servers.itemChanged.connect(lambda _item: self.changed.emit())
        layout.addWidget(self.servers)
        note = QLabel(
            "A view runs in a sandbox: it reaches only the web addresses its server declared, cannot read your "
            "files, and asks you before it calls a tool, opens a link or sends a message. A server learns the "
            "change the next time it connects."
        )
        note.setWordWrap(True)
        note.setStyleSheet(MUTED_STYLE)
        layout.addWidget(note)
        self._fill(context.runtime.settings.apps.blocked_servers)

    def _fill(self, blocked: list[str]) -> None:
        host = self.context.host
        names: list[str] = []
        if host is not None and hasattr(host, "states"):
            is_builtin = getattr(host, "is_builtin", lambda _n: False)
            names = [n for n in host.states() if not is_builtin(n)]
        names += [n for n in blocked if n not in names]  # a blocked server no longer configured stays listed
        self.servers.blockSignals(True)
        self.servers.clear()
        for name in sorted(names):
            item = QListWidgetItem(name)
            item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
            item.setCheckState(Qt.CheckState.Unchecked if name in blocked else Qt.CheckState.Checked)
            self.servers.addItem(item)
        if not names:
            item = QListWidgetItem(NO_SERVERS)
            item.setFlags(Qt.ItemFlag.NoItemFlags)
            self.servers.addItem(item)
        self.servers.blockSignals(False)

    def blocked_servers(self) -> list[str]:
        items = [self.servers.item(i) for i in range(self.servers.count())]
        checkable = [i for i in items if i.flags() & Qt.ItemFlag.ItemIsUserCheckable]
        return [i.text() for i in checkable if i.checkState() == Qt.CheckState.Unchecked]

    def contribute(self, data: dict[str, Any]) -> None:
        data["apps"]["blocked_servers"] = self.blocked_servers()


register_page(
    SettingsPage(
        key="apps",
        title="Apps",
        order=55,
        description=(
            "Some MCP servers come with interactive views (MCP Apps): a chart, a form, a document viewer shown "
            "in the conversation, which you can use and which can call its server's tools."
        ),
        sections=(FormSection("apps", fields=("enabled",)),),
        extra=AppsPanel,
    )
)
