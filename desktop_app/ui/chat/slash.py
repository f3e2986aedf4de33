"""MCP prompts as ``/`` commands in the composer.

:class:`PromptCatalog` keeps the prompts of every ready server (``Host.list_prompts``), cached per server and
fetched again when a server becomes ready or says its tools changed; a server that stops drops out.
:class:`SlashCommands` watches the composer: a ``/`` at the start (with no space yet) opens a completion list
over the transcript (``server/name`` and description, filtered as the user types; Up/Down, Enter or Tab
chooses, Esc closes). A prompt with arguments asks for them in a small inline form above the prompt box;
then ``Host.get_prompt`` renders it and its text replaces the composer's, to edit before sending. A plugin
command's ``!`…` `` context lines are shown for approval first (the exact commands) and run only if approved,
their output in their place (:mod:`desktop_app.runtime.plugins.context_commands`).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Any

from PySide6.QtCore import QEvent, QObject, QPoint, Qt, Signal
from PySide6.QtGui import QKeyEvent, QTextCursor
from PySide6.QtWidgets import (
    QFormLayout,
    QFrame,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from desktop_app.runtime.plugins.context_commands import commands_in
from desktop_app.runtime.plugins.prompts import SERVER_NAME as PLUGINS_SERVER
from desktop_app.ui.asyncqt import TaskRunner
from desktop_app.ui.chat.common import ERROR_COLOR, escape
from desktop_app.ui.servers.status import HostBridge

log = logging.getLogger(__name__)

MAX_ROWS = 8
_CHOOSE_KEYS = (Qt.Key.Key_Return, Qt.Key.Key_Enter, Qt.Key.Key_Tab)


@dataclass(frozen=True)
class PromptArg:
    name: str
    description: str = ""
    required: bool = False


@dataclass(frozen=True)
class PromptEntry:
    """One server's prompt, as the ``/`` list shows it."""

    server: str
    name: str
    description: str = ""
    arguments: tuple[PromptArg, ...] = field(default_factory=tuple)

    @property
    def command(self) -> str:
        return f"{self.server}/{self.name}"


def _entry(server: str, prompt: Any) -> PromptEntry:
    args = tuple(
        PromptArg(a.name, a.description or "", bool(a.required)) for a in (getattr(prompt, "arguments", None) or [])
    )
    description = getattr(prompt, "description", None) or getattr(prompt, "title", None) or ""
    return PromptEntry(server, prompt.name, description, args)


