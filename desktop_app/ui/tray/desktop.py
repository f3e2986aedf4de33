"""The desktop shell around the main window: tray, quick prompt, notifications, close to tray, and the
requests a second launch forwards (``desktop_app.instance`` → ``single_instance.InstanceServer``).

``app.py`` builds one ``DesktopShell`` next to the main window, hands it the runtime when that exists, and
routes every launch's arguments through ``apply_launch`` (its own at start, forwarded ones later):
``--quick`` opens the quick prompt, a file argument attaches the file, anything else raises the window.
"""

from __future__ import annotations

import logging
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, Qt
from PySide6.QtWidgets import QApplication, QMainWindow

from desktop_app.ui.tray.icon import RunActivity, Tray
from desktop_app.ui.tray.quick_prompt import QuickPrompt

if TYPE_CHECKING:
    from desktop_app.runtime.store import Store
    from desktop_app.ui.window.main_window import MainWindow

log = logging.getLogger(__name__)

NO_TRAY_MARKER = "no-tray-noticed"
NO_TRAY_NOTICE = (
    "This desktop has no system tray, so Switchboard runs as a plain window app: closing the window quits. "
    "The quick prompt still opens with `switchboard --quick` (bind it to a shortcut; see Help → User guide, "
    "Quick prompt)."
)
_OUTCOME_TEXT = {
    "finished": "Answered",
    "failed": "Failed",
    "approval": "Waiting for your approval",
}


