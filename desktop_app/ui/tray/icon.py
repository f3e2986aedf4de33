"""The system-tray icon: its menu, its state badge (a run in progress, an approval waiting), notifications.

The icon is an SVG glyph in a light and a dark variant (chosen from the system's colour scheme), with an SVG
badge painted on it while a run is in progress (blue) or a tool call waits for approval (amber). A click
opens the quick prompt (the shell shows a waiting approval instead, see ``DesktopShell.on_icon_clicked``); the
menu has Quick prompt, Open Switchboard, Pause all servers / Resume servers and Quit. Where the platform has no
tray, ``available`` is ``False``: the icon is never shown and the app behaves as a plain window app (``app.py``
says so once).

``RunActivity`` follows the runtime's events and tells the tray its state, and the notifier (if any) which
conversations finished, failed or wait for an approval.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from PySide6.QtCore import QObject, QRectF, Qt, Signal
from PySide6.QtGui import QAction, QGuiApplication, QIcon, QPainter, QPixmap
from PySide6.QtSvg import QSvgRenderer
from PySide6.QtWidgets import QMenu, QSystemTrayIcon

if TYPE_CHECKING:
    from desktop_app.runtime import events as ev

TrayState = Literal["idle", "busy", "approval"]
ICON_PX = 64
_TOOLTIPS = {
    "idle": "Switchboard",
    "busy": "Switchboard — answering…",
    "approval": "Switchboard — a tool call waits for your approval",
}


def dark_theme() -> bool:
    """Whether the system uses a dark colour scheme (then the tray glyph is light)."""
    hints = QGuiApplication.styleHints()
    scheme = hints.colorScheme() if hints is not None else Qt.ColorScheme.Unknown
    if scheme == Qt.ColorScheme.Unknown:
        return QGuiApplication.palette().window().color().lightness() < 128
    return scheme == Qt.ColorScheme.Dark


def render_icon(resources: Path, state: TrayState, *, dark: bool) -> QIcon:
    """The tray glyph for the theme, with the state's badge painted on it."""
    pixmap = QPixmap(ICON_PX, ICON_PX)
    pixmap.fill(Qt.GlobalColor.transparent)
    painter = QPainter(pixmap)
    try:
        QSvgRenderer(str(resources / f"tray-{'dark' if dark else 'light'}.svg")).render(
            painter, QRectF(0, 0, ICON_PX, ICON_PX)
        )
        if state != "idle":
            QSvgRenderer(str(resources / f"tray-badge-{state}.svg")).render(painter, QRectF(0, 0, ICON_PX, ICON_PX))
    finally:
        painter.end()
    return QIcon(pixmap)


