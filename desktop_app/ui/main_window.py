"""The main window: transcript, composer, menus and status bar around one ``ChatController``.

The window exists before the runtime does (start-up shows "Starting…" until ``attach_runtime``), so the
first paint never waits for the MCP stack to import. Failures of any coroutine the window starts are shown
inline in the transcript and in the status bar.
"""

from __future__ import annotations

import itertools
import logging
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QCloseEvent, QKeySequence, QShortcut
from PySide6.QtWidgets import QLabel, QMainWindow, QVBoxLayout, QWidget

from desktop_app.runtime.errors import SwitchboardError
from desktop_app.ui.about import install_help_menu
from desktop_app.ui.asyncqt import TaskRunner, async_slot
from desktop_app.ui.chat.composer import Composer
from desktop_app.ui.chat.controller import ChatController, RuntimeLike
from desktop_app.ui.chat.retry import retry_headline
from desktop_app.ui.chat.view import ChatView
from desktop_app.ui.conversations import add_conversation_actions, install_conversations_dock
from desktop_app.ui.key_banner import install_key_banner
from desktop_app.ui.server_requests import ServerRequests
from desktop_app.ui.servers_panel import install_servers_dock
from desktop_app.ui.tool_panel import install_tools_dock
from desktop_app.ui.window_dialogs import WindowDialogs

log = logging.getLogger(__name__)


if TYPE_CHECKING:
    from desktop_app.runtime import events as ev
    from desktop_app.runtime.store import Store
    from desktop_app.ui.approvals_dialog import ApprovalsDialog
    from desktop_app.ui.chat.replay import ReopenRuntime
    from desktop_app.ui.chat.slash import SlashCommands
    from desktop_app.ui.chat.tool_card import ApprovalAnswer
    from desktop_app.ui.import_dialog import McpImporter
    from desktop_app.ui.provider_dialog import ProviderDialog
    from desktop_app.ui.resources_dialog import ResourcesDialog
    from desktop_app.ui.roots_dialog import RootsDialog
    from desktop_app.ui.settings.window import SettingsWindow


def describe_exception(exc: BaseException) -> str:
    """A user-facing sentence for an exception: our own errors already say what to do."""
    if isinstance(exc, SwitchboardError):
        return str(exc)
    return f"Something went wrong ({type(exc).__name__}: {exc}). See the log for details and try again."