class DesktopShell(QObject):
    """Owns the tray icon, the quick prompt and the notifications around ``window``."""

    def __init__(
        self,
        window: MainWindow,
        resources: Path,
        data_dir: Path,
        *,
        quit_app: Callable[[], None],
        tray_available: bool | None = None,
        home: Path | None = None,
    ) -> None:
        super().__init__(window)
        self.setObjectName("desktopShell")
        self.window = window
        self.data_dir = data_dir
        self.quit_app = quit_app
        self.home = home
        """The home-folder override, if any (the autostart entry then starts that folder's instance)."""
        self.tray = Tray(resources, self, available=tray_available)
        self.quick = QuickPrompt()
        self.activity = RunActivity(self.tray, self._on_outcome)
        self.runtime: Any = None
        self.host: Any = None
        self.store: Store | None = None
        self.recorder: Any = None
        self.forwarded = 0
        self.notified: list[tuple[str, str, str]] = []
        self.quiet_outcomes: set[str] = set()
        """Conversations whose end another part announces (a task run: ui/tasks names the task)."""
        self._told_close_to_tray = False
        self.tray.clicked.connect(self.on_icon_clicked)
        self.tray.quick_requested.connect(self.show_quick)
        self.tray.open_requested.connect(self.show_window)
        self.tray.pause_requested.connect(self.set_paused)
        self.tray.quit_requested.connect(self.quit)
        self.tray.notification_clicked.connect(self.open_conversation)
        self.quick.open_in_main_requested.connect(self.open_conversation)
        window.close_interceptor = self._intercept_close
        window.quit_action.triggered.disconnect()
        window.quit_action.triggered.connect(self.quit)

    # -- start-up ------------------------------------------------------------------------------------------

    @property
    def has_tray(self) -> bool:
        return self.tray.available

    def start(self) -> None:
        """Show the tray icon; where there is none, say so once (ever) and stay a plain window app."""
        from desktop_app.ui.window.file_open import FileOpenFilter

        self.file_open = FileOpenFilter(self.open_files, self)  # macOS Finder: a .mcpb opens the install screen
        app = QApplication.instance()
        # Only where FileOpen events exist: a Python application-wide event filter makes PySide 6.11 recurse
        # until it crashes once Qt WebEngine (MCP App views) has items in focus.
        if app is not None and sys.platform == "darwin":
            app.installEventFilter(self.file_open)
        if self.tray.show():
            return
        log.info("no system tray available: running as a plain window app")
        marker = self.data_dir / NO_TRAY_MARKER
        if not marker.exists():
            self.window.view.add_notice(NO_TRAY_NOTICE)
            try:
                marker.write_text("The user was told once that there is no system tray.\n", encoding="utf-8")
            except OSError:
                log.warning("cannot write %s", marker)

    def attach(self, runtime: Any, host: Any, store: Store | None, recorder: Any = None) -> None:
        """The runtime exists now: the quick prompt uses it, the tray follows its runs, the settings show."""
        self.runtime, self.host, self.store, self.recorder = runtime, host, store, recorder
        self.quick.attach_runtime(runtime, store)
        runtime.subscribe(self.activity)
        self.quick.controller.run_finished.connect(self._refresh_list)  # type: ignore[union-attr]
        self.window.settings_listeners.append(self._on_settings_applied)
        if getattr(runtime.settings, "start_at_login", False):
            self.sync_autostart()  # refresh the entry (the command may have moved); never removed unasked
        elif self._entry_exists():  # made by the installer: the setting says what is true
            try:
                runtime.update_settings(start_at_login=True)
            except Exception:
                log.exception("could not record the existing login entry in the settings")

    # -- settings ------------------------------------------------------------------------------------------

    def _on_settings_applied(self, settings: object) -> None:
        """The Settings window saved: write or remove the login entry to match ``start_at_login``."""
        self.sync_autostart()

    def autostart(self) -> Any:
        from desktop_app.autostart import Autostart

        return Autostart(home=self.home)

    def _entry_exists(self) -> bool:
        try:
            return bool(self.autostart().enabled())
        except OSError:
            return False

    def sync_autostart(self) -> None:
        """Make the login entry match the ``start_at_login`` setting (written, refreshed or removed)."""
        settings = getattr(self.runtime, "settings", None)
        if settings is None:
            return
        entry = self.autostart()
        try:
            if entry.apply(bool(settings.start_at_login)):
                log.info("autostart entry %s: %s", "written" if settings.start_at_login else "removed", entry.location)
        except OSError as exc:
            self.window.view.show_error(f"Could not change the login entry {entry.location}: {exc.strerror or exc}.")

    def close(self) -> None:
        self.quick.close_controller()
        self.quick.hide()
        self.tray.hide()

    # -- launches ------------------------------------------------------------------------------------------

    def apply_launch(self, *, quick: bool, background: bool, files: Sequence[str], first: bool) -> None:
        """What a launch asks for: ``--quick``, ``--background``, files to attach; else the window."""
        if quick:
            self.show_quick()
            if files:
                self.quick.attach_files(files)
            if first and not self.has_tray:
                self.show_window()  # without a tray a hidden window could not be found again
            return
        if background and self.has_tray:
            if files:
                self.window.composer.add_files(files)
            return
        if first and background:
            self.window.view.add_notice("Started with --background, but there is no system tray: showing the window.")
        self.show_window()
        if files:
            self.window.add_launch_files(files)  # a .mcpb (opened from the file manager) opens the install screen

    def open_files(self, files: list[str]) -> None:
        """Files the system asks the running app to open (macOS's QFileOpenEvent), as a launch with them."""
        self.apply_launch(quick=False, background=False, files=files, first=False)

    def handle_request(self, message: dict[str, Any]) -> dict[str, Any]:
        """A request from a second launch (``desktop_app.instance``)."""
        action = message.get("action")
        if action == "query":
            return {"ok": True, **self.describe()}
        if action != "forward":
            return {"ok": False, "error": f"unknown action {action!r}"}
        from desktop_app.launch_args import build_parser

        argv = [str(arg) for arg in message.get("argv", [])]
        try:
            ns = build_parser().parse_args(argv)
        except SystemExit:
            return {"ok": False, "error": f"bad arguments: {' '.join(argv)} (see switchboard --help)"}
        cwd = str(message.get("cwd") or os.getcwd())
        files = [str(Path(cwd, f)) for f in ns.files]
        missing = [f for f in files if not Path(f).is_file()]
        if missing:
            return {"ok": False, "error": "no such file: " + ", ".join(missing)}
        self.forwarded += 1
        log.info("a second launch forwarded %s", argv)
        self.apply_launch(quick=ns.quick, background=ns.background, files=files, first=False)
        return {"ok": True}

    def describe(self) -> dict[str, Any]:
        """The shell's state, for the diagnostic ``query`` (tests use it)."""
        states = self.host.states() if self.host is not None and hasattr(self.host, "states") else {}
        return {
            "window_visible": self.window.isVisible(),
            "quick_visible": self.quick.isVisible(),
            "quick_conversation": self.quick.conversation_id,
            "tray": self.has_tray,
            "forwarded": self.forwarded,
            "runtime_ready": self.runtime is not None,
            "servers": {name: status.state for name, status in states.items()},
            "attached": [a.name for a in self.window.composer.attachments],
            "quick_attached": [a.name for a in self.quick.composer.attachments],
            "paused": bool(getattr(self.host, "paused", False)),
        }

    # -- windows -------------------------------------------------------------------------------------------

    def show_quick(self) -> None:
        self.quick.popup()

    def on_icon_clicked(self) -> None:
        """A click on the tray icon: the quick prompt, unless a tool call waits for approval in a conversation
        of the main window; then the window with that conversation, so the waiting approval is what one sees."""
        waiting = [cid for cid in self.activity.waiting_conversations() if cid != self.quick.conversation_id]
        if not waiting:
            self.show_quick()
            return
        controller = self.window.controller
        if controller is not None and controller.conversation_id in waiting:
            self.show_window()  # already shown there
        else:
            self.open_conversation(waiting[0])
        self.window.set_status("A tool call waits for your approval")

    def show_window(self) -> None:
        window: QMainWindow = self.window
        window.setWindowState(window.windowState() & ~Qt.WindowState.WindowMinimized)
        window.show()
        window.raise_()
        window.activateWindow()

    def open_conversation(self, conversation_id: str) -> None:
        """Show the main window with this conversation (from a notification or "Open in main window")."""
        self.show_window()
        if not conversation_id:
            return
        if self.recorder is not None:
            self.recorder.flush()  # the transcript shows everything streamed so far
        self.window.conversations.refresh()
        self.window.open_conversation(conversation_id)

    def _refresh_list(self, _event: object) -> None:
        self.window.conversations.refresh()

    def _intercept_close(self) -> bool:
        """Closing the window with "close to tray" on (and a tray): hide it, keep the app and servers running."""
        settings = getattr(self.runtime, "settings", None)
        if not self.has_tray or (settings is not None and not settings.close_to_tray):
            return False
        self.window.hide()
        if not self._told_close_to_tray:
            self._told_close_to_tray = True
            self.tray.notify("", "Switchboard is still running", "Its servers keep running. Quit from the tray menu.")
        return True

    # -- tray menu -----------------------------------------------------------------------------------------

    def set_paused(self, paused: bool) -> None:
        if self.host is None or not hasattr(self.host, "pause"):
            return
        self.tray.set_paused(paused)
        self.window.tasks.start(self.host.pause() if paused else self.host.resume(), name="pause-servers")

    def quit(self) -> None:
        self.window.close_interceptor = None
        self.quit_app()

    # -- notifications -------------------------------------------------------------------------------------

    def on_screen(self, conversation_id: str) -> bool:
        """Whether the user sees this conversation now (in the main window or the quick prompt)."""
        window = self.window
        if (
            window.isVisible()
            and not window.isMinimized()
            and window.controller is not None
            and window.controller.conversation_id == conversation_id
        ):
            return True
        return self.quick.isVisible() and self.quick.conversation_id == conversation_id

    def _on_outcome(self, conversation_id: str, what: str, detail: str) -> None:
        settings = getattr(self.runtime, "settings", None)
        if settings is not None and not settings.notifications:
            return
        if self.on_screen(conversation_id) or (what != "approval" and conversation_id in self.quiet_outcomes):
            return
        title = ""
        if self.store is not None:
            info = self.store.get_conversation(conversation_id)
            title = info.title if info is not None else ""
        from desktop_app.log import redact

        heading = redact(f"{_OUTCOME_TEXT[what]}: {title}" if title else _OUTCOME_TEXT[what])
        if what == "approval":
            body = f"The tool {detail} waits for your approval. Click to open the conversation."
        else:
            body = redact(" ".join(detail.split())[:160]) or "Click to open the conversation."
        self.notified.append((conversation_id, heading, body))
        self.tray.notify(conversation_id, heading, body, warning=what != "finished")
