"""Every way to quit (File → Quit, Ctrl+Q, the tray's Quit, a signal) saves the window's size, docks and
splitters, and takes the window off the screen at once, before the runtime and its servers close (the real
``App`` with its shell, in-process)."""

from __future__ import annotations

import json
import time

import pytest
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QApplication

from desktop_app.app import App, _install_shell, build_parser
from desktop_app.paths import app_paths
from desktop_app.ui.window.main_window import MainWindow


def _file_quit(app: App) -> None:
    app.window.quit_action.trigger()  # File → Quit


def _ctrl_q(app: App) -> None:
    [action] = [a for a in app.window.findChildren(QAction) if a.shortcut() == QKeySequence("Ctrl+Q")]
    action.trigger()  # what the shortcut runs


def _tray_quit(app: App) -> None:
    assert app.shell is not None
    menu = app.shell.tray.icon.contextMenu()
    [quit_entry] = [a for a in menu.actions() if a.text() == "&Quit"]
    quit_entry.trigger()


@pytest.mark.parametrize("quit_by", [_file_quit, _ctrl_q, _tray_quit], ids=["file-quit", "ctrl-q", "tray-quit"])
def test_every_quit_saves_the_layout_and_hides_the_window_at_once(qtbot, qloop, quit_by):
    paths = app_paths().ensure()
    paths.settings_file.write_text(json.dumps({"provider": {"base_url": "http://127.0.0.1:9/v1", "model": "m"}}))
    state = paths.config_dir / "window.ini"
    window = MainWindow()
    qtbot.addWidget(window)
    window.restore_state(state)  # as main() does: nothing stored yet
    window.show()
    app = App(QApplication.instance(), window, paths, time.perf_counter(), smoke=False)  # type: ignore[arg-type]
    _install_shell(app, build_parser().parse_args([]), paths, None)
    run = qloop.create_task(app.run())
    try:
        qtbot.waitUntil(lambda: window.controller is not None, timeout=30_000)
        window.resize(760, 560)
        window.tools_dock.show()
        qtbot.waitUntil(lambda: window.tools_dock.isVisible() and window.width() == 760, timeout=5_000)
        assert not state.exists()

        quit_by(app)
        assert window.isHidden()  # at once: not after the runtime and its servers closed
        assert state.is_file()  # saved by the quit itself, no close event involved
        qtbot.waitUntil(run.done, timeout=30_000)
        assert run.result() == 0
    finally:
        if not run.done():
            app.request_quit()
            qtbot.waitUntil(run.done, timeout=30_000)
        QApplication.instance().lastWindowClosed.disconnect(app.request_quit)

    again = MainWindow(defer_rest=True)
    qtbot.addWidget(again)
    again.restore_geometry(state)
    again.show()
    again.restore_state(state)
    qtbot.waitUntil(lambda: again.tools_dock.isVisible(), timeout=5_000)
    assert (again.width(), again.height()) == (760, 560)
