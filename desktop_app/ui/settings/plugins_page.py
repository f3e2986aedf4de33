"""Settings → Plugins: the installed plugins, what each contributes, and Install folder…, Enable…, Disable,
Remove… and Trust hooks….

Plugins install disabled. **Enable…** first shows everything the plugin would add — MCP servers and the
programs they start, skills, hooks and what they run, prompts, agents (and what of them is not usable here)
and permissions — and enables it only when confirmed; its servers start at once, its agents are served as
``chat-with-<plugin>.<agent>``, its prompts join the ``/`` menu, its skills the next conversation, and its
hooks stay untrusted (listed as such) until **Trust hooks…**, which trusts their
current content (an edited hook is "modified" and off again). **Remove…** takes away everything the plugin
contributed: its mcp.json servers (stopped, their tools gone from the catalog), agents (their ``chat-with-``
servers withdrawn), hooks and their trust records, settings record and files. Every action applies at once
(not part of Save), through :mod:`desktop_app.runtime.plugins.manage` and :mod:`desktop_app.runtime.plugins.live`.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QMessageBox,
    QPushButton,
    QScrollArea,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
)

from desktop_app.ui.asyncqt import TaskRunner
from desktop_app.ui.chat.common import ERROR_COLOR
from desktop_app.ui.dialogs.frame import message_box
from desktop_app.ui.settings.registry import PageContext, PageExtra, SettingsPage, register_page
from desktop_app.ui.tree_items import select_first, top_level_items

log = logging.getLogger(__name__)
COLUMNS = ("Plugin", "Version", "Format", "State")


class PluginsPage(PageExtra):
    """The list of plugins, the selected one's contributions, and the actions."""

    def __init__(self, context: PageContext) -> None:
        super().__init__(context.parent)
        self.context = context
        self.setObjectName("pluginsPage")
        self.tasks = context.tasks or TaskRunner(on_error=self._on_task_failed)
        self.dialog: Any = None
        self.busy: Any = None
        """The running enable/disable/remove (tests wait for it)."""
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(8)
        self.filter = QLineEdit(self)
        self.filter.setObjectName("pluginsFilter")
        self.filter.setPlaceholderText("Filter plugins by name, format or state…")
        self.filter.setAccessibleName("Filter plugins")
        self.filter.setClearButtonEnabled(True)
        self.filter.textChanged.connect(self._apply_filter)
        layout.addWidget(self.filter)
        self.tree = QTreeWidget(self)
        self.tree.setObjectName("pluginsList")
        self.tree.setAccessibleName("Installed plugins")
        self.tree.setHeaderLabels(list(COLUMNS))
        self.tree.setRootIsDecorated(False)
        self.tree.setMaximumHeight(140)
        self.tree.currentItemChanged.connect(lambda *_: self._show_selected())
        layout.addWidget(self.tree)
        buttons = QHBoxLayout()
        self.install_button = QPushButton("Install folder…")
        self.install_button.setObjectName("installPluginButton")
        self.install_button.setToolTip("Install a plugin folder (Claude Code layout or whale-plugin.toml), disabled")
        self.enable_button = QPushButton("Enable…")
        self.enable_button.setObjectName("enablePluginButton")
        self.disable_button = QPushButton("Disable")
        self.disable_button.setObjectName("disablePluginButton")
        self.trust_button = QPushButton("Trust hooks…")
        self.trust_button.setObjectName("trustPluginHooksButton")
        self.remove_button = QPushButton("Remove…")
        self.remove_button.setObjectName("removePluginButton")
        self.install_button.clicked.connect(self.choose_folder)
        self.enable_button.clicked.connect(self.ask_enable)
        self.disable_button.clicked.connect(lambda: self._run(self.disable()))
        self.trust_button.clicked.connect(self.ask_trust)
        self.remove_button.clicked.connect(self.ask_remove)
        for button in (self.install_button, self.enable_button, self.disable_button, self.trust_button):
            buttons.addWidget(button)
        buttons.addStretch(1)
        buttons.addWidget(self.remove_button)
        layout.addLayout(buttons)
        self.details = QLabel("")
        self.details.setObjectName("pluginDetails")
        self.details.setWordWrap(True)
        self.details.setTextFormat(Qt.TextFormat.RichText)
        self.details.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        self.details.setContentsMargins(4, 0, 4, 4)
        scroll = QScrollArea(self)
        scroll.setObjectName("pluginDetailsScroll")
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QScrollArea.Shape.NoFrame)
        scroll.setWidget(self.details)
        scroll.setMinimumHeight(300)
        layout.addWidget(scroll, 1)
        self.status = QLabel("")
        self.status.setObjectName("pluginsStatus")
        self.status.setWordWrap(True)
        layout.addWidget(self.status)
        self.refresh()

    # -- where things are ------------------------------------------------------------------------------

    @property
    def host(self) -> Any:
        return self.context.host if self.context.host is not None else getattr(self.context.runtime, "host", None)

    def places(self) -> Any:
        from desktop_app.paths import app_paths
        from desktop_app.runtime.plugins.manage import Places

        paths = app_paths().ensure()
        path = getattr(self.context.runtime, "settings_path", None) or paths.settings_file
        return Places(paths.data_dir, Path(path), paths.mcp_config_file)

    def selected(self) -> str | None:
        item = self.tree.currentItem()
        return None if item is None else item.data(0, Qt.ItemDataRole.UserRole)

    # -- the list --------------------------------------------------------------------------------------

    def refresh(self, select: str | None = None) -> None:
        from desktop_app.runtime.errors import ConfigError
        from desktop_app.runtime.plugins.manage import installed

        keep = select or self.selected()
        self.tree.clear()
        try:
            self.found = installed(self.places())
        except ConfigError as exc:  # a broken settings file: shown, never overwritten
            self.found = {}
            self._say(f"The plugins cannot be listed: {exc}. Fix the file first.", error=True)
        for plugin_id, (plugin, enabled) in self.found.items():
            version = plugin.version if plugin is not None else "(files missing)"
            fmt = {"claude": "Claude Code", "whale": "Whale"}.get(plugin.format, "") if plugin else ""
            item = QTreeWidgetItem([plugin_id, version, fmt, "Enabled" if enabled else "Disabled"])
            item.setData(0, Qt.ItemDataRole.UserRole, plugin_id)
            self.tree.addTopLevelItem(item)
            if plugin_id == keep:
                self.tree.setCurrentItem(item)
        if not self.found:
            empty = QTreeWidgetItem(["No plugins yet: Install folder… adds one (it starts disabled)."])
            empty.setFlags(Qt.ItemFlag.NoItemFlags)
            self.tree.addTopLevelItem(empty)
        elif self.tree.currentItem() is None:
            select_first(self.tree)
        for column in range(len(COLUMNS)):
            self.tree.resizeColumnToContents(column)
        self._apply_filter(self.filter.text())
        self._show_selected()

    def _apply_filter(self, text: str) -> None:
        needle = text.strip().lower()
        for item in top_level_items(self.tree):
            cells = " ".join(item.text(c) for c in range(len(COLUMNS))).lower()
            item.setHidden(bool(needle) and needle not in cells)

    def _show_selected(self) -> None:
        from desktop_app.runtime.plugins.live import plugin_hooks
        from desktop_app.ui.extensions.plugin_review import contributions_html

        plugin_id = self.selected()
        plugin, enabled = self.found.get(plugin_id, (None, False)) if plugin_id else (None, False)
        states = plugin_hooks(self.host, self.places(), plugin_id) if plugin_id and enabled else []
        if plugin is not None:
            self.details.setText(contributions_html(plugin, hook_states=states or None))
        else:
            self.details.setText("" if plugin_id is None else "Its files are missing: Remove… cleans up the rest.")
        untrusted = [s for s in states if s.state in ("untrusted", "modified")]
        self.enable_button.setEnabled(plugin is not None and not enabled)
        self.disable_button.setEnabled(plugin is not None and enabled)
        self.trust_button.setEnabled(bool(untrusted))
        self.remove_button.setEnabled(plugin_id is not None)

    # -- actions ---------------------------------------------------------------------------------------

    def choose_folder(self) -> QFileDialog:
        dialog = QFileDialog(self, "Install plugin folder")
        dialog.setFileMode(QFileDialog.FileMode.Directory)
        dialog.fileSelected.connect(lambda path: self.install(Path(path)))
        self.dialog = dialog
        dialog.open()
        return dialog

    def install(self, folder: Path) -> None:
        from desktop_app.runtime.plugins import manage
        from desktop_app.runtime.plugins.model import PluginError

        try:
            plugin = manage.install(folder, self.places())
        except (PluginError, OSError) as exc:
            self._say(f"Could not install {folder}: {exc}", error=True)
            return
        self._sync()
        self.refresh(select=plugin.id)
        self._say(f"Installed {plugin.id}, disabled. Enable… shows what it adds before it does.")

    def ask_enable(self) -> Any:
        from desktop_app.ui.extensions.plugin_review import EnablePluginDialog

        plugin_id = self.selected()
        plugin = self.found.get(plugin_id, (None, False))[0] if plugin_id else None
        if plugin is None:
            return None
        dialog = EnablePluginDialog(plugin, self)
        dialog.accepted.connect(lambda: self._run(self.enable(plugin.id)))
        self.dialog = dialog
        dialog.open()
        return dialog

    def ask_trust(self) -> QMessageBox:
        from desktop_app.runtime.plugins.live import plugin_hooks

        plugin_id = self.selected() or ""
        hooks = [h for h in plugin_hooks(self.host, self.places(), plugin_id) if h.state in ("untrusted", "modified")]
        listing = "\n".join(f"• {h.entry.event}: {h.entry.body}" for h in hooks)
        box = message_box(
            self,
            "Trust plugin hooks",
            f"Let these hooks of {plugin_id} run? Each is trusted as it is now; an edited hook stops again.\n\n"
            f"{listing}",
            icon="lock",
            tone="warning",
            primary=("Trust", QMessageBox.ButtonRole.AcceptRole),
        )
        box.setObjectName("trustPluginHooksConfirm")
        trust = box.defaultButton()
        trust.setObjectName("confirmTrustPluginHooksButton")
        trust.clicked.connect(lambda: self.trust(plugin_id))
        self.dialog = box
        box.open()
        return box

    def ask_remove(self) -> QMessageBox:
        plugin_id = self.selected() or ""
        box = message_box(
            self,
            "Remove plugin",
            f"Remove {plugin_id}? Its servers stop and leave mcp.json; its hooks, their trust, its settings and "
            "its files are removed.",
            icon="delete",
            tone="danger",
            primary=("Remove", QMessageBox.ButtonRole.DestructiveRole),
        )
        box.setObjectName("removePluginConfirm")
        remove = box.defaultButton()
        remove.setObjectName("confirmRemovePluginButton")
        remove.clicked.connect(lambda: self._run(self.remove(plugin_id)))
        self.dialog = box
        box.open()
        return box

    async def enable(self, plugin_id: str) -> None:
        from desktop_app.runtime.plugins import manage

        await self._change(lambda: manage.enable(plugin_id, self.places()), plugin_id, "Enabled {id}")

    async def disable(self) -> None:
        from desktop_app.runtime.plugins import manage

        plugin_id = self.selected() or ""
        await self._change(lambda: manage.disable(plugin_id, self.places()), plugin_id, "Disabled {id}")

    async def remove(self, plugin_id: str) -> None:
        from desktop_app.runtime.plugins import manage

        await self._change(lambda: manage.remove(plugin_id, self.places()), None, f"Removed {plugin_id}")

    def trust(self, plugin_id: str) -> None:
        from desktop_app.runtime.plugins.live import trust_plugin_hooks

        keys = trust_plugin_hooks(self.host, self.places(), plugin_id)
        self.refresh(select=plugin_id)
        self._say(f"Trusted {len(keys)} hook(s) of {plugin_id}; they run from now on.")

    async def _change(self, work: Any, select: str | None, done: str) -> None:
        from desktop_app.runtime.errors import SwitchboardError
        from desktop_app.runtime.plugins.live import apply_live

        try:
            work()
        except (SwitchboardError, OSError) as exc:
            self._say(str(exc), error=True)
            return
        self._sync()
        started: list[str] = []
        if self.host is not None and hasattr(self.host, "apply_servers"):
            actions = self._server_actions()
            reload = actions.reload_from_disk if actions is not None else None
            started = await apply_live(self.host, self.places(), reload_servers=reload)
        await self._apply_agents()
        self.refresh(select=select)
        text = done.format(id=select)
        self._say(text + (f"; started {', '.join(started)}." if started else "."))

    # -- helpers ---------------------------------------------------------------------------------------

    async def _apply_agents(self) -> None:
        """Serve the enabled plugins' agents as ``chat-with-<plugin>.<agent>``, and withdraw the others."""
        from desktop_app.paths import app_paths
        from desktop_app.runtime.agents.files import apply_agents

        runtime = self.context.runtime
        if runtime is None or getattr(runtime, "agents", None) is None or self.host is None:
            return
        for problem in await apply_agents(runtime, self.host, app_paths().config_dir):
            log.warning("%s", problem)

    def _server_actions(self) -> Any:
        window = self.context.parent.parent() if self.context.parent is not None else None
        panel = getattr(getattr(window, "servers_dock", None), "panel", None)
        return getattr(panel, "server_actions", None)

    def _sync(self) -> None:
        from desktop_app.runtime.plugins.live import sync_records

        try:
            sync_records(self.context.runtime, self.places().settings_file)
        except Exception as exc:  # a broken settings file: the change is on disk, the runtime keeps its copy
            log.warning("could not adopt the plugin records: %s", exc)

    def _run(self, work: Any) -> None:
        self.busy = self.tasks.start(work, name="plugin-change")

    def _say(self, text: str, *, error: bool = False) -> None:
        self.status.setStyleSheet(f"color: {ERROR_COLOR};" if error else "")
        self.status.setText(text)

    def _on_task_failed(self, exc: BaseException) -> None:
        log.error("plugin action failed", exc_info=exc)
        self._say(f"Something went wrong ({type(exc).__name__}: {exc}).", error=True)

    def apply(self, settings: Any) -> None:
        self.refresh()


register_page(
    SettingsPage(
        key="plugins",
        title="Plugins",
        order=46,
        description=(
            "Plugins bundle MCP servers, skills, hooks, prompts and agents (Claude Code's .claude-plugin layout or "
            "Whale's whale-plugin.toml). They install disabled; enabling one shows what it adds first, and its hooks "
            "run only once you trust them. Changes here apply at once."
        ),
        extra=PluginsPage,
    )
)