class MainWindow(WindowDialogs, QMainWindow):
    """Switchboard's main window."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("mainWindow")
        self.setWindowTitle("Switchboard")
        self.resize(980, 760)
        self.tasks = TaskRunner(on_error=self.show_exception)
        self.runtime: RuntimeLike | None = None
        self.controller: ChatController | None = None
        self.provider_dialog: ProviderDialog | None = None
        self.approvals_dialog: ApprovalsDialog | None = None
        self.settings_window: SettingsWindow | None = None
        self.settings_listeners: list[Callable[[object], None]] = []  # called after saved settings are applied
        self.shortcut_actions: dict[str, QAction] = {}
        """``Settings.shortcuts`` field name → the action whose shortcut it sets (see ``apply_settings``)."""

        central = QWidget()
        layout = QVBoxLayout(central)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        self.view = ChatView()
        layout.addWidget(self.view, 1)
        from desktop_app.ui.chat.find import FindBar

        self.find_bar = FindBar(self.view)
        layout.addWidget(self.find_bar)
        self.composer = Composer()
        self.composer.setEnabled(False)
        self.composer.submitted.connect(self._on_submitted)
        self.composer.stop_requested.connect(self._on_stop_requested)
        layout.addWidget(self.composer)
        self.key_banner = install_key_banner(self, layout)  # "Enter key" when the provider's key is missing
        self.setCentralWidget(central)

        self.store: Store | None = None
        self.store_warning: QLabel | None = None  # shown once a write to the store failed (``StoreFailed``)
        self._build_conversations()

        self.status = QLabel("Starting…")
        self.status.setObjectName("statusText")
        self.statusBar().addWidget(self.status, 1)
        self.model_label = QLabel("")
        self.model_label.setObjectName("modelLabel")
        self.statusBar().addPermanentWidget(self.model_label)
        self._build_menus()
        self.servers_dock = install_servers_dock(self, self.tasks)
        self.tools_dock = install_tools_dock(self)  # Ctrl+K
        self.importer: McpImporter | None = None
        self.extensions: Any = None  # File → Install extension… and .mcpb drops (ui/extension_install.py)
        self._pending_bundles: list[Path] = []  # .mcpb files given at launch, before the host is attached
        self.setAcceptDrops(True)
        self.mcp_host: object = None
        self.mcp_config_path: Path | None = None
        self.server_requests = ServerRequests(self.view, self)  # sampling/elicitation cards, inline in the chat
        self.server_requests.status_message.connect(self.set_status)
        self.resources_dialog: ResourcesDialog | None = None
        self.roots_dialog: RootsDialog | None = None
        self.slash: SlashCommands | None = None
        self.stop_shortcut = QShortcut(QKeySequence(Qt.Key.Key_Escape), self)
        self.stop_shortcut.activated.connect(self._on_stop_requested)
        self._set_tab_order()
        self.about_action = install_help_menu(self)  # Help → About Switchboard, the last menu
        self.composer.edit.setFocus()

    def _set_tab_order(self) -> None:
        """Tab goes left to right, top to bottom: the list, the transcript, the composer, the status bar."""
        chain = [
            self.conversations.search,
            self.conversations.new_button,
            self.conversations.list,
            self.view,
            self.composer.attach_button,
            self.composer.clipboard_button,
            self.composer.resource_button,
            self.composer.edit,
            self.composer.button,
            self.servers_dock.indicator,
        ]
        for first, second in itertools.pairwise(chain):
            QWidget.setTabOrder(first, second)

    def _build_menus(self) -> None:
        file_menu = self.menuBar().addMenu("&File")
        self.new_chat_action = QAction("&New chat", self)
        self.new_chat_action.setShortcut(QKeySequence("Ctrl+N"))
        self.new_chat_action.triggered.connect(self._on_new_chat_triggered)
        file_menu.addAction(self.new_chat_action)
        add_conversation_actions(self.conversations, file_menu, self._stored_id)
        self.import_action = QAction("&Import MCP servers…", self)
        self.import_action.setObjectName("importServersAction")
        self.import_action.setEnabled(False)
        self.import_action.triggered.connect(self._on_import_triggered)
        file_menu.addAction(self.import_action)
        self.install_extension_action = QAction("Install &extension…", self)
        self.install_extension_action.setObjectName("installExtensionAction")
        self.install_extension_action.setEnabled(False)
        self.install_extension_action.triggered.connect(lambda: self.extensions and self.extensions.choose())
        file_menu.addAction(self.install_extension_action)
        file_menu.addSeparator()
        quit_action = QAction("&Quit", self)
        quit_action.setShortcut(QKeySequence("Ctrl+Q"))
        quit_action.triggered.connect(self.close)
        file_menu.addAction(quit_action)
        self.quit_action = quit_action  # the desktop shell makes it quit the app (not only close the window)
        settings_menu = self.menuBar().addMenu("&Settings")
        self.settings_menu = settings_menu
        self.settings_action = QAction("&Settings…", self)
        self.settings_action.setObjectName("settingsAction")
        self.settings_action.setShortcut(QKeySequence("Ctrl+,"))
        self.settings_action.setMenuRole(QAction.MenuRole.PreferencesRole)
        self.settings_action.setEnabled(False)
        self.settings_action.triggered.connect(self._on_settings_triggered)
        settings_menu.addAction(self.settings_action)
        settings_menu.addSeparator()
        self.shortcut_actions["new_chat"] = self.new_chat_action
        self.shortcut_actions["settings"] = self.settings_action
        edit_menu = self.menuBar().addMenu("&Edit")
        self.find_action = QAction("&Find in conversation…", self)
        self.find_action.setObjectName("findAction")
        self.find_action.setShortcut(QKeySequence("Ctrl+F"))
        self.find_action.triggered.connect(self.find_in_conversation)
        edit_menu.addAction(self.find_action)
        self.copy_answer_action = QAction("&Copy the last answer", self)
        self.copy_answer_action.setObjectName("copyLastAnswerAction")
        self.copy_answer_action.setShortcut(QKeySequence("Ctrl+Shift+C"))
        self.copy_answer_action.triggered.connect(self.copy_last_answer)
        edit_menu.addAction(self.copy_answer_action)
        self.shortcut_actions["find"] = self.find_action
        self.shortcut_actions["copy_last_answer"] = self.copy_answer_action
        self.provider_action = QAction("&Provider…", self)
        self.provider_action.setEnabled(False)
        self.provider_action.triggered.connect(self._on_provider_triggered)
        settings_menu.addAction(self.provider_action)
        self.approvals_action = QAction("&Approvals…", self)
        self.approvals_action.setObjectName("approvalsAction")
        self.approvals_action.setEnabled(False)
        self.approvals_action.triggered.connect(self._on_approvals_triggered)
        settings_menu.addAction(self.approvals_action)
        self.roots_action = QAction("&Folders the servers may see…", self)
        self.roots_action.setObjectName("rootsAction")
        self.roots_action.setEnabled(False)
        self.roots_action.triggered.connect(self._on_roots_triggered)
        settings_menu.addAction(self.roots_action)

    # -- runtime -----------------------------------------------------------------------------------------

    def attach_runtime(self, runtime: RuntimeLike) -> ChatController:
        """Connect the (late-created) runtime; asks for a provider at first run."""
        self.runtime = runtime
        controller = ChatController(runtime, self)
        self.view.follow(controller)
        controller.run_started.connect(self._on_run_started)
        controller.content_appended.connect(self._on_content_appended)
        controller.approval_required.connect(self._on_approval_required)
        controller.retry_scheduled.connect(self._on_retry_scheduled)
        controller.approval_decided.connect(self._on_approval_decided)
        controller.busy_changed.connect(self._on_busy_changed)
        controller.store_failed.connect(self._on_store_failed)
        for signal in (controller.run_started, controller.run_finished, controller.run_failed):
            signal.connect(self._on_conversation_activity)
        controller.run_failed.connect(self.key_banner.on_run_failed)
        self.view.decided.connect(self._on_decided)
        self.view.retry_now_requested.connect(self._on_retry_now_requested)
        self.view.stop_requested.connect(self._on_stop_requested)
        self.view.continue_requested.connect(self._on_continue_requested)
        self.view.regenerate_requested.connect(self.regenerate_last_answer)
        self.view.retry_run_requested.connect(self.retry_last_run)
        self.view.delete_turn_requested.connect(self.delete_turn)
        self.view.edit_requested.connect(self.edit_and_resend)
        self.view.version_requested.connect(self.switch_version)
        self.controller = controller
        self.tools_dock.panel.attach_runtime(runtime, lambda: controller.conversation_id)
        from desktop_app.ui.agent_menu import add_agent_menu

        self.agent_menu = add_agent_menu(self, runtime, lambda: controller.conversation_id, self.set_status)
        self._attach_composer(runtime, controller)
        self.composer.setEnabled(True)
        self.provider_action.setEnabled(True)
        self.approvals_action.setEnabled(True)
        self.settings_action.setEnabled(True)
        self.apply_settings(runtime.settings)
        self._show_round_limit()
        self.composer.edit.setFocus()
        self._show_provider()
        if not runtime.provider_settings.configured:
            self.set_status("Choose a model provider to start (Settings → Provider…)")
            self.open_welcome()
        else:
            self.set_status("Ready")
            self.key_banner.check_start()
        return controller

    def attach_host(self, host: object, *, credentials: object = None, mcp_config: Path | None = None) -> None:
        """Show ``host``'s servers in the Servers dock (before ``host.start()``, to see every event), and
        enable File → Import MCP servers… into ``mcp_config`` with ``credentials``."""
        self.servers_dock.panel.secret_prompt.credentials = credentials
        self.servers_dock.panel.attach(host)
        self.tools_dock.panel.attach_host(host, mcp_config)
        self._attach_mcp_features(host)
        if mcp_config is not None and credentials is not None:
            from desktop_app.ui.import_dialog import McpImporter

            self.mcp_config_path = mcp_config
            self.importer = McpImporter(self, target=mcp_config, credentials=credentials)
            self.importer.imported.connect(self._on_servers_imported)
            self.import_action.setEnabled(True)
            from desktop_app.ui.extension_install import ExtensionInstaller

            self.extensions = ExtensionInstaller(self, credentials, self._on_servers_imported)
            self.install_extension_action.setEnabled(True)
            for bundle in self._pending_bundles:
                self.extensions.open_bundle(bundle)
            self._pending_bundles.clear()
            if hasattr(host, "apply_servers"):  # Add…, Edit…, Enable/Disable, Remove; mcp.json followed on disk
                from desktop_app.runtime.host.manage import ServerManager

                manager = ServerManager(host, mcp_config, credentials)  # type: ignore[arg-type]
                self.servers_dock.panel.attach_manager(manager, import_opener=self._on_import_triggered)

    def add_launch_files(self, files: list[str]) -> None:
        """Files from the command line or the file manager: ``.mcpb`` bundles open the install screen (once the
        host is there), other files are attached to the next prompt."""
        from desktop_app.ui.extension_install import BUNDLE_SUFFIXES

        bundles = [Path(f) for f in files if Path(f).suffix.lower() in BUNDLE_SUFFIXES]
        others = [f for f in files if Path(f).suffix.lower() not in BUNDLE_SUFFIXES]
        for bundle in bundles:
            if self.extensions is not None:
                self.extensions.open_bundle(bundle)
            else:
                self._pending_bundles.append(bundle)
        if others:
            self.composer.add_files(others)

    def dragEnterEvent(self, event: Any) -> None:
        from desktop_app.ui.extension_install import bundle_paths

        if self.extensions is not None and event.mimeData().hasUrls() and bundle_paths(event.mimeData().urls()):
            event.acceptProposedAction()
        else:
            super().dragEnterEvent(event)

    def dropEvent(self, event: Any) -> None:
        from desktop_app.ui.extension_install import bundle_paths

        found = bundle_paths(event.mimeData().urls()) if event.mimeData().hasUrls() else []
        if self.extensions is not None and found:
            event.acceptProposedAction()
            self.extensions.open_bundle(found[0])
        else:
            super().dropEvent(event)

    def _attach_mcp_features(self, host: object) -> None:
        """Server requests as cards in the chat, prompts as ``/`` commands, Attach resource… and Folders…."""
        from desktop_app.ui.chat.slash import PromptCatalog, SlashCommands

        self.mcp_host = host
        self.server_requests.attach(host, self.runtime if hasattr(self.runtime, "answer_sampling") else host)
        catalog = PromptCatalog(self.tasks, self)
        catalog.attach(host)
        self.slash = SlashCommands(self.composer, catalog, self.tasks, self)
        self.slash.error.connect(self.view.show_error)
        self.composer.resource_button.setEnabled(hasattr(host, "list_resources"))
        self.composer.resource_requested.connect(self.open_resources_dialog)
        self.roots_action.setEnabled(hasattr(self.runtime, "set_roots"))

    # -- conversations -----------------------------------------------------------------------------------

    def _build_conversations(self) -> None:
        self.conversations_dock, self.conversations = install_conversations_dock(self)
        self.conversations.conversation_selected.connect(self._open_from_list)
        self.conversations.new_chat_requested.connect(self._on_new_chat_triggered)
        self.conversations.conversation_deleted.connect(self._on_conversation_deleted)
        self.conversations.status_message.connect(self.set_status)
        self.conversations.error_occurred.connect(self._on_conversations_error)

    def attach_store(self, store: Store) -> None:
        """Show the stored conversations in the list; picking one reopens it (``open_conversation``)."""
        self.store = store
        self.conversations.set_store(store)

    def _stored_id(self) -> str | None:
        """The current conversation if the store knows it (a new chat is stored with its first run)."""
        cid = self.controller.conversation_id if self.controller is not None else None
        if cid is None or self.store is None or self.store.get_conversation(cid) is None:
            return None
        return cid

    def _open_from_list(self, conversation_id: str) -> None:
        """Open a conversation from the list; opened from a search hit, at the matching message."""
        self.open_conversation(conversation_id)
        query = self.conversations.search.text().strip()
        if query and conversation_id in self.conversations.snippets:
            self.find_bar.open()
            self.find_bar.query.setText(query)  # highlights every match and scrolls to the first
            self.conversations.list.setFocus()

    def open_conversation(self, conversation_id: str) -> None:
        """Show a stored conversation and let the runtime continue it; resume tool calls that still wait."""
        if self.controller is None or self.runtime is None or self.store is None:
            return
        if conversation_id == self.controller.conversation_id and self.view.blocks() != [self.view.empty_hint]:
            return self.conversations.set_current(conversation_id)
        from desktop_app.ui.chat.replay import reopen

        self.controller.stop()
        self.controller.new_conversation()  # flush; the old conversation's events are ignored from now on
        self.controller.conversation_id = conversation_id
        pending = reopen(self.store, cast("ReopenRuntime", self.runtime), self.view, conversation_id)
        self.conversations.set_current(conversation_id)
        self._show_conversation_title()
        from desktop_app.ui.chat.turn_actions import show_versions

        show_versions(self)
        self._show_provider()
        self.tools_dock.panel.schedule_refresh()  # its promoted tools
        self.composer.edit.setFocus()
        if not pending:
            return self.set_status("Ready")
        waits = "A tool call waits" if len(pending) == 1 else f"{len(pending)} tool calls wait"
        self.set_status(f"{waits} for your approval — resuming…")
        self._continue_run()

    def _on_store_failed(self, event: ev.StoreFailed) -> None:
        """The store could not write this run: a persistent error in the chat (with "Save a copy…") and in
        the status bar for the rest of the session."""
        from desktop_app.ui.chat.store_notice import StoreFailedNotice

        runtime = self.runtime
        cid = event.conversation_id

        def messages() -> list[object]:
            conversation = getattr(runtime, "conversation", None)
            return list(conversation(cid).messages) if conversation is not None else []

        self.view.end_segment()
        notice = StoreFailedNotice(event.message, messages)
        self.view.add_block(notice)
        if self.store_warning is None:
            self.store_warning = QLabel("⚠ Conversations are not being saved")
            self.store_warning.setObjectName("storeWarning")
            self.store_warning.setToolTip(event.message)
            self.statusBar().addPermanentWidget(self.store_warning)

    def _on_conversation_activity(self, _event: object) -> None:
        """A run of the current conversation started or ended: its title and place in the list change."""
        self.conversations.current_id = self._stored_id() or self.conversations.current_id
        self.conversations.refresh()
        self._show_conversation_title()
        self._show_context_budget()
        from desktop_app.ui.chat.turn_actions import show_versions

        show_versions(self)

    def _show_context_budget(self) -> None:
        """The composer's meter for the current conversation (once it has a loaded history: never forces a
        reopened conversation's lazy load)."""
        cid = self.controller.conversation_id if self.controller is not None else None
        budget = None
        if cid is not None and self.runtime is not None:
            try:
                conv = self.runtime.conversation(cid)
                budget = self.runtime.context_budget(cid) if conv.loaded else None
            except Exception:  # no such conversation yet, or a host without tools: no meter
                budget = None
        self.composer.context_meter.show_budget(budget)

    def _show_conversation_title(self) -> None:
        cid = self._stored_id()
        info = self.store.get_conversation(cid) if cid is not None and self.store is not None else None
        self.show_title(getattr(info, "title", None) or None)

    def _on_conversation_deleted(self, conversation_id: str) -> None:
        if self.controller is not None and conversation_id == self.controller.conversation_id:
            self._on_new_chat_triggered()

    def _on_conversations_error(self, text: str) -> None:
        self.view.show_error(text)
        self.set_status("Error — see the conversation")

    def set_status(self, text: str) -> None:
        self.status.setText(text)

    def show_exception(self, exc: BaseException) -> None:
        """The error display for failed coroutines and slots: inline in the chat, and in the status bar."""
        log.error("error shown to the user", exc_info=exc)
        self.view.show_error(describe_exception(exc))
        self.set_status("Error — see the conversation")

    def _show_provider(self) -> None:
        """The status bar names the provider the shown conversation talks to (its own, else the default)."""
        if self.runtime is not None:
            settings = self.runtime.provider_settings
            conversation = self.controller.conversation_id if self.controller is not None else None
            chooser = getattr(self.runtime, "conversation_provider", None)
            if conversation and chooser is not None:
                settings = chooser(conversation)
            self.model_label.setText(f"{settings.model} · {settings.dialect}" if settings.configured else "")
            self._fill_model_picker(settings)

    def _fill_model_picker(self, current: object) -> None:
        """The composer's provider/model picker: the conversation's provider, the default one, the vision
        provider, and the provider settings."""
        from PySide6.QtWidgets import QMenu

        button = self.composer.model_button
        model = getattr(current, "model", "")
        button.setText(
            f"{model} · {getattr(current, 'dialect', '')}"
            if getattr(current, "configured", False)
            else "Set up a provider"
        )
        menu = button.menu() or QMenu(button)
        menu.setObjectName("modelPickerMenu")
        menu.clear()
        runtime = self.runtime
        conversation = self.controller.conversation_id if self.controller is not None else None
        choices: list[tuple[str, object]] = []
        if runtime is not None:
            default = runtime.provider_settings
            choices.append((f"Default: {default.model} · {default.dialect}", default))
            vision = getattr(getattr(runtime, "settings", None), "vision_provider", None)
            if vision is not None and getattr(vision, "configured", False):
                choices.append((f"Vision: {vision.model} · {vision.dialect}", vision))
        for label, choice in choices:
            action = menu.addAction(label)
            action.setCheckable(True)
            action.setChecked(
                getattr(choice, "model", None) == model
                and getattr(choice, "base_url", None) == getattr(current, "base_url", None)
            )
            action.triggered.connect(lambda _checked=False, c=choice: self._choose_provider(conversation, c))
        menu.addSeparator()
        menu.addAction("Provider settings…", self._on_provider_triggered)
        button.setMenu(menu)

    def _choose_provider(self, conversation: str | None, settings: object) -> None:
        chooser = getattr(self.runtime, "set_conversation_provider", None)
        if conversation and chooser is not None:
            chooser(conversation, settings)
        self._show_provider()

    def apply_settings(self, settings: object) -> None:
        """Put saved settings in force in the window: appearance, shortcuts, limits, the provider label."""
        from desktop_app.ui.appearance import apply_appearance

        appearance = getattr(settings, "appearance", None)
        if appearance is not None:
            apply_appearance(appearance)
        shortcuts = getattr(settings, "shortcuts", None)
        self.composer.edit.enter_sends = not getattr(shortcuts, "ctrl_enter_sends", False)
        for name, action in self.shortcut_actions.items():
            keys = getattr(shortcuts, name, None)
            if isinstance(keys, str):
                action.setShortcut(QKeySequence(keys, QKeySequence.SequenceFormat.PortableText))
        self._show_round_limit()
        self._show_provider()
        for listener in list(self.settings_listeners):
            listener(settings)

    def _show_round_limit(self) -> None:
        settings = getattr(self.runtime, "settings", None)
        self.view.max_tool_rounds = getattr(settings, "max_tool_rounds", None)

    # -- user actions ------------------------------------------------------------------------------------

    def _on_submitted(self, prompt: str) -> None:
        if self.controller is None or self.runtime is None:
            return
        attachments, context = self.composer.outgoing()
        self.view.add_user_message(prompt)
        if attachments:
            self.view.add_notice("Attached: " + ", ".join(a.name for a in attachments))
        if not self.runtime.provider_settings.configured:
            self.view.show_error("No model provider is set up yet. Open Settings → Provider… and try again.")
            self.composer.set_text(prompt)
            self.composer.restore(attachments, context)
            self.open_provider_dialog(first_run=True)
            return
        self.tasks.start(self.controller.send(prompt, attachments=attachments, context=context), name="send")

    # -- attachments and context ---------------------------------------------------------------------------

    def _attach_composer(self, runtime: RuntimeLike, controller: ChatController) -> None:
        """The composer's size caps and default context chips come from the runtime's settings."""
        from desktop_app.runtime.attachments import AttachmentLimits
        from desktop_app.runtime.context import default_context

        settings = runtime.settings
        self.composer.limits = AttachmentLimits.from_settings(settings)
        defaults = getattr(runtime, "default_context", None)
        self.composer.default_context = defaults if callable(defaults) else default_context
        self.composer.reset_context()
        self.composer.attachment_refused.connect(self._on_attachment_refused)
        controller.images_described.connect(self._on_images_described)

    def _on_attachment_refused(self, message: str) -> None:
        self.view.show_error(message)
        self.set_status("Attachment refused — see the conversation")

    def _on_images_described(self, event: ev.ImagesDescribed) -> None:
        text = event.text if len(event.text) <= 600 else event.text[:600] + "…"
        self.view.add_notice(f"{event.model} cannot be asked directly; described {', '.join(event.images)}: {text}")
        self.set_status(f"Images described by {event.model}; asking {self.runtime_model()}…")

    def runtime_model(self) -> str:
        return self.runtime.provider_settings.model if self.runtime is not None else ""

    def _on_stop_requested(self) -> None:
        """Esc (or Stop): stop the run; with no run, close the find bar."""
        if self.controller is not None and self.controller.busy:
            self.set_status("Stopping…")
            self.controller.stop()
        elif self.find_bar.isVisible():
            self.find_bar.close_bar()

    def _on_retry_now_requested(self) -> None:
        if self.controller is not None and self.controller.busy:
            self.set_status("Retrying now…")
            self.controller.retry_now()

    def _on_decided(self, tool_call_id: str, answer: ApprovalAnswer) -> None:
        if self.controller is None:
            return
        try:
            self.controller.answer(tool_call_id, answer)
        except (SwitchboardError, ValueError) as exc:
            self.view.approval_failed(tool_call_id)
            self.show_exception(exc)

    def _on_continue_requested(self) -> None:
        if self.controller is None or self.controller.busy:
            return
        self.set_status("Continuing…")
        self._continue_run()

    @async_slot
    async def _continue_run(self) -> None:
        if self.controller is None:
            return
        try:
            await self.controller.continue_run()
        except Exception:
            if self.view.paused_line is not None:  # let the user try again
                self.view.paused_line.continue_button.setEnabled(True)
            raise

    def _on_new_chat_triggered(self) -> None:
        if self.controller is None:
            return
        self.controller.stop()
        self.controller.new_conversation()
        self.view.clear()
        self.conversations.set_current(None)
        self.show_title(None)
        self._show_provider()
        self.tools_dock.panel.schedule_refresh()
        self.set_status("Ready")
        self.composer.edit.setFocus()

    def _on_provider_configured(self) -> None:
        # A provider chosen while in a conversation applies to it too (it stops keeping its stored one).
        conversation = self.controller.conversation_id
        setter = getattr(self.runtime, "set_conversation_provider", None)
        if conversation and setter is not None:
            try:
                setter(conversation, None)
            except SwitchboardError:  # a conversation the runtime does not know yet: nothing to reset
                pass
        self._show_provider()
        self._show_round_limit()
        self.set_status("Ready")

    # -- controller signals ------------------------------------------------------------------------------

    def _on_run_started(self, event: ev.RunStarted) -> None:
        self.set_status(f"Thinking… ({event.model})")

    def _on_content_appended(self, _text: str) -> None:
        if self.status.text() != "Answering…":
            self.set_status("Answering…")

    def _on_retry_scheduled(self, event: ev.RetryScheduled) -> None:
        self.set_status(f"Waiting to retry: {retry_headline(event.retry)}")

    def _on_approval_required(self, event: ev.ApprovalRequired) -> None:
        self.set_status(f"Waiting for your approval: {event.tool}")

    def _on_approval_decided(self, event: ev.ApprovalDecided) -> None:
        self.set_status("Running the tool…" if event.approved else "Tool call denied")

    def _on_busy_changed(self, busy: bool) -> None:
        self.composer.set_busy(busy)
        if not busy:
            self.set_status("Ready")
            self.composer.edit.setFocus()

    close_interceptor: Callable[[], bool] | None = None
    """Asked first when the window closes; ``True`` keeps the app running (close to tray)."""

    state_path: Path | None = None
    """Where the window's geometry, docks and splitters are kept (``window_state``); None: not kept."""

    def restore_state(self, path: Path) -> bool:
        from desktop_app.ui import window_state

        self.state_path = path
        return window_state.restore(self, path)

    def save_state(self) -> None:
        if self.state_path is not None:
            from desktop_app.ui import window_state

            window_state.save(self, self.state_path)

    def find_in_conversation(self) -> None:
        self.find_bar.open()

    def copy_last_answer(self) -> bool:
        """Ctrl+Shift+C: the last answer's Markdown to the clipboard."""
        from PySide6.QtGui import QGuiApplication

        from desktop_app.ui.chat.blocks import AnswerBlock

        answers = [b for b in self.view.blocks() if isinstance(b, AnswerBlock) and not b.isHidden()]
        if not answers or not answers[-1].text:
            self.set_status("No answer to copy yet")
            return False
        QGuiApplication.clipboard().setText(answers[-1].text)
        self.set_status("Copied the last answer (Markdown)")
        return True

    def regenerate_last_answer(self) -> bool:
        from desktop_app.ui.chat import turn_actions

        return turn_actions.regenerate(self)

    def retry_last_run(self) -> bool:
        from desktop_app.ui.chat import turn_actions

        return turn_actions.retry(self)

    def edit_and_resend(self, from_end: int, text: str) -> bool:
        from desktop_app.ui.chat import turn_actions

        return turn_actions.edit_and_resend(self, from_end, text)

    def switch_version(self, from_end: int, version: int) -> bool:
        from desktop_app.ui.chat import turn_actions

        return turn_actions.switch_version(self, from_end, version)

    def delete_turn(self, from_end: int) -> bool:
        from desktop_app.ui.chat import turn_actions

        return turn_actions.delete_turn(self, from_end)

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
