"""The tray: its icon per theme and state, the run/approval state it follows, and its menu driving the real
app in-process (Pause all servers stops the real stdio server, Resume starts it, Quit shuts down in order).
"""

from __future__ import annotations

import json
import os
import sqlite3
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtWidgets import QApplication

from desktop_app.app import App, _install_shell, build_parser
from desktop_app.paths import app_paths
from desktop_app.runtime import events as ev
from desktop_app.ui.tray.icon import RunActivity, Tray, render_icon
from desktop_app.ui.window.main_window import MainWindow

RESOURCES = Path(__file__).resolve().parents[4] / "resources"
IDS = {"conversation_id": "c1", "run_id": "r1"}


def _image(state: str, *, dark: bool) -> Any:
    return render_icon(RESOURCES, state, dark=dark).pixmap(64, 64).toImage()  # type: ignore[arg-type]


def test_icon_has_a_light_and_a_dark_variant_and_a_badge_per_state(qapp):
    light, dark = _image("idle", dark=False), _image("idle", dark=True)
    assert not light.isNull() and light != dark
    busy, approval = _image("busy", dark=False), _image("approval", dark=False)
    assert len({light.cacheKey(), busy.cacheKey(), approval.cacheKey()}) == 3
    assert busy != light and approval != light and busy != approval
    corner = approval.pixelColor(39, 48)  # the amber badge sits bottom right
    assert corner.red() > 200 and corner.blue() < 80


def test_run_activity_tracks_runs_and_waiting_approvals(qapp):
    tray = Tray(RESOURCES, available=False)
    outcomes: list[tuple[str, str, str]] = []
    activity = RunActivity(tray, lambda *a: outcomes.append(a))
    activity(ev.RunStarted(**IDS, model="m", prompt="p"))
    assert tray.state == "busy" and tray.icon.toolTip() == "Switchboard — answering…"
    activity(ev.ApprovalRequired(**IDS, tool_call_id="t1", server="s", tool="echo", arguments={}))
    assert tray.state == "approval" and outcomes[-1] == ("c1", "approval", "echo")
    activity(ev.ApprovalDecided(**IDS, tool_call_id="t1", approved=True))
    assert tray.state == "busy"
    activity(ev.RunFinished(**IDS, content="done"))
    assert tray.state == "idle" and outcomes[-1] == ("c1", "finished", "done")
    activity(ev.RunStarted(**IDS, model="m", prompt="p"))
    activity(ev.Error(**IDS, code="x", message="The provider failed."))
    assert tray.state == "idle" and outcomes[-1] == ("c1", "failed", "The provider failed.")
    tray.set_paused(True)
    assert tray.pause_action.text() == "&Resume servers" and "paused" in tray.icon.toolTip()


def test_a_sub_agents_waiting_approval_is_answered_in_its_callers_conversation(qapp):
    activity = RunActivity(None)
    activity(ev.SubagentStarted(**IDS, tool_call_id="t0", agent="a", child_conversation_id="c2", depth=1))
    activity(
        ev.SubagentStarted(
            conversation_id="c2", run_id="r2", tool_call_id="t5", agent="b", child_conversation_id="c3", depth=2
        )
    )
    activity(
        ev.ApprovalRequired(conversation_id="c3", run_id="r3", tool_call_id="t9", server="s", tool="x", arguments={})
    )
    assert activity.waiting_conversations() == ["c1"]  # the window shows c3's card under c1's tool card


