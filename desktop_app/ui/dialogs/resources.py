"""Attach resource…: a non-modal dialog listing each ready server's resources; the chosen one becomes a chip.

Each ready server's resources (``Host.list_resources``) are listed under the server (name, URI, MIME type);
a server that has none or cannot list them says so in its row. Attaching reads the resource as prompt text
(``Runtime.resource_prompt_text``) and adds it to the composer as a context chip, so it goes with the next
prompt. Loading and reading run as tasks (never ``exec()``); failures show in the dialog's status line.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QHeaderView,
    QLabel,
    QPushButton,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from desktop_app.ui.asyncqt import TaskRunner
from desktop_app.ui.chat.common import ERROR_COLOR
from desktop_app.ui.naming import name_buttons

RESOURCE_ROLE = Qt.ItemDataRole.UserRole


class ResourcesDialog(QDialog):
    """Lists resources and attaches the chosen one to ``composer``.

    Signals:
        attached(str): a resource was added to the composer (the chip's key).
    """

    attached = Signal(str)

    def __init__(self, runtime: Any, host: Any, composer: Any, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("resourcesDialog")
        self.setWindowTitle("Attach a resource")
        self.setModal(False)
        self.resize(720, 420)
        self.runtime, self.host, self.composer = runtime, host, composer
        self.tasks = TaskRunner(on_error=self._on_task_error)
        layout = QVBoxLayout(self)
        layout.addWidget(QLabel("Resources of the ready MCP servers. The one you attach goes with your next message."))
        self.tree = QTreeWidget()
        self.tree.setObjectName("resourceTree")
        self.tree.setAccessibleName("MCP resources")
        self.tree.setHeaderLabels(["Name", "URI", "Type"])
        self.tree.header().setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        self.tree.itemDoubleClicked.connect(self._on_double_clicked)
        self.tree.currentItemChanged.connect(self._on_current_changed)
        layout.addWidget(self.tree, 1)
        self.status = QLabel("")
        self.status.setObjectName("resourcesStatus")
        self.status.setWordWrap(True)
        layout.addWidget(self.status)
        buttons = QDialogButtonBox()
        self.refresh_button = QPushButton("Refresh")
        self.refresh_button.clicked.connect(self.refresh)
        buttons.addButton(self.refresh_button, QDialogButtonBox.ButtonRole.ResetRole)
        self.attach_button = QPushButton("Attach")
        self.attach_button.setObjectName("attachResourceButton")
        self.attach_button.setEnabled(False)
        self.attach_button.clicked.connect(self._on_attach_clicked)
        buttons.addButton(self.attach_button, QDialogButtonBox.ButtonRole.AcceptRole)
        close = buttons.addButton(QDialogButtonBox.StandardButton.Close)
        close.clicked.connect(self.close)
        name_buttons(buttons, "resources")
        layout.addWidget(buttons)
        self.loading = 0
        self.refresh()

    # -- listing -----------------------------------------------------------------------------------------

    def refresh(self) -> None:
        """List the resources of every ready server again."""
        self.tree.clear()
        ready = [name for name, status in self.host.states().items() if status.state == "ready"]
        if not ready:
            self._say("No MCP server is ready. Start one (View → Servers) and press Refresh.")
            return
        self._say("Loading…")
        for server in ready:
            row = QTreeWidgetItem([server, "", ""])
            row.setFirstColumnSpanned(True)
            row.setFlags(Qt.ItemFlag.ItemIsEnabled)
            self.tree.addTopLevelItem(row)
            row.setExpanded(True)
            self.loading += 1
            self.tasks.start(self._load(server, row), name=f"list-resources-{server}")

    async def _load(self, server: str, row: QTreeWidgetItem) -> None:
        try:
            resources = await self.host.list_resources(server)
        except Exception as exc:
            resources, note = [], f"cannot list resources: {exc}"
        else:
            note = "" if resources else "no resources"
        finally:
            self.loading -= 1
        for resource in resources:
            name = resource.title or resource.name
            item = QTreeWidgetItem([name, str(resource.uri), resource.mime_type or ""])
            item.setData(0, RESOURCE_ROLE, (server, str(resource.uri), name))
            item.setToolTip(0, resource.description or name)
            row.addChild(item)
        if note:
            row.setText(0, f"{server} — {note}")
        if self.loading == 0:
            self._say("Choose a resource and press Attach (or double-click it).")

    def resources(self) -> list[tuple[str, str, str]]:
        """``(server, uri, name)`` of every listed resource."""
        found = []
        for i in range(self.tree.topLevelItemCount()):
            row = self.tree.topLevelItem(i)
            for j in range(row.childCount() if row is not None else 0):
                child = row.child(j) if row is not None else None
                data = child.data(0, RESOURCE_ROLE) if child is not None else None
                if data:
                    found.append(tuple(data))
        return found

    # -- attaching ---------------------------------------------------------------------------------------

    def _on_current_changed(self, current: QTreeWidgetItem | None, _previous: QTreeWidgetItem | None) -> None:
        self.attach_button.setEnabled(current is not None and bool(current.data(0, RESOURCE_ROLE)))

    def _on_double_clicked(self, item: QTreeWidgetItem, _column: int) -> None:
        data = item.data(0, RESOURCE_ROLE)
        if data:
            self.attach(*data)

    def _on_attach_clicked(self) -> None:
        item = self.tree.currentItem()
        data = item.data(0, RESOURCE_ROLE) if item is not None else None
        if data:
            self.attach(*data)

    def attach(self, server: str, uri: str, name: str) -> None:
        """Read ``uri`` and add it to the composer as a context chip (in the background)."""
        self.attach_button.setEnabled(False)
        self._say(f"Reading {uri}…")
        self.tasks.start(self._attach(server, uri, name), name="attach-resource")

    async def _attach(self, server: str, uri: str, name: str) -> None:
        from desktop_app.runtime.context import ContextItem

        try:
            text = await self.runtime.resource_prompt_text(server, uri)
        finally:
            self.attach_button.setEnabled(self.tree.currentItem() is not None)
        key = self.composer.add_context(ContextItem(kind="note", label=f"Resource: {name}", text=text))
        self._say(f"Attached {name}. It goes with your next message.")
        self.attached.emit(key)

    def _say(self, text: str, error: bool = False) -> None:
        self.status.setText(text)
        self.status.setStyleSheet(f"QLabel {{ color: {ERROR_COLOR}; }}" if error else "")

    def _on_task_error(self, exc: BaseException) -> None:
        self._say(f"Could not attach the resource: {exc}", error=True)

    def closeEvent(self, event: Any) -> None:
        self.tasks.cancel_pending()
        super().closeEvent(event)


__all__ = ["ResourcesDialog"]
