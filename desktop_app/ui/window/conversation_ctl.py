"""The main window's conversation list and stored conversations: the dock, reopening one, titles, store errors.

:class:`ConversationControl` is one collaborator of :class:`~desktop_app.ui.window.main_window.MainWindow`
(``window.conversation_ctl``). It owns the Conversations dock and its list, the store once attached, and the
status bar's "not being saved" warning; it reads the window's ``controller``, ``runtime``, ``view``,
``composer``, ``find_bar`` and ``tools_dock``. Reopening replays the stored messages through
``ui.chat.replay`` and resumes tool calls that still wait for an approval (``window.turns``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol, cast, runtime_checkable

from PySide6.QtWidgets import QLabel

from desktop_app.ui.conversations.dock import install_conversations_dock

if TYPE_CHECKING:
    from desktop_app.runtime import events as ev
    from desktop_app.runtime.compaction.budget import ContextBudget
    from desktop_app.runtime.conversation import Conversation
    from desktop_app.runtime.store import Store
    from desktop_app.ui.chat.replay import ReopenRuntime
    from desktop_app.ui.window.main_window import MainWindow


@runtime_checkable
class BudgetSource(Protocol):
    """What the composer's context meter reads from the runtime (the real ``Runtime`` has it; a test's fake
    runtime may not, and then there is no meter)."""

    def conversation(self, conversation_id: str) -> Conversation: ...
    def context_budget(self, conversation_id: str) -> ContextBudget: ...


class ConversationControl:
    """The Conversations dock and the stored conversation shown in the window."""

    def __init__(self, window: MainWindow) -> None:
        self.window = window
        self.store: Store | None = None
        self.store_warning: QLabel | None = None  # shown once a write to the store failed (``StoreFailed``)

    def build(self) -> None:
        w = self.window
        self.dock, self.panel = install_conversations_dock(w)
        self.panel.conversation_selected.connect(self._open_from_list)
        self.panel.new_chat_requested.connect(w.new_chat)
        self.panel.conversation_deleted.connect(self._on_conversation_deleted)
        self.panel.status_message.connect(w.set_status)
        self.panel.error_occurred.connect(self._on_conversations_error)

    def attach_store(self, store: Store) -> None:
        """Show the stored conversations in the list; picking one reopens it (``open_conversation``)."""
        self.store = store
        self.panel.set_store(store)

    def stored_id(self) -> str | None:
        """The current conversation if the store knows it (a new chat is stored with its first run)."""
        controller = self.window.controller
        cid = controller.conversation_id if controller is not None else None
        if cid is None or self.store is None or self.store.get_conversation(cid) is None:
            return None
        return cid

    def _open_from_list(self, conversation_id: str) -> None:
        """Open a conversation from the list; opened from a search hit, at the matching message."""
        self.open_conversation(conversation_id)
        query = self.panel.search.text().strip()
        if query and conversation_id in self.panel.snippets:
            find_bar = self.window.find_bar
            find_bar.open()
            find_bar.query.setText(query)  # highlights every match and scrolls to the first
            self.panel.list.setFocus()

    def open_conversation(self, conversation_id: str) -> None:
        """Show a stored conversation and let the runtime continue it; resume tool calls that still wait."""
        w = self.window
        controller, view = w.controller, w.view
        if controller is None or w.runtime is None or self.store is None:
            return
        if conversation_id == controller.conversation_id and view.blocks() != [view.empty_hint]:
            return self.panel.set_current(conversation_id)
        from desktop_app.ui.chat.replay import reopen

        controller.stop()
        controller.new_conversation()  # flush; the old conversation's events are ignored from now on
        controller.conversation_id = conversation_id
        pending = reopen(self.store, cast("ReopenRuntime", w.runtime), view, conversation_id)
        self.panel.set_current(conversation_id)
        self.show_title()
        from desktop_app.ui.chat.turn_actions import show_versions

        show_versions(w)
        w.provider.show()
        w.tools_dock.panel.schedule_refresh()  # its promoted tools
        w.composer.edit.setFocus()
        if not pending:
            return w.set_status("Ready")
        waits = "A tool call waits" if len(pending) == 1 else f"{len(pending)} tool calls wait"
        w.set_status(f"{waits} for your approval — resuming…")
        w.turns.continue_run()

    def on_store_failed(self, event: ev.StoreFailed) -> None:
        """The store could not write this run: a persistent error in the chat (with "Save a copy…") and in
        the status bar for the rest of the session."""
        from desktop_app.ui.chat.store_notice import StoreFailedNotice

        w = self.window
        runtime = w.runtime
        cid = event.conversation_id

        def messages() -> list[object]:
            conversation = getattr(runtime, "conversation", None)
            return list(conversation(cid).messages) if conversation is not None else []

        w.view.end_segment()
        notice = StoreFailedNotice(event.message, messages)
        w.view.add_block(notice)
        if self.store_warning is None:
            self.store_warning = QLabel("⚠ Conversations are not being saved")
            self.store_warning.setObjectName("storeWarning")
            self.store_warning.setToolTip(event.message)
            w.statusBar().addPermanentWidget(self.store_warning)

    def on_activity(self, _event: object) -> None:
        """A run of the current conversation started or ended: its title and place in the list change."""
        self.panel.current_id = self.stored_id() or self.panel.current_id
        self.panel.refresh()
        self.show_title()
        self.show_context_budget()
        from desktop_app.ui.chat.turn_actions import show_versions

        show_versions(self.window)

    def show_context_budget(self) -> None:
        """The composer's meter for the current conversation (once it has a loaded history: never forces a
        reopened conversation's lazy load)."""
        w = self.window
        cid = w.controller.conversation_id if w.controller is not None else None
        budget = None
        runtime: object = w.runtime  # (mypy does not intersect two protocols: narrow from object)
        if cid is not None and isinstance(runtime, BudgetSource):
            try:
                conv = runtime.conversation(cid)
                budget = runtime.context_budget(cid) if conv.loaded else None
            except Exception:  # no such conversation yet, or a host without tools: no meter
                budget = None
        w.composer.context_meter.show_budget(budget)

    def show_title(self) -> None:
        cid = self.stored_id()
        info = self.store.get_conversation(cid) if cid is not None and self.store is not None else None
        self.window.show_title(getattr(info, "title", None) or None)

    def _on_conversation_deleted(self, conversation_id: str) -> None:
        controller = self.window.controller
        if controller is not None and conversation_id == controller.conversation_id:
            self.window.new_chat()

    def _on_conversations_error(self, text: str) -> None:
        self.window.view.show_error(text)
        self.window.set_status("Error — see the conversation")
