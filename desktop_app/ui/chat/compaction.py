"""Compaction in the window (#16): the divider in the chat, Show original, the summary, Undo, and "Compact now".

When a conversation is compacted (the user's command, or automatically before a request), the chat keeps
every message: a :class:`CompactionDivider` ("Conversation compacted — N earlier messages summarised") goes
in front of the first turn still sent verbatim, and the turns before it are folded away. **Show original**
unfolds them, **Summary** shows what the model now reads instead, **Undo** undoes the compaction (the next
request sends the full history again). The divider is placed by counting user turns from the end (the
turns the compaction kept), so it lands in the same place live, after a reopen and after a restart
(:class:`CompactionUi` re-applies it whenever the view loads a transcript).

:class:`CompactionUi` also owns the "Compact conversation now" action (the File menu, Ctrl+Shift+M) and the
composer's context meter click, and shows progress and failures: the status bar while it runs, and a failed
compaction inline in the chat with what to do and, behind a toggle, the provider's raw answer.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QToolButton, QVBoxLayout, QWidget

if TYPE_CHECKING:
    from desktop_app.ui.chat.view import ChatView

log = logging.getLogger(__name__)

COMPACT_SHORTCUT = "Ctrl+Shift+M"


def divider_text(summarised: int) -> str:
    noun = "message" if summarised == 1 else "messages"
    return f"Conversation compacted — {summarised:,} earlier {noun} summarised"


class CompactionDivider(QFrame):
    """The line that stands for a compaction in the chat.

    Signals:
        undo_requested(str): the user clicked Undo (the compaction's id).
    """

    undo_requested = Signal(str)

    def __init__(self, compaction_id: str, summarised: int, summary: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.compaction_id = compaction_id
        self.hidden_blocks: list[QWidget] = []
        self.setObjectName("compactionDivider")
        self.setAccessibleName("Conversation compacted")
        self.setStyleSheet(
            "QFrame#compactionDivider { border-top: 1px solid palette(mid); border-bottom: 1px solid palette(mid);"
            " padding: 6px 0px; }"
        )
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 6, 0, 6)
        outer.setSpacing(4)
        self.label = QLabel(divider_text(summarised))
        self.label.setObjectName("compactionText")
        self.label.setTextFormat(Qt.TextFormat.PlainText)
        self.label.setWordWrap(True)
        self.label.setToolTip("The model is sent a summary instead of these messages; nothing was deleted.")
        self.label.setStyleSheet("QLabel { color: palette(placeholder-text); font-weight: 600; }")
        outer.addWidget(self.label)
        row = QHBoxLayout()
        row.setContentsMargins(0, 0, 0, 0)
        row.setSpacing(2)
        self.original_button = QToolButton()
        self.original_button.setText("Show original")
        self.original_button.setObjectName("showOriginalButton")
        self.original_button.setAccessibleName("Show the compacted messages")
        self.original_button.setCheckable(True)
        self.original_button.toggled.connect(self._show_original)
        row.addWidget(self.original_button)
        self.summary_button = QToolButton()
        self.summary_button.setText("Summary")
        self.summary_button.setObjectName("showSummaryButton")
        self.summary_button.setAccessibleName("Show the summary the model reads")
        self.summary_button.setToolTip("What the model is sent instead of the earlier messages")
        self.summary_button.setCheckable(True)
        row.addWidget(self.summary_button)
        self.undo_button = QToolButton()
        self.undo_button.setText("Undo")
        self.undo_button.setObjectName("undoCompactionButton")
        self.undo_button.setAccessibleName("Undo the compaction")
        self.undo_button.setToolTip("Send the full history again from the next message on")
        self.undo_button.clicked.connect(lambda: self.undo_requested.emit(self.compaction_id))
        row.addWidget(self.undo_button)
        row.addStretch(1)
        for button in (self.original_button, self.summary_button, self.undo_button):
            button.setAutoRaise(True)
        outer.addLayout(row)
        self.summary = QLabel(summary)
        self.summary.setObjectName("compactionSummary")
        self.summary.setTextFormat(Qt.TextFormat.PlainText)
        self.summary.setWordWrap(True)
        self.summary.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.summary.setStyleSheet("QLabel { color: palette(placeholder-text); padding-left: 12px; }")
        self.summary.hide()
        self.summary_button.toggled.connect(self.summary.setVisible)
        outer.addWidget(self.summary)

    def fold(self, blocks: list[QWidget]) -> None:
        """Fold ``blocks`` (the compacted turns) behind the divider."""
        self.hidden_blocks = blocks
        self._show_original(self.original_button.isChecked())

    def _show_original(self, shown: bool) -> None:
        self.original_button.setText("Hide original" if shown else "Show original")
        for block in self.hidden_blocks:
            block.setVisible(shown)

    def release(self) -> None:
        """Show every folded block again (the compaction was undone)."""
        for block in self.hidden_blocks:
            block.setVisible(True)
        self.hidden_blocks = []


def place_divider(view: ChatView, compaction: Any, total_turns: int) -> CompactionDivider | None:
    """Put the divider of ``compaction`` (turns, summarised, summary, id) into ``view``, in front of the first
    turn it kept, folding what comes before; ``None`` when that turn is not in the shown window."""
    remove_divider(view)
    from desktop_app.ui.chat.blocks import UserMessageBlock  # with the first block, not at start-up

    users = [w for w in view.blocks() if isinstance(w, UserMessageBlock)]
    kept = total_turns - int(compaction.turns)
    if kept < 0 or kept > len(users):
        return None  # the boundary is above the shown window ("Show earlier" reaches it)
    blocks = view.blocks()
    anchor = users[len(users) - kept] if kept else None
    cut = blocks.index(anchor) if anchor is not None else len(blocks)
    divider = CompactionDivider(str(compaction.id), int(compaction.summarised), str(compaction.summary))
    layout = view._layout
    index = layout.indexOf(anchor) if anchor is not None else layout.count() - 1
    layout.insertWidget(index, divider)
    if view.isVisible():
        divider.show()
    skip = {view.empty_hint, *getattr(view, "request_cards", {}).values()}
    divider.fold([b for b in blocks[:cut] if b not in skip and not b.isHidden()])
    view.compaction_divider = divider  # type: ignore[attr-defined]
    view.empty_hint.hide()
    return divider


def remove_divider(view: ChatView) -> None:
    divider = getattr(view, "compaction_divider", None)
    if isinstance(divider, CompactionDivider):
        divider.release()
        view._layout.removeWidget(divider)
        divider.deleteLater()
    view.compaction_divider = None  # type: ignore[attr-defined]


class CompactionUi(QObject):
    """Compaction in the main window: the action, the meter click, the divider and the messages."""

    def __init__(self, window: Any, runtime: Any, conversation_id: Callable[[], str | None]) -> None:
        super().__init__(window)
        self.window = window
        self.runtime = runtime
        self.current = conversation_id
        self.action = QAction("Co&mpact conversation now", window)
        self.action.setObjectName("compactAction")
        self.action.setShortcut(QKeySequence(COMPACT_SHORTCUT))
        self.action.setToolTip("Summarise the older turns with the model; the latest turns stay as they are")
        self.action.triggered.connect(self.compact_now)
        meter = window.composer.context_meter
        if hasattr(meter, "clicked"):
            meter.clicked.connect(self.compact_now)
        window.view.transcript_loaded.connect(self.apply)
        self.compacting: str | None = None
        """The conversation being compacted by "Compact now" (Stop and Esc stop it)."""
        window.composer.stop_requested.connect(self.stop)
        shortcut = getattr(window, "stop_shortcut", None)
        if shortcut is not None:
            shortcut.activated.connect(self.stop)
        self._unsubscribe = runtime.subscribe(self._on_event)

    # -- user intent ---------------------------------------------------------------------------------------

    def compact_now(self) -> bool:
        """Start compacting the shown conversation (refused, with a status line, while it runs)."""
        cid = self.current()
        controller = getattr(self.window, "controller", None)
        if cid is None or (controller is not None and controller.busy) or self.runtime.is_running(cid):
            self.window.set_status("Stop the run first: a conversation cannot be compacted while it runs")
            return False
        try:
            self.runtime.conversation(cid)
        except Exception:
            self.window.set_status("Nothing to compact yet: send a message first")
            return False
        self.window.set_status("Compacting the conversation…")
        self.window.tasks.start(self._compact(cid), name="compact")
        return True

    async def _compact(self, cid: str) -> None:
        from desktop_app.runtime.compaction.compactor import CompactionError

        self.window.composer.set_busy(True)
        self.compacting = cid
        try:
            await self.runtime.compact(cid)
        except CompactionError:
            pass  # its CompactionFailed event is shown already
        finally:
            self.compacting = None
            self.window.composer.set_busy(False)
            self._refresh_meter()

    def stop(self) -> None:
        """Stop a compaction started here (nothing changes: the mark is added only once the summary is in)."""
        if self.compacting is not None:
            self.window.set_status("Stopping the compaction…")
            self.runtime.cancel(self.compacting)

    def undo(self, compaction_id: str) -> None:
        cid = self.current()
        if cid is None:
            return
        try:
            self.runtime.undo_compaction(cid, compaction_id)
        except Exception as exc:  # busy, or undone meanwhile: say so, change nothing
            self.window.set_status(str(exc))

    # -- what the view shows ----------------------------------------------------------------------------

    def _total_turns(self, cid: str) -> int:
        store = getattr(self.window, "store", None)
        if store is not None and store.get_conversation(cid) is not None:
            return len(store.user_positions(cid))
        from desktop_app.runtime.messages import UserMessage

        conv = self.runtime.conversation(cid)
        return sum(1 for m in conv.messages if isinstance(m, UserMessage)) if conv.loaded else 0

    def apply(self) -> CompactionDivider | None:
        """Show the divider of the shown conversation's compaction in force (after a reopen or an undo)."""
        from desktop_app.runtime.compaction.plan import active

        cid = self.current()
        view = self.window.view
        try:
            current = active(self.runtime.compactions(cid)) if cid is not None else None
        except Exception:  # a conversation the runtime does not know (yet)
            current = None
        if current is None or cid is None:
            remove_divider(view)
            return None
        divider = place_divider(view, current, self._total_turns(cid))
        if divider is not None:
            divider.undo_requested.connect(self.undo)
        return divider

    def _on_event(self, event: Any) -> None:
        kind = getattr(event, "kind", "")
        if not kind.startswith(("compaction_", "conversation_compacted")) or event.conversation_id != self.current():
            return
        view = self.window.view
        if kind == "compaction_started":
            automatic = " (the context is nearly full)" if event.reason == "auto" else ""
            self.window.set_status(f"Compacting the conversation{automatic}…")
        elif kind == "conversation_compacted":
            divider = self.apply()
            for notice in event.notices:
                view.add_hook_notice(notice)
            where = "" if divider is not None else " (above the shown messages: Show earlier)"
            self.window.set_status(
                f"Compacted: {event.summarised} messages summarised; the next request ~{event.tokens_before:,} → "
                f"~{event.tokens_after:,} tokens{where}"
            )
            self._refresh_meter()
        elif kind == "compaction_failed":
            view.end_segment()
            view.add_notice(event.message, "stopped" if event.code == "cancelled" else "error")
            if event.details:
                from desktop_app.ui.chat.error_details import ErrorDetails

                view.add_block(ErrorDetails(event.details))
            for notice in event.notices:
                view.add_hook_notice(notice)
            stopped = event.code == "cancelled"
            self.window.set_status("Compaction stopped" if stopped else "Compaction failed — see the conversation")
        elif kind == "compaction_undone":
            self.apply()  # the previous compaction's divider, if one is still in force
            view.add_notice("Compaction undone — the next request sends the full history again.")
            self.window.set_status("Compaction undone")
            self._refresh_meter()

    def _refresh_meter(self) -> None:
        show = getattr(getattr(self.window, "conversation_ctl", None), "show_context_budget", None)
        if callable(show):
            show()

    def close(self) -> None:
        self._unsubscribe()


def install_compaction(window: Any, runtime: Any, conversation_id: Callable[[], str | None]) -> CompactionUi | None:
    """Add compaction to the window (File → Compact conversation now, the meter click, the divider); ``None``
    for a runtime without compaction (test fakes)."""
    if not hasattr(runtime, "compact") or not hasattr(window.view, "transcript_loaded"):
        return None
    ui = CompactionUi(window, runtime, conversation_id)
    menu = getattr(window, "file_menu", None)
    if menu is None:
        menus = [a.menu() for a in window.menuBar().actions() if a.menu() is not None]
        menu = menus[0] if menus else None
    if menu is not None:
        before = getattr(window, "import_action", None)
        if before is not None and before in menu.actions():
            menu.insertAction(before, ui.action)
        else:
            menu.addAction(ui.action)
    return ui
