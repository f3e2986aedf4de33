"""End to end: the real Runtime on the loopback LLM server with an in-process MCP tool, driven by clicks.

Sync test on the already-running ``qloop``; all waits are qtbot waits on observable state, never sleeps.
"""

from __future__ import annotations

from typing import Any

import pytest
from mcp.server.mcpserver import MCPServer
from PySide6.QtCore import Qt

from desktop_app.runtime.host import Host
from desktop_app.runtime.service import Runtime
from desktop_app.runtime.settings import ProviderSettings, Settings
from desktop_app.ui.chat.blocks import AnswerBlock, ReasoningBlock, UsageFooter
from desktop_app.ui.window.main_window import MainWindow
from tests.support.fakes import only_card
from tests.support.llm_server import Gate, Reply, split, text_reply, tool_call_reply

REASONING_1 = "The user wants the time in Paris. I will ask the clock tool."
REASONING_2 = "The clock answered noon."
ANSWER = "It is **12:00** in Paris right now."


def make_clock_server() -> MCPServer:
    server = MCPServer("clock", log_level="WARNING")

    @server.tool(description="The current time in a city.")
    async def clock(city: str) -> str:
        return f"12:00 in {city}"

    return server


def _await(qtbot, loop, coro: Any, timeout: int = 10_000) -> Any:
    task = loop.create_task(coro)
    qtbot.waitUntil(task.done, timeout=timeout)
    return task.result()


@pytest.mark.integration
def test_prompt_reasoning_tool_approval_and_answer(qtbot, qloop, llm_server):
    first = tool_call_reply([("call_clock_1", "clock", {"city": "Paris"})], reasoning=REASONING_1)
    gate = Gate()  # hold the stream after the reasoning, to see it live before the tool call arrives
    n_reasoning = len(split(REASONING_1))
    first = Reply(steps=[*first.steps[:n_reasoning], gate, *first.steps[n_reasoning:]])
    llm_server.enqueue(first, text_reply(ANSWER, reasoning=REASONING_2))

    host = Host()
    host.register_builtin("switchboard.clock", make_clock_server)
    _await(qtbot, qloop, host.ensure_connected("switchboard.clock"))  # built-ins list tools once used
    settings = Settings(provider=ProviderSettings(base_url=llm_server.url, model="test-model"))
    runtime = Runtime(settings=settings, host=host, api_key_override="test-key")

    win = MainWindow()
    qtbot.addWidget(win)
    win.attach_runtime(runtime)
    win.show()
    qtbot.waitExposed(win)
    try:
        qtbot.keyClicks(win.composer.edit, "What time is it in Paris?")
        qtbot.mouseClick(win.composer.button, Qt.MouseButton.LeftButton)

        qtbot.waitUntil(lambda: win.view.reasoning is not None and win.view.reasoning.text == REASONING_1)
        assert win.view.reasoning.expanded and not win.view.cards
        assert win.composer.button.text() == "Stop"
        gate.open()

        qtbot.waitUntil(lambda: only_card(win.view) is not None and not only_card(win.view).buttons.isHidden())
        card = only_card(win.view)
        assert "clock" in card.title.text() and "switchboard.clock" in card.title.text()
        assert card.arguments.text() == '{\n  "city": "Paris"\n}'
        qtbot.mouseClick(card.approve_button, Qt.MouseButton.LeftButton)

        qtbot.waitUntil(lambda: not win.controller.busy, timeout=15_000)
        assert card.status.text() == "Approved"
        assert card.result.text() == "12:00 in Paris" and not card.is_error
        reasoning = [b for b in win.view.blocks() if isinstance(b, ReasoningBlock)]
        assert [r.text for r in reasoning] == [REASONING_1, REASONING_2]
        assert not any(r.expanded for r in reasoning)
        [answer] = [b for b in win.view.blocks() if isinstance(b, AnswerBlock)]
        assert answer.text == ANSWER
        assert answer.toPlainText() == "It is 12:00 in Paris right now."
        [footer] = [b for b in win.view.blocks() if isinstance(b, UsageFooter)]
        assert footer.totals["prompt_tokens"] > 0
        blocks = win.view.blocks()
        assert blocks.index(reasoning[0]) < blocks.index(card) < blocks.index(reasoning[1]) < blocks.index(answer)

        tool_message = llm_server.requests[1].json["messages"][-1]
        assert tool_message["role"] == "tool" and tool_message["content"] == "12:00 in Paris"
    finally:
        _await(qtbot, qloop, runtime.aclose())
