"""Fixtures for the MCP App view tests: the real window, Runtime and Host with the probe app server in
process, the loopback LLM, and the views' controller."""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest
import shiboken6
from mcp.server.mcpserver import MCPServer

from desktop_app.runtime.apps.known import KnownViews
from desktop_app.runtime.host import Host, ServerConfig
from desktop_app.runtime.run.approvals import ApprovalPolicy
from desktop_app.runtime.service import Runtime
from desktop_app.runtime.settings import ProviderSettings, Settings
from desktop_app.ui.apps.controller import AppsController, attach_apps
from desktop_app.ui.asyncqt import TaskRunner
from desktop_app.ui.window.main_window import MainWindow
from tests.support.apps.probe_server import probe_server
from tests.support.llm_server import ScriptedLLMServer

# Qt WebEngine cannot share a process with the rest of the suite: once it is loaded, the next test that runs and
# ends a Qt event loop of its own (app.exec(), as qasync's run_until_complete does) crashes in WebEngine's
# aboutToQuit handler. The tests that show views (engine/) therefore run in one subprocess of their own
# (test_webengine_views.py), sharing one engine warm-up; the main run does not collect them.
WEBENGINE_ENV = "SWITCHBOARD_WEBENGINE_TESTS"
collect_ignore_glob = [] if os.environ.get(WEBENGINE_ENV) else ["engine/*"]


def other_server() -> MCPServer:
    server = MCPServer("other", log_level="WARNING")

    @server.tool()
    def secret() -> str:
        return "the other server's secret"

    return server


@dataclass
class AppWindow:
    window: MainWindow
    runtime: Runtime
    host: Host
    apps: AppsController
    opened: list[str] = field(default_factory=list)
    recorder: Any = None

    def reports(self, tool_call_id: str) -> list[dict[str, Any]]:
        """What the probe view reported (its ``notifications/message`` logs), in order."""
        session = self.apps.views.sessions.get(tool_call_id)
        frame = self.apps.frames.get(tool_call_id)
        session = session or (frame.session if frame is not None else None)
        return [data for _level, data in (session.logs if session is not None else []) if isinstance(data, dict)]

    def reports_any(self) -> list[dict[str, Any]]:
        """Every probe report of every view shown in this window."""
        sessions = [f.session for f in [*self.apps.frames.values(), *self.apps.early.values()] if f.session]
        return [data for s in sessions if s is not None for _level, data in s.logs if isinstance(data, dict)]

    def report(self, tool_call_id: str, probe: str) -> dict[str, Any] | None:
        return next((r for r in self.reports(tool_call_id) if r.get("probe") == probe), None)


def build(
    qtbot: Any,
    llm: ScriptedLLMServer,
    *,
    store: Any = None,
    known: KnownViews | None = None,
    servers: dict[str, ServerConfig] | None = None,
    policy: str = "ask",
    probe: bool = True,
    ran: list[str] | None = None,
) -> AppWindow:
    host = Host(servers or {}, call_timeout=20)
    if probe:
        host.add_in_process("probe", lambda: probe_server(connect_domains=["https://api.example.com"], ran=ran))
        host.add_in_process("other", other_server)
    runtime = Runtime(
        settings=Settings(provider=ProviderSettings(base_url=llm.url, model="m")),
        host=host,
        policy=ApprovalPolicy(policy),  # type: ignore[arg-type]
    )
    window = MainWindow()
    qtbot.addWidget(window)
    window.attach_runtime(runtime)
    recorder = None
    if store is not None:
        from desktop_app.runtime.store import attach_store

        recorder = attach_store(runtime, store)
        window.attach_store(store)
    apps = attach_apps(window, runtime, host, store, known)
    assert apps is not None
    result = AppWindow(window, runtime, host, apps, recorder=recorder)

    def open_url(url: Any) -> bool:
        result.opened.append(url.toString())
        return True

    apps.open_url = open_url
    tasks = TaskRunner()
    started = tasks.start(host.start())
    qtbot.waitUntil(started.done, timeout=20_000)
    window.resize(1000, 800)
    window.show()
    qtbot.waitExposed(window)
    return result


def close(qtbot: Any, app: AppWindow) -> None:
    app.apps.close()
    tasks = TaskRunner()
    closing = tasks.start(app.runtime.aclose())
    qtbot.waitUntil(closing.done, timeout=20_000)
    if app.recorder is not None:
        app.recorder.close()
    if shiboken6.isValid(app.window):  # pytest-qt may have closed it already
        app.window.close()


@pytest.fixture
def app_window(qtbot: Any, qloop: Any, llm_server: ScriptedLLMServer) -> Iterator[AppWindow]:
    app = build(qtbot, llm_server)
    yield app
    close(qtbot, app)
