"""The conversation list: newest first, search, new chat, rename, delete with undo, export.

The panel reads and writes the ``Store`` directly (its calls are small SQLite transactions on the UI
thread). Search filters instantly by title and, through the store's FTS index, by content; a content match
shows its snippet in the item's tooltip. Delete is a soft delete with an inline "Conversation deleted —
Undo" bar for ``UNDO_SECONDS``; Undo calls ``restore_conversation``; otherwise the app purges deleted
conversations at its next start (the timer only hides the bar). Export opens a non-blocking file dialog;
``export_to`` does the writing (tests call it with a path).

Nothing here imports the store or pydantic at module level: the window imports this before its first paint.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QEvent, QObject, QPoint, Qt, QTimer, Signal
from PySide6.QtGui import QAction, QKeyEvent
from PySide6.QtWidgets import (
    QFileDialog,
    QFrame,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QMenu,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from desktop_app.ui.conversations.groups import (
    DATE_ROLE,
    HEADER_ROLE,
    MARKS,
    SNIPPET_ROLE,
    ConversationDelegate,
    group_of,
    short_date,
)

if TYPE_CHECKING:
    from desktop_app.runtime.store import ConversationInfo, Store

log = logging.getLogger(__name__)

UNDO_SECONDS = 10
SEARCH_LIMIT = 200
UNTITLED = "Untitled conversation"
ID_ROLE = Qt.ItemDataRole.UserRole
TITLE_ROLE = Qt.ItemDataRole.UserRole + 1
EXPORT_FORMATS = {"markdown": ("Markdown (*.md)", ".md"), "json": ("JSON (*.json)", ".json")}


def describe_time(ts: float) -> str:
    """'2025-03-01 18:40' (local time)."""
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(ts))


def conversation_tooltip(info: ConversationInfo, snippet: str | None = None) -> str:
    """Title, provider (model at base URL), last activity, and the search snippet if any."""
    lines = [info.title or UNTITLED]
    if info.model or info.base_url:
        lines.append(f"{info.model or 'unknown model'} at {info.base_url or 'unknown address'}")
    lines.append(f"Last activity {describe_time(info.updated_at)}")
    if snippet:
        lines.append(f"…{snippet.strip('…')}…")
    return "\n".join(lines)


class ConversationList(QWidget):
    """The left-hand list of stored conversations.

    Signals:
        conversation_selected(str): the user opened this conversation (click, Enter).
        new_chat_requested(): the user asked for a new chat (the panel's button).
        conversation_deleted(str): this conversation was (soft-)deleted.
        conversation_restored(str): a deletion was undone.
        store_attached(): ``set_store`` was called (the actions that need a store turn on).
        status_message(str): a short line for the status bar (an export was written …).
        error_occurred(str): an operation failed; the text says what happened.
    """

    conversation_selected = Signal(str)
    new_chat_requested = Signal()
    conversation_deleted = Signal(str)
    conversation_restored = Signal(str)
    store_attached = Signal()
    filled = Signal()  # the list was filled again (``window.empty_states`` shows "No conversations yet")
    status_message = Signal(str)
    error_occurred = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("conversationPanel")
        self.store: Store | None = None
        self.current_id: str | None = None
        self.snippets: dict[str, str] = {}
        self.deleted: list[str] = []  # deleted since the undo bar appeared (Undo restores them all)
        self._infos: list[ConversationInfo] = []
        self._filling = False
        self.toggle_action: QAction | None = None  # View → Conversations (set when docked)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        layout.setSpacing(6)
        top = QHBoxLayout()
        top.setSpacing(4)
        self.search = QLineEdit()
        self.search.setObjectName("conversationSearch")
        self.search.setAccessibleName("Search conversations")
        self.search.setPlaceholderText("Search conversations")
        self.search.setClearButtonEnabled(True)
        self.search.textChanged.connect(lambda _text: self._fill())
        top.addWidget(self.search, 1)
        self.new_button = QPushButton("New")
        self.new_button.setObjectName("newChatButton")
        self.new_button.setAccessibleName("New chat")
        self.new_button.setToolTip("New chat (Ctrl+N)")
        self.new_button.clicked.connect(self.new_chat_requested)
        top.addWidget(self.new_button)
        layout.addLayout(top)

        self.list = QListWidget()
        self.list.setObjectName("conversationList")
        self.list.setAccessibleName("Conversations")
        self.list.setEditTriggers(QListWidget.EditTrigger.EditKeyPressed)
        self.list.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.list.setUniformItemSizes(False)  # group headers, and rows with a search snippet, differ
        self.list.setItemDelegate(ConversationDelegate(self.list))
        self.list.setSpacing(3)
        self.list.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.list.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.list.customContextMenuRequested.connect(self._on_context_menu)
        self.list.itemClicked.connect(self._on_item_activated)
        self.list.itemActivated.connect(self._on_item_activated)
        self.list.itemChanged.connect(self._on_item_changed)
        layout.addWidget(self.list, 1)
        # The empty-state note sits centred inside the list's viewport, covering it (mouse events pass through).
        self.empty_label = QLabel("No conversations yet.", self.list.viewport())
        self.empty_label.setObjectName("conversationsEmpty")
        self.empty_label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.empty_label.setWordWrap(True)
        self.empty_label.setContentsMargins(12, 12, 12, 12)
        self.empty_label.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents)
        self.empty_label.setStyleSheet("QLabel { color: palette(placeholder-text); background: transparent; }")
        self.list.viewport().installEventFilter(self)  # keeps the note the viewport's size

        self.undo_bar = QFrame()
        self.undo_bar.setObjectName("undoBar")
        self.undo_bar.setStyleSheet(
            "QFrame#undoBar { border: 1px solid palette(mid); border-radius: 6px; background: palette(base); }"
        )
        bar = QHBoxLayout(self.undo_bar)
        bar.setContentsMargins(8, 2, 4, 2)
        self.undo_label = QLabel("Conversation deleted")
        self.undo_label.setObjectName("undoText")
        bar.addWidget(self.undo_label, 1)
        self.undo_button = QPushButton("Undo")
        self.undo_button.setObjectName("undoButton")
        self.undo_button.setAccessibleName("Undo the deletion")
        self.undo_button.clicked.connect(self.undo_delete)
        bar.addWidget(self.undo_button)
        self.undo_bar.hide()
        layout.addWidget(self.undo_bar)
        self.undo_timer = QTimer(self)
        self.undo_timer.setSingleShot(True)
        self.undo_timer.setInterval(UNDO_SECONDS * 1000)
        self.undo_timer.timeout.connect(self.dismiss_undo)

        self.list.installEventFilter(self)  # Delete on the list deletes (not a window-wide shortcut)
        self.setEnabled(False)

    # -- data ----------------------------------------------------------------------------------------------

    def set_store(self, store: Store) -> None:
        self.store = store
        self.setEnabled(True)
        self.refresh()
        self.store_attached.emit()

    def refresh(self) -> None:
        """Reload the conversations from the store and apply the search."""
        if self.store is None:
            return
        self._infos = self.store.list_conversations()
        self._fill()

    def conversation_ids(self) -> list[str]:
        """The ids shown, top to bottom."""
        ids = (self.list.item(i).data(ID_ROLE) for i in range(self.list.count()))
        return [cid for cid in ids if cid]  # not the group headers

    def item_for(self, conversation_id: str) -> QListWidgetItem | None:
        items = (self.list.item(i) for i in range(self.list.count()))
        return next((item for item in items if item.data(ID_ROLE) == conversation_id), None)

    def set_current(self, conversation_id: str | None) -> None:
        """Highlight the conversation the view shows (``None``: a new chat, nothing highlighted)."""
        self.current_id = conversation_id
        item = self.item_for(conversation_id) if conversation_id else None
        self.list.blockSignals(True)
        try:
            if item is not None:
                self.list.setCurrentItem(item)
            else:
                self.list.clearSelection()
                self.list.setCurrentRow(-1)
        finally:
            self.list.blockSignals(False)

    def _matches(self) -> tuple[list[ConversationInfo], dict[str, str]]:
        text = self.search.text().strip()
        if not text or self.store is None:
            return self._infos, {}
        folded = text.casefold()
        snippets: dict[str, str] = {}
        try:
            for hit in self.store.search(text, SEARCH_LIMIT, marks=MARKS):
                snippets.setdefault(hit.conversation_id, hit.snippet)
        except Exception as exc:  # a search must never break the list
            log.warning("conversation search failed: %s", exc)
        shown = [i for i in self._infos if folded in (i.title or UNTITLED).casefold() or i.id in snippets]
        return shown, snippets

    def _fill(self) -> None:
        shown, self.snippets = self._matches()
        self._filling = True
        self.list.blockSignals(True)
        try:
            self.list.clear()
            now = time.time()
            group = None
            for info in shown:
                if group_of(info.updated_at, now) != group:  # Today, Yesterday, Previous 7 days, months
                    group = group_of(info.updated_at, now)
                    header = QListWidgetItem(group)
                    header.setFlags(Qt.ItemFlag.NoItemFlags)
                    header.setData(HEADER_ROLE, True)
                    header.setData(Qt.ItemDataRole.AccessibleTextRole, f"{group}:")
                    self.list.addItem(header)
                item = QListWidgetItem(info.title or UNTITLED)
                item.setData(ID_ROLE, info.id)
                item.setData(TITLE_ROLE, info.title)
                item.setData(DATE_ROLE, short_date(info.updated_at, now))
                snippet = self.snippets.get(info.id)
                if snippet:
                    item.setData(SNIPPET_ROLE, snippet)
                plain = snippet.replace(MARKS[0], "[").replace(MARKS[1], "]") if snippet else None
                item.setToolTip(conversation_tooltip(info, plain))
                item.setFlags(item.flags() | Qt.ItemFlag.ItemIsEditable)
                if info.quick:  # started in the quick prompt: a bolt and a word in the tooltip
                    from desktop_app.ui.tray.quick_prompt import quick_icon

                    item.setIcon(quick_icon())
                    item.setToolTip("Quick prompt · " + item.toolTip())
                if not info.title:
                    font = item.font()
                    font.setItalic(True)
                    item.setFont(font)
                self.list.addItem(item)
        finally:
            self.list.blockSignals(False)
            self._filling = False
        searching = bool(self.search.text().strip())
        self.empty_label.setText("No conversation matches." if searching else "No conversations yet.")
        self.empty_label.setVisible(not shown)
        self.set_current(self.current_id)
        self.filled.emit()

    # -- user actions --------------------------------------------------------------------------------------

    def _on_item_activated(self, item: QListWidgetItem) -> None:
        conversation_id = item.data(ID_ROLE)
        if conversation_id:
            self.conversation_selected.emit(conversation_id)

    def selected_id(self) -> str | None:
        item = self.list.currentItem()
        return item.data(ID_ROLE) if item is not None and item.isSelected() else self.current_id

    def start_rename(self, conversation_id: str | None = None) -> bool:
        """Edit the title inline (F2). Returns whether an editor opened."""
        item = self.item_for(conversation_id or self.selected_id() or "")
        if item is None:
            return False
        self.list.setCurrentItem(item)
        self.list.setFocus()
        self.list.editItem(item)
        return True

    def rename(self, conversation_id: str, title: str) -> None:
        """Store a new title (an empty one keeps the old title)."""
        if self.store is not None and title.strip():
            self._try("rename", self.store.rename_conversation, conversation_id, title)
        self.refresh()

    def _on_item_changed(self, item: QListWidgetItem) -> None:
        if self._filling:
            return
        new, old = item.text().strip(), item.data(TITLE_ROLE) or ""
        if new == (old or UNTITLED):
            return
        conversation_id = item.data(ID_ROLE)
        QTimer.singleShot(0, lambda: self.rename(conversation_id, new))  # not from inside the editor's commit

    def delete(self, conversation_id: str) -> None:
        """Soft-delete and show the undo bar for ``UNDO_SECONDS``."""
        if self.store is None or not self._try("delete", self.store.delete_conversation, conversation_id):
            return
        self.deleted.append(conversation_id)
        n = len(self.deleted)
        self.undo_label.setText("Conversation deleted" if n == 1 else f"{n} conversations deleted")
        self.undo_bar.show()
        self.undo_timer.start()
        self.refresh()
        self.conversation_deleted.emit(conversation_id)

    def undo_delete(self) -> None:
        """Restore every conversation deleted since the bar appeared."""
        restored, store = self.deleted, self.store
        self.dismiss_undo()
        for conversation_id in restored if store is not None else []:
            if store is not None and self._try("restore", store.restore_conversation, conversation_id):
                self.conversation_restored.emit(conversation_id)
        self.refresh()

    def _try(self, what: str, action: Callable[..., object], *args: object) -> bool:
        """Run a store call; a failure becomes ``error_occurred`` ("Could not <what> the conversation: …")."""
        try:
            action(*args)
        except Exception as exc:
            self.error_occurred.emit(f"Could not {what} the conversation: {exc}")
            return False
        return True

    def dismiss_undo(self) -> None:
        """The undo time is over: hide the bar (the deleted rows are purged at the next start)."""
        self.deleted = []
        self.undo_timer.stop()
        self.undo_bar.hide()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.list.viewport() and event.type() == QEvent.Type.Resize:
            self.empty_label.setGeometry(self.list.viewport().rect())
        elif watched is self.list and event.type() == QEvent.Type.KeyPress:
            assert isinstance(event, QKeyEvent)
            item = self.list.currentItem()
            if event.key() == Qt.Key.Key_Delete and item is not None and item.isSelected():
                self.delete(item.data(ID_ROLE))
                return True
        return super().eventFilter(watched, event)

    def export_to(self, conversation_id: str, path: Path | str, fmt: str = "markdown") -> Path | None:
        """Write the conversation as Markdown or JSON to ``path``. Returns the path, or ``None`` on failure."""
        if self.store is None:
            return None
        from desktop_app.runtime.store.export import export_conversation

        target = Path(path)
        if not self._try("export", export_conversation, self.store, conversation_id, target, fmt):
            return None
        self.status_message.emit(f"Exported to {target}")
        return target

    def open_export_dialog(self, conversation_id: str, fmt: str = "markdown") -> QFileDialog | None:
        """Ask where to save (a window-modal dialog that does not block the loop), then ``export_to``."""
        if self.store is None:
            return None
        info = self.store.get_conversation(conversation_id)
        name_filter, suffix = EXPORT_FORMATS.get(fmt, EXPORT_FORMATS["markdown"])
        stem = "".join(c if c.isalnum() or c in " -_" else "_" for c in (info.title if info else "") or "conversation")
        dialog = QFileDialog(self.window(), "Export conversation", stem.strip()[:60] + suffix, name_filter)
        dialog.setObjectName("exportDialog")
        dialog.setAcceptMode(QFileDialog.AcceptMode.AcceptSave)
        dialog.setDefaultSuffix(suffix.lstrip("."))
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.fileSelected.connect(lambda path: self.export_to(conversation_id, path, fmt))
        dialog.open()
        return dialog

    def entries(self) -> list[tuple[str, str, Callable[[str], object]]]:
        """The actions on one conversation: (text, shortcut, what to call with its id)."""
        return [
            ("&Rename conversation", "F2", self.start_rename),
            ("Export as &Markdown…", "", lambda cid: self.open_export_dialog(cid, "markdown")),
            ("Export as &JSON…", "", lambda cid: self.open_export_dialog(cid, "json")),
            ("&Delete conversation", "Del", self.delete),
        ]

    def context_menu(self, conversation_id: str) -> QMenu:
        """The right-click menu of one conversation."""
        menu = QMenu(self)
        menu.setObjectName("conversationMenu")
        for text, shortcut, slot in self.entries():
            action = menu.addAction(text + (f"\t{shortcut}" if shortcut else ""))
            action.triggered.connect(lambda _=False, slot=slot: slot(conversation_id))
        return menu

    def _on_context_menu(self, pos: QPoint) -> None:
        item = self.list.itemAt(pos)
        if item is None:
            return
        menu = self.context_menu(item.data(ID_ROLE))
        menu.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        menu.popup(self.list.viewport().mapToGlobal(pos))


__all__ = [
    "UNDO_SECONDS",
    "ConversationList",
    "conversation_tooltip",
    "describe_time",
]
