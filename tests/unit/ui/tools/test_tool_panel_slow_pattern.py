"""The Tools panel's search with a regular expression that backtracks without end: the catalog search stops at its
time bound (``SearchTimeout``) and the panel says so inline, instead of an exception out of the refresh timer.
Real Host (an in-process server), Runtime and deferral."""

from __future__ import annotations

from typing import Any

from mcp.server.mcpserver import MCPServer

from desktop_app.runtime.host import Host, ServerConfig
from desktop_app.runtime.run.approvals import ApprovalPolicy
from desktop_app.runtime.service import Runtime
from desktop_app.runtime.settings import ProviderSettings, Settings
from desktop_app.runtime.tools.deferral import DeferralSettings, ToolDeferral
from desktop_app.ui.tools.panel import ToolPanel
from tests.support.fakes import FakeProvider

EVIL = r"(a|aa)+$"  # exponential backtracking over "aaa…a!"


def long_description_server() -> MCPServer:
    server = MCPServer("longdesc")

    @server.tool(description="a" * 60 + "!")
    def shout() -> str:
        return "ok"

    @server.tool(description="Say hello")
    def hello() -> str:
        return "hello"

    return server


def test_a_pattern_that_takes_too_long_is_reported_in_the_panel(qtbot: Any, qloop: Any) -> None:
    host = Host()
    host.add_in_process("longdesc", long_description_server, ServerConfig(command="(in-process longdesc)"))
    settings = Settings(provider=ProviderSettings(base_url="http://127.0.0.1:9", model="m"))
    runtime = Runtime(
        settings=settings, host=host, policy=ApprovalPolicy("ask"), provider_factory=lambda _s, _k: FakeProvider()
    )
    runtime.attach_deferral(ToolDeferral(host, lambda: DeferralSettings.from_settings(runtime.settings)))
    conversation = runtime.new_conversation()
    panel = ToolPanel()
    qtbot.addWidget(panel)
    panel.attach_runtime(runtime, lambda: conversation)
    panel.attach_host(host, None)
    start = qloop.create_task(host.start())
    try:
        qtbot.waitUntil(start.done, timeout=30_000)
        panel.show()
        qtbot.waitUntil(lambda: panel.overview is not None and panel.overview.total == 2, timeout=5000)

        panel.search.setText(EVIL)
        qtbot.waitUntil(lambda: panel.empty.isVisibleTo(panel), timeout=10_000)
        assert panel.empty.text() == (
            f"That pattern took too long to match (more than 1 s) and was stopped: “{EVIL}”. "
            "Search with words, or use a simpler pattern (a word, or '+word extra terms')."
        )
        assert not panel.tree.isVisibleTo(panel) and panel.count_label.text() == ""

        panel.search.setText("hello")  # a usable search shows the list again
        qtbot.waitUntil(lambda: panel.count_label.text() == "1 of 2 tools match", timeout=5000)
        assert panel.tree.isVisibleTo(panel) and not panel.empty.isVisibleTo(panel)
    finally:
        close = qloop.create_task(runtime.aclose())
        qtbot.waitUntil(close.done, timeout=30_000)
        close = qloop.create_task(host.aclose())
        qtbot.waitUntil(close.done, timeout=30_000)