class PromptCatalog(QObject):
    """The ready servers' prompts, cached per server and kept current from the host's events.

    Signals:
        changed(): the list of prompts changed.
    """

    changed = Signal()

    def __init__(self, tasks: TaskRunner | None = None, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.tasks = tasks or TaskRunner()
        self.host: Any = None
        self.prompts: dict[str, list[PromptEntry]] = {}
        self.loading: set[str] = set()
        self.bridge = HostBridge(self)
        self.bridge.event_received.connect(self.on_event)

    def attach(self, host: Any) -> None:
        """Follow ``host`` and fetch the prompts of the servers already ready."""
        from desktop_app.runtime.plugins.prompts import SERVER_NAME as PLUGIN_PROMPTS

        self.host = host
        self.bridge.attach(host)
        for name, status in host.states().items():
            if status.state == "ready" or name == PLUGIN_PROMPTS:  # plugin prompts: offered from the start
                self.refresh(name)

    def entries(self) -> list[PromptEntry]:
        return [entry for server in sorted(self.prompts) for entry in self.prompts[server]]

    def on_event(self, event: Any) -> None:
        kind = getattr(event, "kind", None)
        if kind == "tools_changed" or (kind == "server_state" and event.state == "ready"):
            self.refresh(event.server)
        elif kind == "server_state" and self.prompts.pop(event.server, None) is not None:
            self.changed.emit()

    def refresh(self, server: str) -> None:
        """Fetch ``server``'s prompts again (in the background)."""
        if self.host is not None and server not in self.loading:
            self.loading.add(server)
            self.tasks.start(self._fetch(server), name=f"list-prompts-{server}")

    async def _fetch(self, server: str) -> None:
        try:
            prompts = await self.host.list_prompts(server)
        except Exception as exc:  # no prompts capability, or the server went away: nothing to offer
            log.debug("no prompts from %s: %s", server, exc)
            prompts = []
        finally:
            self.loading.discard(server)
        entries = sorted((_entry(server, p) for p in prompts), key=lambda e: e.name)
        if self.prompts.get(server) != entries:
            self.prompts[server] = entries
            self.changed.emit()


class ArgumentsForm(QFrame):
    """The inline form for a prompt's arguments, above the prompt box.

    Signals:
        submitted(dict): the arguments (empty optional ones left out).
        cancelled(): the user closed the form.
    """

    submitted = Signal(dict)
    cancelled = Signal()

    def __init__(self, entry: PromptEntry, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.entry = entry
        self.setObjectName("promptArgumentsForm")
        self.setStyleSheet("QFrame#promptArgumentsForm { border: 1px solid palette(mid); border-radius: 6px; }")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 6, 8, 6)
        title = QLabel(f"<b>/{escape(entry.command)}</b> {escape(entry.description)}")
        title.setWordWrap(True)
        layout.addWidget(title)
        form = QFormLayout()
        self.edits: dict[str, QLineEdit] = {}
        for arg in entry.arguments:
            edit = QLineEdit()
            edit.setObjectName(f"promptArg_{arg.name}")
            edit.setPlaceholderText(arg.description or ("required" if arg.required else "optional"))
            edit.setAccessibleName(arg.name)
            edit.returnPressed.connect(self.submit)
            self.edits[arg.name] = edit
            star = f' <span style="color:{ERROR_COLOR}">*</span>' if arg.required else ""
            form.addRow(QLabel(f"{escape(arg.name)}{star}"), edit)
        layout.addLayout(form)
        self.error = QLabel("")
        self.error.setObjectName("promptArgumentsError")
        self.error.setStyleSheet(f"QLabel {{ color: {ERROR_COLOR}; }}")
        self.error.setWordWrap(True)
        self.error.hide()
        layout.addWidget(self.error)
        row = QHBoxLayout()
        row.addStretch(1)
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.setAutoDefault(False)
        self.cancel_button.clicked.connect(self.cancelled)
        self.insert_button = QPushButton("Insert prompt")
        self.insert_button.setObjectName("insertPromptButton")
        self.insert_button.setAutoDefault(False)
        self.insert_button.clicked.connect(self.submit)
        row.addWidget(self.cancel_button)
        row.addWidget(self.insert_button)
        layout.addLayout(row)

    def values(self) -> dict[str, str]:
        return {name: edit.text() for name, edit in self.edits.items() if edit.text()}

    def submit(self) -> None:
        values = self.values()
        missing = [arg.name for arg in self.entry.arguments if arg.required and arg.name not in values]
        if missing:
            self.show_error("Fill in " + ", ".join(missing) + ".")
            self.edits[missing[0]].setFocus()
            return
        self.error.hide()
        self.submitted.emit(values)

    def show_error(self, text: str) -> None:
        self.error.setText(text)
        self.error.show()


class SlashCommands(QObject):
    """The ``/`` completion list and argument form of one composer.

    Signals:
        error(str): a prompt could not be fetched (no argument form to show it in).
        filled(str): the composer now holds this prompt text.
    """

    error = Signal(str)
    filled = Signal(str)

    def __init__(self, composer: Any, catalog: PromptCatalog, tasks: TaskRunner, parent: QObject | None = None) -> None:
        super().__init__(parent or composer)
        self.composer = composer
        self.catalog = catalog
        self.tasks = tasks
        self.form: ArgumentsForm | None = None
        self.approval: Any = None
        """The open approval of a plugin command's context commands (tests answer it)."""
        self._filling = False
        self.popup = QListWidget(composer.window())
        self.popup.setObjectName("slashPopup")
        self.popup.setAccessibleName("MCP prompts")
        self.popup.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.popup.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.popup.itemClicked.connect(self._on_item_clicked)
        self.popup.hide()
        composer.edit.textChanged.connect(self._on_text_changed)
        composer.edit.installEventFilter(self)
        catalog.changed.connect(self._on_text_changed)

    # -- the list ----------------------------------------------------------------------------------------

    def query(self) -> str | None:
        """What follows a leading ``/`` while it is still one word; ``None`` when no command is being typed."""
        text: str = self.composer.edit.toPlainText()
        if not text.startswith("/") or any(ch.isspace() for ch in text):
            return None
        return text[1:].lower()

    def matches(self, query: str) -> list[PromptEntry]:
        return [e for e in self.catalog.entries() if query in e.command.lower() or query in e.description.lower()]

    def _on_text_changed(self) -> None:
        query = None if self._filling else self.query()
        if query is None:
            self.popup.hide()
            return
        self.popup.clear()
        for entry in self.matches(query):
            item = QListWidgetItem(f"/{entry.command}" + (f"  —  {entry.description}" if entry.description else ""))
            item.setData(Qt.ItemDataRole.UserRole, entry)
            item.setToolTip(entry.description)
            self.popup.addItem(item)
        if self.popup.count():
            self.popup.setCurrentRow(0)
        else:
            waiting = " (loading…)" if self.catalog.loading else ""
            item = QListWidgetItem(f"No MCP prompt matches{waiting}" if query else f"No MCP prompts{waiting}")
            item.setFlags(Qt.ItemFlag.NoItemFlags)
            self.popup.addItem(item)
        self._place()

    def _place(self) -> None:
        edit = self.composer.edit
        window = self.popup.parentWidget()
        if window is None:  # pragma: no cover - the popup always has the composer's window as parent
            return
        top_left = edit.mapTo(window, QPoint(0, 0))
        rows = min(self.popup.count(), MAX_ROWS)
        height = rows * max(self.popup.sizeHintForRow(0), 18) + 2 * self.popup.frameWidth() + 2
        width = max(min(max(edit.width(), 420), window.width() - top_left.x() - 8), 200)
        self.popup.setGeometry(top_left.x(), max(top_left.y() - height - 2, 0), width, height)
        self.popup.show()
        self.popup.raise_()

    def entries_shown(self) -> list[PromptEntry]:
        items = (self.popup.item(i) for i in range(self.popup.count()))
        return [entry for item in items if isinstance(entry := item.data(Qt.ItemDataRole.UserRole), PromptEntry)]

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        """Up/Down, Enter/Tab and Esc drive the open list; everything else goes to the prompt box."""
        if not self.popup.isVisible() or event.type() not in (QEvent.Type.KeyPress, QEvent.Type.ShortcutOverride):
            return False
        assert isinstance(event, QKeyEvent)
        key, plain = event.key(), event.modifiers() == Qt.KeyboardModifier.NoModifier
        if event.type() == QEvent.Type.ShortcutOverride:  # keep Esc from the window's "stop" shortcut
            if key == Qt.Key.Key_Escape:
                event.accept()
                return True
            return False
        if key == Qt.Key.Key_Escape:
            self.popup.hide()
        elif key in (Qt.Key.Key_Up, Qt.Key.Key_Down):
            step = -1 if key == Qt.Key.Key_Up else 1
            self.popup.setCurrentRow(max(0, min(self.popup.count() - 1, self.popup.currentRow() + step)))
        elif key in _CHOOSE_KEYS and plain:
            self._choose_item(self.popup.currentItem())
        else:
            return False
        return True

    def _on_item_clicked(self, item: QListWidgetItem) -> None:
        self._choose_item(item)

    def _choose_item(self, item: QListWidgetItem | None) -> None:
        entry = item.data(Qt.ItemDataRole.UserRole) if item is not None else None
        if isinstance(entry, PromptEntry):
            self.choose(entry)

    # -- choosing ----------------------------------------------------------------------------------------

    def choose(self, entry: PromptEntry) -> None:
        """Use ``entry``: ask for its arguments if it has any, else fetch it into the composer now."""
        self.popup.hide()
        self._set_text(f"/{entry.command} ")
        self.close_form()
        if not entry.arguments:
            self.tasks.start(self._fill(entry, {}), name="get-prompt")
            return
        form = ArgumentsForm(entry)
        form.submitted.connect(lambda values: self.tasks.start(self._fill(entry, values), name="get-prompt"))
        form.cancelled.connect(self._on_form_cancelled)
        self.form = form
        self.composer.layout().insertWidget(1, form)
        next(iter(form.edits.values())).setFocus()

    def _on_form_cancelled(self) -> None:
        self.close_form()
        self._set_text("")
        self.composer.edit.setFocus()

    def close_form(self) -> None:
        if self.form is not None:
            self.form.hide()
            self.form.deleteLater()
            self.form = None

    async def _fill(self, entry: PromptEntry, arguments: dict[str, str]) -> None:
        try:
            prompt = await self.catalog.host.get_prompt(entry.server, entry.name, arguments)
        except Exception as exc:
            message = f"Could not get the prompt /{entry.command}: {exc}"
            if self.form is not None and self.form.entry == entry:
                self.form.show_error(message)
            else:
                self.error.emit(message)
            return
        text = prompt.as_text()
        if entry.server == PLUGINS_SERVER and commands_in(text):
            text = await self._run_context_commands(entry, text)
        self.close_form()
        self._set_text(text)
        edit = self.composer.edit
        edit.moveCursor(QTextCursor.MoveOperation.End)
        edit.setFocus()
        self.filled.emit(text)

    async def _run_context_commands(self, entry: PromptEntry, text: str) -> str:
        """A plugin command's ``!`…` `` lines: the exact commands shown for approval, run only if approved."""
        from desktop_app.ui.chat.context_approval import run_context_commands

        return await run_context_commands(self, entry.command, entry.name, text)

    def _set_text(self, text: str) -> None:
        self._filling = True
        try:
            self.composer.set_text(text)
        finally:
            self._filling = False
        self.popup.hide()


__all__ = ["ArgumentsForm", "PromptArg", "PromptCatalog", "PromptEntry", "SlashCommands"]
