"""The Servers dock: rows follow host events, the restart countdown ticks, Restart, stderr and log, notices."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from desktop_app.runtime.events import HostEvent, ServerLog, ServerStateChanged, ToolsChanged
from desktop_app.runtime.host import Host, ServerConfig, ServerStatus
from desktop_app.ui.chat.common import ERROR_COLOR
from desktop_app.ui.servers.log_view import LogLine, ServerLogView
from desktop_app.ui.servers.panel import ServersPanel, summary_text
from desktop_app.ui.window.main_window import MainWindow


class FakeHost:
    """Hand-written stand-in for ``Host``: ``publish`` delivers events like the real event bus."""

    def __init__(self, *names: str) -> None:
        self.listeners: list[Callable[[HostEvent], None]] = []
        self.statuses = {name: ServerStatus(name=name, state="idle") for name in names}
        self.stderr: dict[str, str] = {}
        self.restarts: list[str] = []
        self.gate: asyncio.Event | None = None

    def subscribe(self, listener: Callable[[HostEvent], None]) -> Callable[[], None]:
        self.listeners.append(listener)
        return lambda: self.listeners.remove(listener)

    def states(self) -> dict[str, ServerStatus]:
        return dict(self.statuses)

    def stderr_tail(self, server: str) -> str:
        return self.stderr.get(server, "")

    def publish(self, event: HostEvent) -> None:
        for listener in list(self.listeners):
            listener(event)

    async def restart(self, server: str) -> ServerStatus:
        self.restarts.append(server)
        if self.gate is not None:
            await self.gate.wait()
        self.stderr[server] = "restarted by hand"
        self.publish(ServerStateChanged(server=server, state="ready", tool_count=1))
        return ServerStatus(name=server, state="ready", tool_count=1)


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def panel(qtbot, clock: Clock) -> ServersPanel:
    widget = ServersPanel(clock=clock)
    qtbot.addWidget(widget)
    return widget


def test_rows_follow_state_events(panel: ServersPanel) -> None:
    host = FakeHost("alpha", "beta")
    summaries: list[str] = []
    panel.summary_changed.connect(lambda text, _failed: summaries.append(text))
    panel.attach(host)
    assert set(panel.rows) == {"alpha", "beta"}
    assert panel.row_text("alpha") == "Not started"

    host.publish(ServerStateChanged(server="alpha", state="starting"))
    assert panel.row_text("alpha") == "Starting…"
    assert not panel.rows["alpha"].busy.isHidden()
    assert not panel.rows["alpha"].restart_button.isEnabled()

    host.publish(ServerStateChanged(server="alpha", state="ready", tool_count=3))
    host.publish(ServerStateChanged(server="beta", state="failed", error="command 'nope' not found\nmore"))
    assert panel.row_text("alpha") == "Ready · 3 tools"
    assert panel.rows["alpha"].busy.isHidden()
    assert panel.row_text("beta") == "Failed"
    assert panel.rows["beta"].error_label.text() == "command 'nope' not found\nmore"  # the reason in full
    assert summaries[-1] == "MCP: 1 ready · 1 failed"

    host.publish(ToolsChanged(server="alpha", tool_count=1))
    assert panel.row_text("alpha") == "Ready · 1 tool"
    host.publish(ServerStateChanged(server="beta", state="disabled"))
    assert panel.row_text("beta") == "Disabled"
    assert not panel.rows["beta"].restart_button.isEnabled()
    host.statuses["gamma"] = ServerStatus(name="gamma", state="stopped")
    host.publish(ServerStateChanged(server="gamma", state="stopped"))  # a server the panel did not know yet
    assert panel.row_text("gamma") == "Stopped"
    del host.statuses["gamma"]  # removed from the host: its last "stopped" takes the row away
    host.publish(ServerStateChanged(server="gamma", state="stopped"))
    assert "gamma" not in panel.rows and panel.list.count() == 2


def test_restart_countdown_ticks_with_the_timer(panel: ServersPanel, clock: Clock) -> None:
    host = FakeHost("alpha")
    notices: list[str] = []
    panel.notification.connect(notices.append)
    panel.attach(host)
    host.publish(ServerStateChanged(server="alpha", state="ready", tool_count=2))
    host.publish(ServerStateChanged(server="alpha", state="failed", error="process exited", restart_in_s=4, attempt=1))
    assert panel.row_text("alpha") == "Restarting in 4 s (attempt 1)"
    assert panel.rows["alpha"].error_label.text() == "process exited"
    assert panel.countdown.isActive()
    assert notices == [
        "MCP server 'alpha' stopped: process exited. It will restart in 4 s; see View → Servers for its log."
    ]

    clock.now += 1.2
    panel.countdown.timeout.emit()
    assert panel.row_text("alpha") == "Restarting in 3 s (attempt 1)"
    clock.now += 3
    panel.countdown.timeout.emit()
    assert panel.row_text("alpha") == "Restarting now…"

    host.publish(ServerStateChanged(server="alpha", state="restarting", attempt=1))
    assert panel.row_text("alpha") == "Restarting… (attempt 1)"
    assert not panel.countdown.isActive()
    host.publish(ServerStateChanged(server="alpha", state="failed", error="gave up", attempt=10))
    assert notices[-1] == "MCP server 'alpha' failed: gave up. Fix it, then press Restart in View → Servers."


def test_a_row_shrinks_back_when_its_error_line_goes(qtbot, panel: ServersPanel) -> None:
    """A server that was waiting to restart (error line shown) and is ready again is as tall as the others,
    with its name at the top (not pushed down by a stale, taller size hint)."""
    host = FakeHost("alpha", "time")
    panel.attach(host)
    panel.resize(360, 400)
    panel.show()
    qtbot.waitExposed(panel)
    host.publish(ServerStateChanged(server="alpha", state="ready", tool_count=2))
    host.publish(ServerStateChanged(server="time", state="failed", error="process exited", restart_in_s=4, attempt=1))
    tall = panel._items["time"].sizeHint().height()
    assert tall > panel._items["alpha"].sizeHint().height()
    host.publish(ServerStateChanged(server="time", state="ready", tool_count=2))
    QApplication.processEvents()
    heights = {name: panel._items[name].sizeHint().height() for name in ("alpha", "time")}
    assert heights["time"] == heights["alpha"] < tall
    alpha, row = panel.rows["alpha"], panel.rows["time"]
    assert row.name_label.y() == alpha.name_label.y() and row.state_label.y() == alpha.state_label.y()


def test_restart_button_calls_host_restart(qtbot, qloop, panel: ServersPanel) -> None:
    host = FakeHost("alpha")
    host.stderr["alpha"] = "Traceback: boom"
    panel.attach(host)
    host.publish(ServerStateChanged(server="alpha", state="failed", error="boom"))
    assert panel.details.stderr_view.toPlainText() == "Traceback: boom"
    host.gate = asyncio.Event()
    qtbot.mouseClick(panel.rows["alpha"].restart_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: host.restarts == ["alpha"], timeout=3000)
    assert panel.row_text("alpha") == "Starting…"
    assert not panel.rows["alpha"].restart_button.isEnabled()
    host.gate.set()
    qtbot.waitUntil(lambda: panel.row_text("alpha") == "Ready · 1 tool", timeout=3000)
    assert host.restarts == ["alpha"]
    assert panel.details.stderr_view.toPlainText() == "restarted by hand"
    assert "Restart requested" in panel.details.log_view.toPlainText()


def test_stderr_and_level_coloured_log_per_server(panel: ServersPanel) -> None:
    host = FakeHost("alpha", "beta")
    host.stderr = {"alpha": "alpha: listening\nalpha: warning", "beta": "beta: crashed"}
    panel.attach(host)
    assert panel.selected() == "alpha"
    assert panel.details.stderr_view.toPlainText() == "alpha: listening\nalpha: warning"
    host.publish(ServerLog(server="alpha", level="error", logger="db", data="disk full"))
    host.publish(ServerLog(server="alpha", level="info", data={"rows": 3}))
    host.publish(ServerLog(server="beta", level="warning", data="slow"))
    text = panel.details.log_view.toPlainText()
    assert "ERROR db: disk full" in text
    assert 'INFO: {"rows": 3}' in text
    assert "slow" not in text  # beta's line waits until beta is selected
    assert str(ERROR_COLOR) in panel.details.log_lines("alpha")[0].html()  # the theme's danger colour

    panel.select("beta")
    assert panel.details.stderr_view.toPlainText() == "beta: crashed"
    assert "WARNING: slow" in panel.details.log_view.toPlainText()
    host.stderr["beta"] = "beta: crashed\nbeta: again"
    host.publish(ServerStateChanged(server="beta", state="failed", error="exit 1"))  # refresh on events
    assert panel.details.stderr_view.toPlainText().endswith("beta: again")


def test_log_is_bounded(qtbot) -> None:
    view = ServerLogView(max_lines=50)
    qtbot.addWidget(view)
    view.show_server("alpha", "")
    for n in range(120):
        view.add("alpha", _line(n))
    assert len(view.log_lines("alpha")) == 50
    assert view.log_lines("alpha")[0].text == "line 70"
    assert view.log_view.blockCount() <= 50


def _line(n: int) -> LogLine:
    return LogLine("debug", f"line {n}")


def test_summary_text() -> None:
    assert summary_text({}) == "MCP: no servers"


def test_window_dock_indicator_and_status_bar_notice(window: MainWindow, qtbot) -> None:
    host = FakeHost("alpha", "beta", "gamma", "delta")
    window.attach_host(host)
    dock = window.servers_dock
    assert not dock.isVisible()
    view_actions = [a.text() for a in window.menuBar().actions()]
    assert "&View" in view_actions
    for name in ("alpha", "beta", "gamma"):
        host.publish(ServerStateChanged(server=name, state="ready", tool_count=2))
    host.publish(ServerStateChanged(server="delta", state="failed", error="EOF", restart_in_s=4, attempt=1))
    assert dock.indicator.text() == "MCP: 3 ready · 1 failed"
    assert window.statusBar().currentMessage() == (
        "MCP server 'delta' stopped: EOF. It will restart in 4 s; see View → Servers for its log."
    )
    assert QApplication.activeModalWidget() is None  # a notice, not a dialog
    qtbot.mouseClick(dock.indicator, Qt.MouseButton.LeftButton)
    assert dock.isVisible()
    dock.toggleViewAction().trigger()
    assert not dock.isVisible()


@pytest.mark.integration
def test_real_host_with_the_time_server(qtbot, qloop, panel: ServersPanel, tmp_path: Path) -> None:
    servers = {
        "time": ServerConfig(command=sys.executable, args=["-m", "mcp_server_time"]),
        "missing": ServerConfig(command=str(tmp_path / "no-such-server")),
    }
    host = Host(servers, startup_timeout=30, call_timeout=30)
    panel.attach(host)
    assert panel.row_text("time") == "Not started"
    panel.mark_starting()  # as the app does right before host.start()
    assert panel.row_text("time") == "Starting…"
    start = qloop.create_task(host.start())
    try:
        qtbot.waitUntil(start.done, timeout=30_000)
        start.result()
        assert panel.row_text("time") == "Ready · 2 tools"
        states = [line.text for line in panel.details.log_lines("time") if line.level == "state"]
        assert states[:2] == ["Starting…", "Ready · 2 tools"]
        assert panel.row_text("missing") == "Failed"
        assert "no-such-server" in panel.rows["missing"].error_label.text()
    finally:
        close = qloop.create_task(host.aclose())
        qtbot.waitUntil(close.done, timeout=30_000)


LONG_REASON = (
    "MCP server 'crm': command 'crm-mcp' not found on PATH (searched: /usr/local/sbin:/usr/local/bin:/usr/sbin:"
    "/usr/bin:/sbin:/bin:/home/user/.local/bin). Install it or give an absolute path in mcp.json\n"
    "second line of the reason"
)


def test_a_failed_server_says_why_in_full_where_the_user_looks(qtbot, panel: ServersPanel) -> None:
    """#20 item 9: the row, the details header, the Log tab and the Tools tab placeholder, never cut."""
    host = FakeHost("crm", "time")
    panel.attach(host)
    panel.resize(360, 560)
    panel.show()
    qtbot.waitExposed(panel)
    host.publish(ServerStateChanged(server="time", state="ready", tool_count=2))
    host.publish(ServerStateChanged(server="crm", state="failed", error=LONG_REASON))
    panel.select("crm")
    QApplication.processEvents()

    row = panel.rows["crm"]
    assert panel.row_text("crm") == "Failed"
    assert row.error_label.text() == LONG_REASON and row.error_label.isVisible() and row.error_label.wordWrap()
    label = row.error_label
    assert label.height() >= label.heightForWidth(label.width())  # wrapped, every line shown
    assert panel._items["crm"].sizeHint().height() >= row.fit(panel.list.viewport().width()).height()
    assert panel._items["crm"].sizeHint().height() > panel._items["time"].sizeHint().height()

    inspector = panel.inspector
    assert inspector.failure.isVisible() and inspector.failure.wordWrap()
    assert inspector.failure.text() == f"Failed to start: {LONG_REASON}\nFix it (Edit…), then press Restart."
    tools = inspector.tools.topLevelItem(0)
    assert tools.isFirstColumnSpanned()  # across the whole list, not cut at the first column's 170 px
    assert tools.text(0) == "Not available: the server failed to start."
    rect = inspector.tools.visualItemRect(tools)
    text_width = inspector.tools.fontMetrics().horizontalAdvance(tools.text(0))
    assert rect.width() > text_width + 8 > 170 + 8  # readable in full, not elided at the first column
    assert [line.text for line in panel.details.log_lines("crm") if line.level == "state"][-1] == (
        f"Failed: {LONG_REASON}"
    )

    panel.resize(900, 560)  # wider: the wrapped reason needs fewer lines, the row gets shorter
    QApplication.processEvents()
    assert panel._items["crm"].sizeHint().height() == row.fit(panel.list.viewport().width()).height()
    host.publish(ServerStateChanged(server="crm", state="ready", tool_count=1))
    assert not inspector.failure.isVisible() and row.error_label.isHidden()
