"""The main window's menu bar: File, Settings and Edit with their actions and default shortcuts.

A mixin of :class:`~desktop_app.ui.window.main_window.MainWindow`: ``_build_menus`` creates the actions the window
enables once the runtime is attached (``attach_runtime``/``attach_host``), and records the ones whose
shortcut the settings may change in ``shortcut_actions``. The Help menu comes from ``ui.dialogs.about``.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtGui import QAction, QKeySequence

from desktop_app.ui.conversations.panel import add_conversation_actions


class WindowMenus:
    """Builds the window's File, Settings and Edit menus."""

    shortcut_actions: dict[str, QAction]
    conversations: Any

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
