"""The main window's menu bar: File, Settings and Edit with their actions and default shortcuts.

:class:`MenuBar` is one collaborator of :class:`~desktop_app.ui.window.main_window.MainWindow` (``window.menus``):
``build`` creates the actions (it owns them; the window enables some once the runtime is attached, in
``attach_runtime``/``attach_host``), and records the ones whose shortcut the settings may change in the window's
``shortcut_actions``. Each action calls the collaborator that does the work. The Help menu comes from
``ui.dialogs.about``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtGui import QAction, QKeySequence

from desktop_app.ui.conversations.dock import add_conversation_actions

if TYPE_CHECKING:
    from desktop_app.ui.window.main_window import MainWindow


class MenuBar:
    """Builds and owns the window's File, Settings and Edit menus and their actions."""

    def __init__(self, window: MainWindow) -> None:
        self.window = window

    def build(self) -> None:
        w = self.window
        file_menu = w.menuBar().addMenu("&File")
        self.new_chat_action = QAction("&New chat", w)
        self.new_chat_action.setObjectName("newChatAction")
        self.new_chat_action.setShortcut(QKeySequence("Ctrl+N"))
        self.new_chat_action.triggered.connect(w.new_chat)
        file_menu.addAction(self.new_chat_action)
        add_conversation_actions(w.conversations, file_menu, w.conversation_ctl.stored_id)
        self.import_action = QAction("&Import MCP servers…", w)
        self.import_action.setObjectName("importServersAction")
        self.import_action.setEnabled(False)
        self.import_action.triggered.connect(w.dialogs.open_importer)
        file_menu.addAction(self.import_action)
        self.install_extension_action = QAction("Install &extension…", w)
        self.install_extension_action.setObjectName("installExtensionAction")
        self.install_extension_action.setEnabled(False)
        self.install_extension_action.triggered.connect(lambda: w.extensions and w.extensions.choose())
        file_menu.addAction(self.install_extension_action)
        file_menu.addSeparator()
        quit_action = QAction("&Quit", w)
        quit_action.setShortcut(QKeySequence("Ctrl+Q"))
        quit_action.triggered.connect(w.close)
        file_menu.addAction(quit_action)
        self.quit_action = quit_action  # the desktop shell makes it quit the app (not only close the window)
        settings_menu = w.menuBar().addMenu("&Settings")
        self.settings_menu = settings_menu
        self.settings_action = QAction("&Settings…", w)
        self.settings_action.setObjectName("settingsAction")
        self.settings_action.setShortcut(QKeySequence("Ctrl+,"))
        self.settings_action.setMenuRole(QAction.MenuRole.PreferencesRole)
        self.settings_action.setEnabled(False)
        self.settings_action.triggered.connect(lambda: w.dialogs.open_settings_window())
        settings_menu.addAction(self.settings_action)
        settings_menu.addSeparator()
        w.shortcut_actions["new_chat"] = self.new_chat_action
        w.shortcut_actions["settings"] = self.settings_action
        edit_menu = w.menuBar().addMenu("&Edit")
        self.find_action = QAction("&Find in conversation…", w)
        self.find_action.setObjectName("findAction")
        self.find_action.setShortcut(QKeySequence("Ctrl+F"))
        self.find_action.triggered.connect(w.find_in_conversation)
        edit_menu.addAction(self.find_action)
        self.copy_answer_action = QAction("&Copy the last answer", w)
        self.copy_answer_action.setObjectName("copyLastAnswerAction")
        self.copy_answer_action.setShortcut(QKeySequence("Ctrl+Shift+C"))
        self.copy_answer_action.triggered.connect(w.turns.copy_last_answer)
        edit_menu.addAction(self.copy_answer_action)
        w.shortcut_actions["find"] = self.find_action
        w.shortcut_actions["copy_last_answer"] = self.copy_answer_action
        self.provider_action = QAction("&Provider…", w)
        self.provider_action.setObjectName("providerAction")
        self.provider_action.setEnabled(False)
        self.provider_action.triggered.connect(lambda: w.dialogs.open_provider_dialog())
        settings_menu.addAction(self.provider_action)
        self.approvals_action = QAction("&Approvals…", w)
        self.approvals_action.setObjectName("approvalsAction")
        self.approvals_action.setEnabled(False)
        self.approvals_action.triggered.connect(lambda: w.dialogs.open_approvals_dialog())
        settings_menu.addAction(self.approvals_action)
        self.roots_action = QAction("&Folders the servers may see…", w)
        self.roots_action.setObjectName("rootsAction")
        self.roots_action.setEnabled(False)
        self.roots_action.triggered.connect(lambda: w.dialogs.open_roots_dialog())
        settings_menu.addAction(self.roots_action)