def _time_servers_of(pid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if int(stat.rsplit(")", 1)[1].split()[1]) == pid and "mcp_server_time" in cmdline:
            found.append(int(entry.name))
    return found


def _await(qtbot, loop, coro: Any, timeout: int = 10_000) -> Any:
    task = loop.create_task(coro)
    qtbot.waitUntil(task.done, timeout=timeout)
    return task.result()


@pytest.mark.integration
def test_tray_menu_pauses_resumes_and_quits_the_real_app(qtbot, qloop, llm_server, capsys):
    paths = app_paths().ensure()
    servers = {"mcpServers": {"time": {"command": sys.executable, "args": ["-m", "mcp_server_time"]}}}
    paths.mcp_config_file.write_text(json.dumps(servers), encoding="utf-8")
    settings = {"provider": {"base_url": llm_server.url, "model": "test-model"}}
    paths.settings_file.write_text(json.dumps(settings), encoding="utf-8")
    window = MainWindow()
    qtbot.addWidget(window)
    app = App(QApplication.instance(), window, paths, time.perf_counter(), smoke=False)  # type: ignore[arg-type]
    _install_shell(app, build_parser().parse_args([]), paths, None)
    shell = app.shell
    assert shell is not None
    run = qloop.create_task(app.run())
    try:

        def state() -> str | None:
            host = app.assembly.host if app.assembly is not None else None
            status = host.states().get("time") if host is not None else None
            return status.state if status is not None else None

        qtbot.waitUntil(lambda: state() == "ready", timeout=30_000)
        host = app.assembly.host
        assert len(_time_servers_of(os.getpid())) == 1

        # The tray icon's own menu, in order; each step below triggers the entry the user would click.
        menu = shell.tray.icon.contextMenu()
        assert menu is not None
        entries = {a.text(): a for a in menu.actions() if not a.isSeparator() and a.isVisible()}  # as shown
        assert list(entries) == ["&Quick prompt", "&Open Switchboard", "&Pause all servers", "&Quit"]

        entries["&Pause all servers"].trigger()
        qtbot.waitUntil(lambda: state() == "stopped" and not _time_servers_of(os.getpid()), timeout=15_000)
        assert host.paused and shell.tray.pause_action.text() == "&Resume servers"
        outcome = _await(qtbot, qloop, host.call("time", "get_current_time", {"timezone": "UTC"}))
        assert outcome.is_error and "paused" in outcome.text
        assert "time" in window.servers_dock.panel.rows and state() == "stopped"

        [resume] = [a for a in menu.actions() if a.text() == "&Resume servers"]  # the same entry, relabelled
        resume.trigger()
        qtbot.waitUntil(lambda: state() == "ready", timeout=30_000)
        assert not host.paused and resume.text() == "&Pause all servers"
        assert len(_time_servers_of(os.getpid())) == 1
        outcome = _await(qtbot, qloop, host.call("time", "get_current_time", {"timezone": "UTC"}), timeout=30_000)
        assert not outcome.is_error

        store = app.assembly.store
        assert store is not None
        entries["&Quit"].trigger()
        qtbot.waitUntil(run.done, timeout=30_000)
        assert run.result() == 0
        assert state() == "stopped" and not _time_servers_of(os.getpid())
        with pytest.raises(sqlite3.ProgrammingError):
            store.connection.execute("SELECT 1")  # the store was closed
        assert "Traceback" not in capsys.readouterr().err
    finally:
        if not run.done():
            app.request_quit()
            qtbot.waitUntil(run.done, timeout=30_000)
        QApplication.instance().lastWindowClosed.disconnect(app.request_quit)


def test_close_to_tray_hides_the_window_and_keeps_running(qtbot, qloop, tmp_path):
    from desktop_app.ui.tray.desktop import DesktopShell
    from tests.support.fake_runtime import FakeRuntime

    quits: list[bool] = []
    window = MainWindow()
    qtbot.addWidget(window)
    shell = DesktopShell(window, RESOURCES, tmp_path, quit_app=lambda: quits.append(True), tray_available=True)
    runtime = FakeRuntime()
    window.attach_runtime(runtime)
    window.show()
    qtbot.waitExposed(window)
    window.close()
    assert not window.isVisible() and not quits and window.controller is not None
    assert shell.tray.last_notification is not None and "still running" in shell.tray.last_notification[1]
    shell.show_window()
    assert window.isVisible()
    window.quit_action.trigger()  # File → Quit really quits, tray or not
    assert quits == [True]


def test_without_a_tray_the_app_says_so_once(qtbot, tmp_path):
    from desktop_app.ui.chat.blocks import NoticeLine
    from desktop_app.ui.tray.desktop import NO_TRAY_NOTICE, DesktopShell

    def notices(window: MainWindow) -> list[str]:
        return [b.text() for b in window.view.blocks() if isinstance(b, NoticeLine)]

    for expected in ([NO_TRAY_NOTICE], []):  # this start, then the next one
        window = MainWindow()
        qtbot.addWidget(window)
        shell = DesktopShell(window, RESOURCES, tmp_path, quit_app=lambda: None, tray_available=False)
        shell.start()
        assert not shell.tray.icon.isVisible()
        assert notices(window) == expected
        assert shell._intercept_close() is False  # no tray: closing the window quits


@pytest.mark.integration
def test_background_start_with_a_tray_keeps_the_window_hidden(qtbot, qloop, monkeypatch, capsys):
    from PySide6.QtWidgets import QSystemTrayIcon

    monkeypatch.setattr(QSystemTrayIcon, "isSystemTrayAvailable", staticmethod(lambda: True))
    paths = app_paths().ensure()
    window = MainWindow()
    qtbot.addWidget(window)
    app = App(QApplication.instance(), window, paths, time.perf_counter(), smoke=False)  # type: ignore[arg-type]
    _install_shell(app, build_parser().parse_args(["--background"]), paths, None)
    assert app.shell is not None and app.shell.has_tray and not app.show_window
    run = qloop.create_task(app.run())
    try:
        qtbot.waitUntil(lambda: app.shell.runtime is not None, timeout=30_000)
        assert not window.isVisible() and "(in the background)" in capsys.readouterr().out
        app.shell.tray.open_requested.emit()  # the tray's Open Switchboard
        assert window.isVisible()
        window.close()  # close to tray: hidden, still running
        assert not window.isVisible() and not run.done()
        app.shell.tray.quit_requested.emit()
        qtbot.waitUntil(run.done, timeout=30_000)
        assert run.result() == 0
    finally:
        if not run.done():
            app.request_quit()
            qtbot.waitUntil(run.done, timeout=30_000)
        QApplication.instance().lastWindowClosed.disconnect(app.request_quit)


def test_a_click_on_the_tray_icon_opens_the_quick_prompt(qtbot, tmp_path):
    from PySide6.QtWidgets import QSystemTrayIcon

    from desktop_app.ui.tray.desktop import DesktopShell

    window = MainWindow()
    qtbot.addWidget(window)
    shell = DesktopShell(window, RESOURCES, tmp_path, quit_app=lambda: None, tray_available=True)
    qtbot.addWidget(shell.quick)
    shell.tray.icon.activated.emit(QSystemTrayIcon.ActivationReason.Trigger)
    assert shell.quick.isVisible() and not window.isVisible()
    shell.quick.dismiss()
    shell.tray.quick_action.trigger()  # the menu's Quick prompt
    assert shell.quick.isVisible()
    shell.tray.open_action.trigger()  # Open Switchboard
    assert window.isVisible()
    shell.close()
