"""The main window's conversation list and stored conversations: the dock, reopening one, titles, store errors.

A mixin of :class:`~desktop_app.ui.window.main_window.MainWindow` (it uses the window's ``controller``, ``runtime``,
``view``, ``store``, ``find_bar`` and ``conversations``). Reopening replays the stored messages through
``ui.chat.replay`` and resumes tool calls that still wait for an approval.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

from PySide6.QtWidgets import QLabel

from desktop_app.ui.conversations.panel import install_conversations_dock

if TYPE_CHECKING:
    from desktop_app.runtime import events as ev
    from desktop_app.runtime.store import Store
    from desktop_app.ui.chat.replay import ReopenRuntime


class WindowConversations:
    """The Conversations dock and the stored conversation shown in the window."""

    controller: Any
    runtime: Any
    view: Any
    composer: Any
    find_bar: Any
    tools_dock: Any
    store: Store | None
    store_warning: QLabel | None

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
