"""The tool card's progress bar: determinate (progress/total, message) or busy, gone when the result arrives.

First from the fake runtime's events, then through the real Runtime and Host with an in-process built-in
server whose tool reports progress (``ctx.report_progress``) and waits until the test lets it finish.
"""

from __future__ import annotations

import asyncio
from typing import Any

from mcp.server.mcpserver import Context, MCPServer
from mcp_types import ToolAnnotations
from PySide6.QtCore import Qt

from desktop_app.runtime import events as ev
from desktop_app.runtime.host import Host
from desktop_app.runtime.service import Runtime
from desktop_app.runtime.settings import ProviderSettings, Settings
from desktop_app.ui.chat.tool_card import PROGRESS_STEPS
from desktop_app.ui.window.main_window import MainWindow
from tests.support.fake_runtime import FakeRuntime
from tests.support.fakes import FakeProvider, answer, calls, only_card


def _await(qtbot: Any, loop: Any, coro: Any, timeout: int = 10_000) -> Any:
    task = loop.create_task(coro)
    qtbot.waitUntil(task.done, timeout=timeout)
    return task.result()


def test_progress_events_drive_the_bar(window: MainWindow, fake_runtime: FakeRuntime) -> None:
    ids = {"conversation_id": window.controller.conversation_id, "run_id": "r1", "tool_call_id": "c1"}
    fake_runtime._emit(ev.ToolCall(**ids, name="slow", server="s", tool="slow", arguments={}))
    card = window.view.cards["c1"]
    assert card.progress_bar is None  # no bar until a tool reports progress

    fake_runtime._emit(ev.ToolProgress(**ids, progress=1, total=4, message="step 1 of 4"))
    bar, label = card.progress_bar, card.progress_label
    assert bar is not None and label is not None and not bar.isHidden()
    assert (bar.minimum(), bar.maximum(), bar.value()) == (0, PROGRESS_STEPS, PROGRESS_STEPS // 4)
    assert bar.text() == "1 / 4" and label.text() == "step 1 of 4" and not label.isHidden()

    fake_runtime._emit(ev.ToolProgress(**ids, progress=7, total=None))
    assert (bar.minimum(), bar.maximum()) == (0, 0)  # busy indicator: the total is unknown
    assert label.text() == "7 done"

    fake_runtime._emit(ev.ToolResult(**ids, server="s", tool="slow", text="finished"))
    assert bar.isHidden() and label.isHidden()
    assert card.result.text() == "finished"


def test_progress_for_an_unknown_card_is_ignored(window: MainWindow, fake_runtime: FakeRuntime) -> None:
    ids = {"conversation_id": window.controller.conversation_id, "run_id": "r1", "tool_call_id": "nope"}
    fake_runtime._emit(ev.ToolProgress(**ids, progress=1, total=2))
    assert window.view.cards == {}


def make_slow_server(release: asyncio.Event) -> MCPServer:
    server = MCPServer("slow", log_level="WARNING")

    @server.tool(annotations=ToolAnnotations(readOnlyHint=True))
    async def slow(ctx: Context) -> str:
        await ctx.report_progress(1, 2, "halfway there")
        await release.wait()
        await ctx.report_progress(2, 2, "done")
        return "slow work finished"

    return server


def test_real_tool_progress_shows_on_the_card(qtbot, qloop) -> None:
    release = asyncio.Event()
    host = Host(call_timeout=30)
    host.register_builtin("switchboard.slow", lambda: make_slow_server(release))
    provider = FakeProvider([calls(("c1", "slow", "{}")), answer("all done")])
    settings = Settings(provider=ProviderSettings(base_url="http://127.0.0.1:9/v1", model="m"))
    runtime = Runtime(settings=settings, host=host, provider_factory=lambda _s, _k: provider)
    win = MainWindow()
    qtbot.addWidget(win)
    win.attach_runtime(runtime)
    win.attach_host(host)
    win.show()
    qtbot.waitExposed(win)
    try:
        qtbot.keyClicks(win.composer.edit, "Do the slow thing")
        qtbot.mouseClick(win.composer.button, Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda: only_card(win.view) is not None and only_card(win.view).progress_bar is not None)
        card = only_card(win.view)
        assert card.progress_bar is not None and card.progress_label is not None
        qtbot.waitUntil(lambda: card.progress_bar.value() == PROGRESS_STEPS // 2)
        assert not card.progress_bar.isHidden() and card.progress_label.text() == "halfway there"
        release.set()
        qtbot.waitUntil(lambda: not win.controller.busy, timeout=15_000)
        assert card.result.text() == "slow work finished"
        assert card.progress_bar.isHidden()
    finally:
        _await(qtbot, qloop, runtime.aclose())
