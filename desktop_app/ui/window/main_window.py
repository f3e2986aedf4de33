"""The main window: transcript, composer, menus and status bar around one ``ChatController``.

The window exists before the runtime does (start-up shows "Starting…" until ``attach_runtime``), so the
first paint never waits for the MCP stack to import. Failures of any coroutine the window starts are shown
inline in the transcript and in the status bar.

This module owns construction and the runtime/host attachment; the rest is done by collaborators the window
holds, one module each, each owning its own state: ``window.menus`` (``menu_bar``: the menu bar and its
actions), ``window.conversation_ctl`` (``conversation_ctl``: the list, the store, reopening stored
conversations), ``window.provider`` (``provider``: model label and picker, settings in force), ``window.turns``
(``turns``: run controls and turn actions), ``window.files`` (``files``: launch files, bundles, MCP features) and
``window.dialogs`` (``dialogs``: the dialogs, each through one ``DialogSlot``). The names other modules use on
the window itself (``open_conversation``, ``store``, ``new_chat_action``…) pass through to their owner
(``ui.delegate.Delegated``).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QCloseEvent, QDragEnterEvent, QDropEvent, QKeySequence, QShortcut
from PySide6.QtWidgets import QLabel, QMainWindow, QVBoxLayout, QWidget

from desktop_app.ui.asyncqt import TaskRunner
from desktop_app.ui.chat.composer import Composer
from desktop_app.ui.chat.view import ChatView
from desktop_app.ui.delegate import Delegated
from desktop_app.ui.error_text import describe_exception
from desktop_app.ui.window.conversation_ctl import ConversationControl
from desktop_app.ui.window.dialogs import WindowDialogs
from desktop_app.ui.window.files import FileIntake
from desktop_app.ui.window.later_parts import Later
from desktop_app.ui.window.menu_bar import MenuBar
from desktop_app.ui.window.menus import order_menus
from desktop_app.ui.window.provider import ProviderDisplay
from desktop_app.ui.window.turns import TurnControl

log = logging.getLogger(__name__)


if TYPE_CHECKING:
    from desktop_app.ui.chat.controller import ChatController, RuntimeLike
    from desktop_app.ui.chat.find import FindBar
    from desktop_app.ui.extensions.import_dialog import McpImporter
    from desktop_app.ui.servers.dock import ServersDock
    from desktop_app.ui.servers.requests import ServerRequests
    from desktop_app.ui.tools.dock import ToolsDock
    from desktop_app.ui.window.docks import DockRoom


class MainWindow(QMainWindow):
    """Switchboard's main window."""

    # The menu bar's actions (``window.menus``).
    new_chat_action = Delegated("menus")
    import_action = Delegated("menus")
    install_extension_action = Delegated("menus")
    quit_action = Delegated("menus")
    provider_action = Delegated("menus")
    approvals_action = Delegated("menus")
    roots_action = Delegated("menus")
    # The conversation list and the store (``window.conversation_ctl``).
    conversations = Delegated("conversation_ctl", "panel")
    conversations_dock = Delegated("conversation_ctl", "dock")
    store = Delegated("conversation_ctl")
    store_warning = Delegated("conversation_ctl")
    attach_store = Delegated("conversation_ctl")
    open_conversation = Delegated("conversation_ctl")
    # Settings in force (``window.provider``).
    apply_settings = Delegated("provider")
    # Turn actions (``window.turns``).
    switch_version = Delegated("turns")
    # Files and MCP features (``window.files``).
    add_launch_files = Delegated("files")
    mcp_host = Delegated("files")
    slash = Delegated("files")
    _pending_bundles = Delegated("files", "pending_bundles")
    # Dialogs (``window.dialogs``).
    provider_dialog = Delegated("dialogs")
    approvals_dialog = Delegated("dialogs")
    resources_dialog = Delegated("dialogs")
    roots_dialog = Delegated("dialogs")
    settings_window = Delegated("dialogs")
    open_settings_window = Delegated("dialogs")
    open_resources_dialog = Delegated("dialogs")
    open_roots_dialog = Delegated("dialogs")
    open_provider_dialog = Delegated("dialogs")
    open_approvals_dialog = Delegated("dialogs")
    detect_local_on_welcome = Delegated("dialogs")

    def __init__(self, parent: QWidget | None = None, *, defer_rest: bool = False) -> None:
        """The window; ``defer_rest``: build only what the first paint shows (see ``build_rest``)."""
        super().__init__(parent)
        self.setObjectName("mainWindow")
        self.setWindowTitle("Switchboard")
        self.resize(980, 760)
        self.menus = MenuBar(self)
        self.conversation_ctl = ConversationControl(self)
        self.provider = ProviderDisplay(self)
        self.turns = TurnControl(self)
        self.files = FileIntake(self)
        self.dialogs = WindowDialogs(self)
        self.tasks = TaskRunner(on_error=self.show_exception)
        self.runtime: RuntimeLike | None = None
        self.controller: ChatController | None = None
        self.settings_listeners: list[Callable[[object], None]] = []  # called after saved settings are applied
        self.shortcut_actions: dict[str, QAction] = {}
        """``Settings.shortcuts`` field name → the action whose shortcut it sets (see ``apply_settings``)."""
        self.rest_built = False

        central = QWidget()
        self._column = QVBoxLayout(central)
        self._column.setContentsMargins(0, 0, 0, 0)
        self._column.setSpacing(0)
        self.view = ChatView()
        self._column.addWidget(self.view, 1)
        self.composer = Composer()
        self.composer.setEnabled(False)
        self.composer.submitted.connect(self._on_submitted)
        self.composer.stop_requested.connect(self.turns.on_stop_requested)
        self._column.addWidget(self.composer)
        self.setCentralWidget(central)

        self.conversation_ctl.build()
        from desktop_app.ui.window.empty_states import EmptyStates

        self.empty_states = EmptyStates(self)  # no provider, no conversations… (``window.empty_states``)

        from desktop_app.ui.window.status_text import install_status_text

        self.status: QLabel = install_status_text(self.statusBar(), "Starting…")  # elided, messages too
        self.model_label = QLabel("")
        self.model_label.setObjectName("modelLabel")
        self.statusBar().addPermanentWidget(self.model_label)
        self.menus.build()
        self.importer: McpImporter | None = None
        self.extensions: Any = None  # File → Install extension… and .mcpb drops (ui/extensions/install.py)
        self.setAcceptDrops(True)
        self.mcp_config_path: Path | None = None
        self.composer.edit.setFocus()
        if not defer_rest:
            self.build_rest()

    def build_rest(self) -> None:
        """What the first paint does not show: the key banner, Esc and the tab order, and (unless
        ``wait_for_ready``) the later parts: the find bar, the server-request cards, the hidden Servers and Tools
        docks and the Help menu (``later_parts``). The app calls it right after the first paint
        (``MainWindow(defer_rest=True)``); without ``defer_rest`` the constructor does. Once."""
        if self.rest_built:
            return
        self.rest_built = True
        from desktop_app.ui.window.key_banner import install_key_banner
        from desktop_app.ui.window.later_parts import LaterParts

        self.key_banner = install_key_banner(self, self._column)  # "Enter key" when the provider's key is missing
        self.later_parts = LaterParts(self)
        self.stop_shortcut = QShortcut(QKeySequence(Qt.Key.Key_Escape), self)
        self.stop_shortcut.activated.connect(self.turns.on_stop_requested)
        self._set_tab_order()
        if not self.wait_for_ready:
            self.later_parts.build()

    wait_for_ready = False
    """True (the app): what no first prompt needs waits for ``after_ready``, which the app calls right after
    ``runtime: ready``: the later parts (``build_rest`` leaves them; anything that needs one sooner builds them
    then) and ``greet`` (the welcome screen or the key check, which read the keyring)."""

    def build_later(self) -> None:
        """The find bar, the server-request cards, the hidden docks and the Help menu (``later_parts``), once."""
        self.build_rest()
        self.later_parts.build()

    servers_dock: Later[ServersDock] = Later("servers")
    tools_dock: Later[ToolsDock] = Later("tools")
    dock_room: Later[DockRoom] = Later("room")
    find_bar: Later[FindBar] = Later("find_bar")
    server_requests: Later[ServerRequests] = Later("server_requests")
    about_action: Later[QAction] = Later("about_action")

    def _set_tab_order(self) -> None:
        """Tab follows the reading order; the focused stop shows a ring (``window.focus``)."""
        from desktop_app.ui.window.focus import install_focus_within, set_tab_order

        if getattr(self, "_focus_within", None) is None:
            self._focus_within = install_focus_within(self.composer.edit, self.composer.field)
        set_tab_order(self)

    def attach_runtime(self, runtime: RuntimeLike) -> ChatController:
        """Connect the (late-created) runtime; asks for a provider at first run."""
        from desktop_app.ui.chat.controller import ChatController

        self.build_rest()
        self.runtime = runtime
        controller = ChatController(runtime, self)
        self.view.follow(controller)
        self.turns.connect(controller)  # run signals in the status bar; the view's per-turn requests
        controller.store_failed.connect(self.conversation_ctl.on_store_failed)
        for signal in (controller.run_started, controller.run_finished, controller.run_failed):
            signal.connect(self.conversation_ctl.on_activity)
        controller.run_failed.connect(self.key_banner.on_run_failed)
        self.controller = controller
        self.later_parts.attach_runtime(runtime, lambda: controller.conversation_id)  # now or once the dock is built
        from desktop_app.ui.chat.agent_picker import install_agent_picker
        from desktop_app.ui.window.agent_menu import add_agent_menu

        self.agent_picker = install_agent_picker(self, runtime, lambda: controller.conversation_id)
        picked = self.agent_picker.pick if self.agent_picker is not None else None
        self.agent_menu = add_agent_menu(
            self, runtime, lambda: controller.conversation_id, self.set_status, pick=picked
        )
        order_menus(self)  # the Agent menu came in: Help stays last
        self.files.attach_composer(runtime, controller)
        self._prepare_on_first_keystroke(runtime)
        from desktop_app.ui.chat.compaction import install_compaction

        self.compaction = install_compaction(self, runtime, lambda: controller.conversation_id)  # #16
        self.composer.setEnabled(True)
        self.menus.provider_action.setEnabled(True)
        self.menus.approvals_action.setEnabled(True)
        self.menus.settings_action.setEnabled(True)
        self.provider.apply_settings(runtime.settings)
        self.provider.show_round_limit()
        self._set_tab_order()  # again: the runtime brought more composer buttons (the agent picker)
        self.composer.edit.setFocus()
        self.provider.show()
        configured = runtime.provider_settings.configured
        self.set_status("Ready" if configured else "Choose a model provider to start (Settings → Provider…)")
        if not self.wait_for_ready:
            self.greet()
        return controller

    def greet(self) -> None:
        """The first run's welcome screen, else the question for a missing key, and the chat's empty state
        (these read the keyring): at ``attach_runtime``, or with ``after_ready`` in the app."""
        if self.runtime is None:
            return
        self.empty_states.refresh()
        if not self.runtime.provider_settings.configured:
            self.dialogs.open_welcome()
        else:
            self.key_banner.check_start()

    def after_ready(self) -> None:
        """What ``wait_for_ready`` left for right after ``runtime: ready``: ``greet``, then the later parts."""
        if self.wait_for_ready:
            self.greet()
        self.build_later()

    def _prepare_on_first_keystroke(self, runtime: RuntimeLike) -> None:
        """Start-up leaves out what only a run needs (the provider's HTTP stack, the MCP SDK behind the
        built-in servers, the run loop, the compactor and the hooks): the first keystroke in the composer
        imports them in worker threads, so a prompt typed after start-up does not wait for them and an
        untouched window never holds them."""

        def prepare(_text: str = "") -> None:
            self.composer.edit.textChanged.disconnect(prepare)
            self.tasks.start(self._prepare_first_run(runtime), name="prepare-first-run")

        self.composer.edit.textChanged.connect(prepare)

    async def _prepare_first_run(self, runtime: object) -> None:
        import asyncio
        import importlib

        await asyncio.to_thread(importlib.import_module, "desktop_app.runtime.providers.factory")
        for step in (getattr(runtime, "prepare_runs", None), getattr(getattr(runtime, "host", None), "prepare", None)):
            if step is not None:
                await step()
        from desktop_app.ui.asyncqt import release_freed_memory

        release_freed_memory()  # the imports' temporaries (pydantic schema building) back to the OS

    def attach_host(self, host: object, *, credentials: object = None, mcp_config: Path | None = None) -> None:
        """Show ``host``'s servers in the Servers dock (before ``host.start()``, to see every event), and
        enable File → Import MCP servers… into ``mcp_config`` with ``credentials``."""
        self.build_rest()
        self.servers_dock.panel.secret_prompt.credentials = credentials
        self.servers_dock.panel.attach(host)
        self.tools_dock.panel.attach_host(host, mcp_config)
        self.files.attach_mcp_features(host)
        if mcp_config is not None and credentials is not None:
            from desktop_app.ui.extensions.import_dialog import McpImporter

            self.mcp_config_path = mcp_config
            self.importer = McpImporter(self, target=mcp_config, credentials=credentials)
            self.importer.imported.connect(self.dialogs.on_servers_imported)
            self.menus.import_action.setEnabled(True)
            from desktop_app.ui.extensions.install import ExtensionInstaller

            self.extensions = ExtensionInstaller(self, credentials, self.dialogs.on_servers_imported)
            self.menus.install_extension_action.setEnabled(True)
            self.files.open_pending_bundles()
            if hasattr(host, "apply_servers"):  # Add…, Edit…, Enable/Disable, Remove; mcp.json followed on disk
                from desktop_app.runtime.host.manage import ServerManager

                manager = ServerManager(host, mcp_config, credentials)  # type: ignore[arg-type]
                self.servers_dock.panel.attach_manager(manager, import_opener=self.dialogs.open_importer)

    def set_status(self, text: str) -> None:
        self.status.setText(text)

    def show_exception(self, exc: BaseException) -> None:
        """The error display for failed coroutines and slots: inline in the chat, and in the status bar."""
        log.error("error shown to the user", exc_info=exc)
        self.view.show_error(describe_exception(exc))
        self.set_status("Error — see the conversation")

    def _on_submitted(self, prompt: str) -> None:
        if self.controller is None or self.runtime is None:
            return
        attachments, context = self.composer.outgoing()
        self.view.add_user_message(prompt).show_sent(attachments, context)  # files and chips under the text
        if not self.runtime.provider_settings.configured:
            self.view.show_error("No model provider is set up yet. Open Settings → Provider… and try again.")
            self.composer.set_text(prompt)
            self.composer.restore(attachments, context)
            self.dialogs.open_provider_dialog(first_run=True)
            return
        self.tasks.start(self.controller.send(prompt, attachments=attachments, context=context), name="send")

    def runtime_model(self) -> str:
        return self.runtime.provider_settings.model if self.runtime is not None else ""

    def new_chat(self) -> None:
        """File → New chat (Ctrl+N), the list's New chat: a fresh conversation in the window."""
        if self.controller is None:
            return
        self.controller.stop()
        self.controller.new_conversation()
        self.view.clear()
        self.conversations.set_current(None)
        self.show_title(None)
        self.provider.show()
        self.tools_dock.panel.schedule_refresh()
        self.set_status("Ready")
        self.composer.edit.setFocus()

    close_interceptor: Callable[[], bool] | None = None
    """Asked first when the window closes; ``True`` keeps the app running (close to tray)."""

    state_path: Path | None = None
    """Where the window's geometry, docks and splitters are kept (``window.state``); None: not kept."""

    def restore_state(self, path: Path) -> bool:
        """Put geometry, docks and splitters back from ``path`` (the docks are built first if they were
        deferred). The geometry again after ``restore_geometry``: the shell's minimum size may have differed
        from the restored layout's (a hidden Conversations dock)."""
        from desktop_app.ui.window import state as window_state

        self.build_rest()
        self.state_path = path
        with self.dock_room.quiet():  # the stored dock sizes, as they were
            return window_state.restore(self, path)

    def restore_geometry(self, path: Path) -> bool:
        """Only the size, place and maximised state from ``path``: before the first paint, when the docks
        that ``restore_state`` puts back may not exist yet."""
        from desktop_app.ui.window import state as window_state

        self.state_path = path
        return window_state.restore(self, path, layout=False)

    def save_state(self) -> None:
        if self.wait_for_ready and not (self.rest_built and self.later_parts.built):
            return  # quit before the docks and the stored layout were put back: that layout stays as it was
        if self.state_path is not None:
            from desktop_app.ui.window import state as window_state

            window_state.save(self, self.state_path)

    def find_in_conversation(self) -> None:
        self.find_bar.open()

    def show_title(self, title: str | None) -> None:
        """The window title names the open conversation."""
        self.setWindowTitle(f"{title} — Switchboard" if title else "Switchboard")

    def closeEvent(self, event: QCloseEvent) -> None:
        if self.close_interceptor is not None and self.close_interceptor():
            event.ignore()
            return
        self.save_state()
        if self.controller is not None:
            self.controller.stop()
            self.controller.close()
        super().closeEvent(event)

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        if self.files.drop_target(event) is not None:  # a .mcpb bundle: the install screen
            event.acceptProposedAction()
        else:
            super().dragEnterEvent(event)

    def dropEvent(self, event: QDropEvent) -> None:
        bundle = self.files.drop_target(event)
        if bundle is not None:
            event.acceptProposedAction()
            self.extensions.open_bundle(bundle)
        else:
            super().dropEvent(event)