class Tray(QObject):
    """The tray icon and its menu.

    Signals:
        clicked(): the icon was clicked (left click or double click).
        quick_requested(): "Quick prompt" chosen in the menu.
        open_requested(): "Open Switchboard".
        pause_requested(bool): "Pause all servers" (True) or "Resume servers" (False).
        quit_requested(): "Quit".
        notification_clicked(str): the user clicked the notification about this conversation.
    """

    clicked = Signal()
    quick_requested = Signal()
    open_requested = Signal()
    pause_requested = Signal(bool)
    quit_requested = Signal()
    notification_clicked = Signal(str)

    def __init__(self, resources: Path, parent: QObject | None = None, *, available: bool | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("tray")
        self.resources = resources
        self.available = QSystemTrayIcon.isSystemTrayAvailable() if available is None else available
        self.state: TrayState = "idle"
        self.paused = False
        self.dark = dark_theme()
        self.last_notification: tuple[str, str, str] | None = None
        self._notified_conversation: str | None = None
        self.icon = QSystemTrayIcon(self)
        self.icon.setObjectName("trayIcon")
        self.menu = QMenu()
        self.menu.setObjectName("trayMenu")
        self.quick_action = self._action("&Quick prompt", "trayQuickAction", self.quick_requested.emit)
        self.open_action = self._action("&Open Switchboard", "trayOpenAction", self.open_requested.emit)
        self.menu.addSeparator()
        self.pause_action = self._action("&Pause all servers", "trayPauseAction", self._on_pause_triggered)
        self.pause_action.setToolTip("Stop every MCP server until you resume them")
        self.menu.addSeparator()
        self.quit_action = self._action("&Quit", "trayQuitAction", self.quit_requested.emit)
        self.icon.setContextMenu(self.menu)
        self.icon.activated.connect(self._on_activated)
        self.icon.messageClicked.connect(self._on_message_clicked)
        hints = QGuiApplication.styleHints()
        if hints is not None:
            hints.colorSchemeChanged.connect(self._on_scheme_changed)
        self._refresh()

    def _action(self, text: str, name: str, slot: Callable[[], None]) -> QAction:
        action = QAction(text, self.menu)
        action.setObjectName(name)
        action.triggered.connect(slot)
        self.menu.addAction(action)
        return action

    def show(self) -> bool:
        """Show the icon where a tray exists; returns whether it is shown."""
        if self.available:
            self.icon.show()
        return self.available

    def hide(self) -> None:
        self.icon.hide()

    # -- state ---------------------------------------------------------------------------------------------

    def set_state(self, state: TrayState) -> None:
        if state != self.state:
            self.state = state
            self._refresh()

    def set_paused(self, paused: bool) -> None:
        """The menu offers Resume while the servers are paused, Pause otherwise."""
        self.paused = paused
        self.pause_action.setText("&Resume servers" if paused else "&Pause all servers")
        self.pause_action.setToolTip(
            "Start the MCP servers again" if paused else "Stop every MCP server until you resume them"
        )
        self._refresh()

    def _refresh(self) -> None:
        self.icon.setIcon(render_icon(self.resources, self.state, dark=self.dark))
        tip = _TOOLTIPS[self.state] + (" (servers paused)" if self.paused else "")
        self.icon.setToolTip(tip)

    def _on_scheme_changed(self, _scheme: object) -> None:
        self.dark = dark_theme()
        self._refresh()

    # -- notifications -------------------------------------------------------------------------------------

    def notify(self, conversation_id: str, title: str, text: str, *, warning: bool = False) -> bool:
        """A desktop notification about a conversation; clicking it emits ``notification_clicked``."""
        self.last_notification = (conversation_id, title, text)
        self._notified_conversation = conversation_id
        if not self.available or not QSystemTrayIcon.supportsMessages():
            return False
        icon = QSystemTrayIcon.MessageIcon.Warning if warning else QSystemTrayIcon.MessageIcon.Information
        self.icon.showMessage(title, text, icon, 10_000)
        return True

    def _on_message_clicked(self) -> None:
        if self._notified_conversation is not None:
            self.notification_clicked.emit(self._notified_conversation)

    # -- slots ---------------------------------------------------------------------------------------------

    def _on_activated(self, reason: QSystemTrayIcon.ActivationReason) -> None:
        if reason in (QSystemTrayIcon.ActivationReason.Trigger, QSystemTrayIcon.ActivationReason.DoubleClick):
            self.clicked.emit()
        elif reason == QSystemTrayIcon.ActivationReason.MiddleClick:
            self.open_requested.emit()

    def _on_pause_triggered(self) -> None:
        self.pause_requested.emit(not self.paused)


class RunActivity:
    """Follows the runtime's events: which conversations run, which tool calls wait; tells the tray.

    ``on_outcome(conversation_id, what, detail)`` is called with ``what`` in ``finished``, ``failed`` and
    ``approval`` (for notifications).
    """

    def __init__(
        self,
        tray: Tray | None,
        on_outcome: Callable[[str, str, str], None] | None = None,
    ) -> None:
        self.tray = tray
        self.on_outcome = on_outcome
        self.running: set[str] = set()
        self.waiting: dict[str, str] = {}  # tool-call id -> conversation id
        self.callers: dict[str, str] = {}  # a sub-agent's conversation -> the conversation that called it

    @property
    def state(self) -> TrayState:
        if self.waiting:
            return "approval"
        return "busy" if self.running else "idle"

    def waiting_conversations(self) -> list[str]:
        """The conversations a person opens to answer the waiting approvals (a sub-agent's: its caller's)."""
        found: list[str] = []
        for cid in self.waiting.values():
            seen = {cid}
            while cid in self.callers and self.callers[cid] not in seen:
                cid = self.callers[cid]
                seen.add(cid)
            if cid not in found:
                found.append(cid)
        return found

    def __call__(self, event: ev.Event) -> None:
        # narrowed by ``event.kind`` (the events module is not imported at run time: start-up cost)
        cid = event.conversation_id
        outcome: tuple[str, str] | None = None
        if event.kind == "subagent_started":
            self.callers[event.child_conversation_id] = cid
            return
        if event.kind == "run_started":
            self.running.add(cid)
        elif event.kind == "approval_required":
            self.waiting[event.tool_call_id] = cid
            outcome = ("approval", event.tool)
        elif event.kind == "approval_decided":
            self.waiting.pop(event.tool_call_id, None)
        elif event.kind == "error" or event.kind == "run_finished":
            self.running.discard(cid)
            cancelled = event.kind == "run_finished" and event.reason == "cancelled"
            if event.kind == "error":
                outcome = ("failed", event.message)
            elif not cancelled:
                # a run stopped with calls still waiting keeps them waiting (Continue answers them)
                outcome = ("finished", event.content)
            if not cancelled:
                self.waiting = {k: v for k, v in self.waiting.items() if v != cid}
        else:
            return
        if self.tray is not None:
            self.tray.set_state(self.state)
        if outcome is not None and self.on_outcome is not None:
            self.on_outcome(cid, *outcome)
