"""Managing servers from the Servers dock: Add…, Edit…, Enable/Disable, Remove, and ``mcp.json`` on disk.

:class:`ServerActions` runs each action through the Qt-free
:class:`~desktop_app.runtime.host.manage.ServerManager` (file, keyring and host in step) and says what
happened in a sentence (``notice``). :class:`McpFileWatcher` notices ``mcp.json`` edited outside the app
(the folder is watched too, since editors and our own atomic writes replace the file) and, after a short
quiet period, the actions reload it: new servers start, changed ones restart, removed ones stop. A broken
file is reported with its path, line and column; the servers keep running as they were.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
from collections.abc import Awaitable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Protocol, TypeVar, runtime_checkable

from PySide6.QtCore import QFileSystemWatcher, QObject, QTimer, Signal
from PySide6.QtWidgets import QMessageBox, QWidget

from desktop_app.ui.asyncqt import TaskRunner
from desktop_app.ui.dialogs.frame import message_box

if TYPE_CHECKING:
    from desktop_app.runtime.host.manage import ServerDraft, ServerManager
    from desktop_app.runtime.host.servers import ServerStatus
    from desktop_app.ui.servers.server_dialog import ServerDialog

log = logging.getLogger(__name__)
T = TypeVar("T")


@runtime_checkable
class StatusSource(Protocol):
    """The host's server states, where the manager's host has them (the real ``Host`` does)."""

    def states(self) -> Mapping[str, ServerStatus]: ...


QUIET_MS = 250
"""How long the file must stay unchanged before it is read (editors write in several steps)."""


def _digest(path: Path) -> str | None:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return None


class McpFileWatcher(QObject):
    """Emits ``changed`` once ``path``'s content changed on disk and then stayed the same for a moment."""

    changed = Signal()

    def __init__(self, path: Path, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.path = path
        self.seen = _digest(path)
        self.watcher = QFileSystemWatcher(self)
        path.parent.mkdir(parents=True, exist_ok=True)
        self.watcher.addPath(str(path.parent))
        self._watch_file()
        self.watcher.fileChanged.connect(self._poke)
        self.watcher.directoryChanged.connect(self._poke)
        self.timer = QTimer(self)
        self.timer.setSingleShot(True)
        self.timer.setInterval(QUIET_MS)
        self.timer.timeout.connect(self._settle)

    def _watch_file(self) -> None:
        if self.path.exists() and str(self.path) not in self.watcher.files():
            self.watcher.addPath(str(self.path))

    def _poke(self, _path: str = "") -> None:
        self._watch_file()  # a replaced file drops out of the watch list
        self.timer.start()

    def _settle(self) -> None:
        digest = _digest(self.path)
        if digest != self.seen:
            self.seen = digest
            self.changed.emit()

    def note_written(self) -> None:
        """The app wrote the file itself (its own reload follows): do not report that as an outside edit."""
        self.seen = _digest(self.path)


class ServerActions(QObject):
    """The Servers dock's management actions for one ``ServerManager``.

    Signals:
        notice(str): a sentence for the status bar (what happened, or what went wrong and what to do).
        changed(): mcp.json and the host were updated (the panel re-reads its rows).
    """

    notice = Signal(str)
    changed = Signal()

    def __init__(self, manager: ServerManager, parent: QWidget, *, tasks: TaskRunner | None = None) -> None:
        super().__init__(parent)
        self.manager = manager
        self._parent = parent
        self.tasks = tasks or TaskRunner(on_error=self._on_task_failed)
        self.dialog: ServerDialog | None = None
        self.confirm: QMessageBox | None = None
        self.watcher = McpFileWatcher(manager.path, self)
        self.watcher.changed.connect(self._on_file_changed)
        manager.on_written = self.note_own_write
        self.known: set[str] = self._names()
        """The servers in mcp.json as last applied (to name the ones an outside edit removed)."""

    def _names(self) -> set[str]:
        from desktop_app.runtime.errors import ConfigError

        try:
            return set(self.manager.entries())
        except ConfigError:
            return set()

    def note_own_write(self) -> None:
        """The app wrote mcp.json itself (a save here, an import, pinned tools): not an outside edit."""
        self.watcher.note_written()
        self.known = self._names()

    # -- add and edit --------------------------------------------------------------------------------

    def open_dialog(self, name: str | None = None) -> ServerDialog | None:
        """The add form (``name`` None) or the edit form of ``name``; saving applies it at once."""
        from desktop_app.runtime.errors import ConfigError
        from desktop_app.ui.servers.server_dialog import ServerDialog

        try:
            entry = self.manager.entries().get(name) if name is not None else None
        except ConfigError as exc:
            self.notice.emit(f"mcp.json cannot be read: {exc}. Fix the file first; it is not changed.")
            return None
        if self.dialog is not None:
            self.dialog.close()
        dialog = ServerDialog(self._parent, name=name, entry=entry)
        dialog.submitted.connect(self._on_submitted)
        dialog.finished.connect(self._on_dialog_finished)
        self.dialog = dialog
        dialog.open()
        return dialog

    def _on_dialog_finished(self, _result: int) -> None:
        if self.dialog is not None:
            self.dialog.deleteLater()
            self.dialog = None

    def _on_submitted(self, draft: ServerDraft, previous: str | None) -> None:
        self.tasks.start(self.save(draft, previous), name="save-server")

    async def save(self, draft: ServerDraft, previous: str | None = None) -> bool:
        """Write ``draft`` to mcp.json (secrets to the keyring) and start it; problems go to the dialog."""
        from desktop_app.runtime.errors import SwitchboardError

        dialog = self.dialog
        try:
            started = await self._apply(self.manager.save(draft, previous=previous))
        except (ValueError, SwitchboardError, OSError) as exc:
            text = str(exc)
            if dialog is not None:
                dialog.show_problem(text)
            else:
                self.notice.emit(f"Could not save the MCP server: {text}")
            return False
        if dialog is not None:
            dialog.accept()
        verb = "Added" if previous is None else "Saved"
        failure = self._start_failure(draft.name) if draft.name in started else None
        if failure is not None:  # the start is over by now: say how it went, not "starting it"
            self.notice.emit(
                f"{verb} MCP server '{draft.name}' in mcp.json, but it failed to start: {failure}. "
                "See View → Servers, fix it with Edit…, then press Restart."
            )
            return True
        state = "starting it" if draft.name in started else "no restart needed"
        self.notice.emit(f"{verb} MCP server '{draft.name}' in mcp.json; {state}.")
        return True

    def _start_failure(self, name: str) -> str | None:
        """Why ``name`` failed to start (its first line), or ``None`` when it did not fail."""
        from desktop_app.ui.servers.log_view import first_line

        host: object = self.manager.host
        if not isinstance(host, StatusSource):  # a manager without a real host (tests): nothing to tell
            return None
        try:
            status = host.states().get(name)
        except Exception:  # a host shutting down: nothing to tell
            return None
        if status is None or status.state != "failed":
            return None
        return first_line(status.error, 160) or "it stopped at once"

    # -- enable, disable, remove -----------------------------------------------------------------------

    def set_enabled(self, name: str, enabled: bool) -> None:
        self.tasks.start(self.apply_enabled(name, enabled), name="enable-server")

    async def apply_enabled(self, name: str, enabled: bool) -> bool:
        try:
            await self._apply(self.manager.set_enabled(name, enabled))
        except Exception as exc:
            self.notice.emit(f"Could not {'enable' if enabled else 'disable'} '{name}': {exc}")
            return False
        self.notice.emit(f"MCP server '{name}' {'enabled; starting it' if enabled else 'disabled; it stopped'}.")
        return True

    def ask_remove(self, name: str) -> QMessageBox:
        """Ask before removing (non-modal ``open()``); Remove runs :meth:`remove`."""
        box = message_box(
            self._parent,
            "Remove MCP server",
            f"Remove '{name}' from mcp.json? It stops now, and its secrets are removed from the keyring.",
            icon="delete",
            tone="danger",
            primary=("Remove", QMessageBox.ButtonRole.DestructiveRole),
        )
        box.setObjectName("removeServerConfirm")
        remove = box.defaultButton()
        remove.setObjectName("confirmRemoveServerButton")
        remove.clicked.connect(lambda: self.tasks.start(self.remove(name), name="remove-server"))
        box.finished.connect(box.deleteLater)
        self.confirm = box
        box.open()
        return box

    async def remove(self, name: str) -> bool:
        try:
            await self._apply(self.manager.remove(name))
        except Exception as exc:
            self.notice.emit(f"Could not remove '{name}': {exc}")
            return False
        self.notice.emit(f"Removed MCP server '{name}' from mcp.json.")
        return True

    # -- the file on disk ----------------------------------------------------------------------------

    def _on_file_changed(self) -> None:
        try:  # the loop is gone when the file changes during shutdown: nothing to apply then
            loop = asyncio.get_event_loop_policy().get_event_loop()
        except RuntimeError:
            return
        if not loop.is_closed():
            self.tasks.start(self.reload_from_disk(), name="reload-mcp-json")

    async def reload_from_disk(self) -> list[str]:
        """Apply mcp.json as it is on disk now (an outside edit)."""
        from desktop_app.runtime.errors import ConfigError

        try:
            names = set(self.manager.entries())
            started = await self._apply(self.manager.reload())
        except ConfigError as exc:
            self.notice.emit(
                f"mcp.json changed but cannot be read: {exc}. The servers keep running as they were; fix the file "
                "and save it again."
            )
            return []
        removed = sorted(self.known - names)
        self.known = names
        parts = [f"started or restarted {', '.join(started)}"] if started else []
        parts += [f"removed {', '.join(removed)}"] if removed else []
        if parts:  # a change that needs no restart (e.g. pinned tools) is not worth a notice
            self.notice.emit(f"mcp.json changed on disk: {'; '.join(parts)}.")
        return started

    async def _apply(self, work: Awaitable[T]) -> T:
        try:
            return await work
        finally:
            self.changed.emit()

    def _on_task_failed(self, exc: BaseException) -> None:
        log.error("server action failed", exc_info=exc)
        self.notice.emit(f"Something went wrong ({type(exc).__name__}: {exc}).")


__all__ = ["McpFileWatcher", "ServerActions"]
