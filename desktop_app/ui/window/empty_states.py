"""The main window's empty states: what each place shows while it has nothing, and the one action to take.

- the chat, no provider set up: "Set up a provider" (the provider dialog);
- the chat, a provider whose key is missing and no system keyring to keep one: "Enter the key" (the provider
  dialog: the key is kept for the session);
- the conversation list, no conversations: "New chat" (a fresh chat, the composer focused);
- the Servers panel, none of the user's own servers (built-ins only): "Add a server…" (the server form);
- the Tools panel, no tools at all: "Add a server…" (the Servers panel and its form).

Each is an ``ui.empty_state.EmptyState``. The chat's sits inside the view's empty hint (a layout on the
label), so everything that hides the hint when the chat fills hides it too; the panels' replace their list
while it is empty. ``EmptyStates.refresh()`` re-checks the chat's (the window calls it when the runtime
comes, after the provider dialog saves, and when the welcome screen closes: while it is open the chat's
"Set up a provider" is hidden, so the first run shows one call to action).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from PySide6.QtWidgets import QSplitter, QVBoxLayout

from desktop_app.ui.empty_state import EmptyState

if TYPE_CHECKING:
    from desktop_app.ui.window.main_window import MainWindow

PROVIDER = ("key", "Set up a model provider", "Choose the service or local model that answers, and give its key if it "
            "needs one. Nothing is sent anywhere until you do.", "Set up a provider")  # fmt: skip
KEYRING = ("lock", "Enter your API key", "No system keyring works on this computer, so the key was not kept from the "
           "last session. Enter it again; install and unlock GNOME Keyring or KWallet to keep it.",
           "Enter the key")  # fmt: skip
CONVERSATIONS = ("conversations", "No conversations yet", "Your conversations are listed here, newest first. "
                 "Ask something to start the first one.", "New chat")  # fmt: skip
SERVERS = ("servers", "No MCP servers of your own", "Servers give the model tools: files, the web, your apps. "
           "Add one by its command or URL, or import those another app uses.", "Add a server…")  # fmt: skip
TOOLS = ("tools", "No tools yet", "Tools come from MCP servers. Add a server and its tools are listed here.",
         "Add a server…")  # fmt: skip


class EmptyStates:
    """The window's empty states (see the module docstring); ``window.empty_states``."""

    def __init__(self, window: MainWindow) -> None:
        self.window = window
        self.hint_text = window.view.empty_hint.text()
        self.chat = EmptyState(*PROVIDER, name="provider")
        self.chat.hide()
        self.chat_reason: str | None = None  # "provider", "keyring" or None (the ordinary hint)
        hint = window.view.empty_hint
        column = QVBoxLayout(hint)
        column.setContentsMargins(0, 0, 0, 0)
        column.addWidget(self.chat)
        self.chat.action_requested.connect(self._open_provider)
        self.conversations = self._conversations()
        self.servers: EmptyState | None = None
        self.tools: EmptyState | None = None

    # -- the chat ------------------------------------------------------------------------------------------

    def _chat_reason(self) -> str | None:
        runtime: Any = self.window.runtime
        if runtime is None:
            return None
        if not runtime.provider_settings.configured:
            return "provider"
        missing = getattr(runtime, "missing_key", None)
        if missing is not None and missing():
            from desktop_app.ui.window.key_banner import session_only_warning

            if session_only_warning(runtime) is not None:
                return "keyring"
        return None

    def refresh(self) -> None:
        """Show the chat's empty state its condition asks for (none: the ordinary hint)."""
        reason = self._chat_reason()
        self.chat_reason = reason
        self.chat.setProperty("state", reason or "")
        hint = self.window.view.empty_hint
        if reason is None:
            self.chat.hide()
            hint.setText(self.hint_text)
            return
        welcome = self.window.dialogs.provider_dialog
        if (
            reason == "provider"
            and welcome is not None
            and welcome.objectName() == "welcomeDialog"
            and welcome.isVisible()
        ):
            hint.setText("")  # one call to action at a time: the welcome screen's, then (Later) this state's
            self.chat.hide()
            return
        self.chat.set_text(*(PROVIDER if reason == "provider" else KEYRING)[1:])
        hint.setText("")
        self.chat.show()

    def _open_provider(self) -> None:
        dialogs = self.window.dialogs
        dialog = dialogs.open_provider_dialog(first_run=self.chat_reason == "provider")
        if dialog is not None and self.chat_reason == "keyring":  # saved: ``provider.on_configured`` refreshes
            dialog.api_key.setFocus()

    # -- the panels ----------------------------------------------------------------------------------------

    def _conversations(self) -> EmptyState:
        panel = self.window.conversations
        state = EmptyState(*CONVERSATIONS, name="conversations")
        layout = panel.layout()
        assert isinstance(layout, QVBoxLayout)
        layout.insertWidget(layout.indexOf(panel.list) + 1, state, 1)
        state.hide()
        state.action_requested.connect(self._new_chat)
        panel.filled.connect(self._on_conversations_filled)
        return state

    def _on_conversations_filled(self) -> None:
        panel = self.window.conversations
        empty = panel.store is not None and not panel.conversation_ids() and not panel.search.text().strip()
        self.conversations.setVisible(empty)
        panel.list.setVisible(not empty)

    def _new_chat(self) -> None:
        self.window.new_chat()
        self.window.composer.edit.setFocus()

    def install_panels(self) -> None:
        """The Servers and Tools panels' states (the window calls it once those panels exist)."""
        servers = self.window.servers_dock.panel
        self.servers = EmptyState(*SERVERS, name="servers")
        layout = servers.layout()
        assert isinstance(layout, QVBoxLayout)
        layout.insertWidget(layout.indexOf(servers.placeholder) + 1, self.servers)
        self.servers.hide()
        self.servers.action_requested.connect(self._add_server)
        servers.summary_changed.connect(lambda _text, _failed: self._on_servers_changed())
        tools = self.window.tools_dock.panel
        self.tools = EmptyState(*TOOLS, name="tools")
        tools_layout = tools.layout()
        assert isinstance(tools_layout, QVBoxLayout)
        splitter = tools.findChild(QSplitter, "toolPanelSplitter")
        assert splitter is not None
        self.tools_splitter: QSplitter = splitter
        tools_layout.insertWidget(tools_layout.indexOf(self.tools_splitter) + 1, self.tools, 1)
        self.tools.hide()
        self.tools.action_requested.connect(self._add_server)
        tools.refreshed.connect(self._on_tools_refreshed)

    def _on_servers_changed(self) -> None:
        panel = self.window.servers_dock.panel
        if self.servers is None or panel.host is None:
            return
        mine = [info for info in panel.servers.values() if not info.builtin]
        self.servers.setVisible(not mine)
        panel.placeholder.hide()  # the empty state says it

    def _on_tools_refreshed(self) -> None:
        panel = self.window.tools_dock.panel
        if self.tools is None:
            return
        overview = panel.overview
        empty = (overview is None or overview.total == 0) and not panel.search.text().strip()
        self.tools.setVisible(empty)
        self.tools_splitter.setVisible(not empty)  # the list and the details: nothing to show
        panel.summary.setVisible(not empty)  # "no tools" once, in the empty state's words

    def _add_server(self) -> None:
        """Open the Servers panel and its "Add…" form (the form needs mcp.json: else the panel says why)."""
        dock = self.window.servers_dock
        dock.show()
        dock.raise_()
        panel = dock.panel
        if panel.server_actions is not None:
            panel.server_actions.open_dialog()
        else:
            self.window.set_status("Servers can be added once Switchboard has read its mcp.json")


__all__ = ["CONVERSATIONS", "KEYRING", "PROVIDER", "SERVERS", "TOOLS", "EmptyStates"]
