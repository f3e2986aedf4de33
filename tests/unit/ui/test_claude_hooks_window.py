"""Issue 22 item 2 in the window (pytest-qt, the real MainWindow, Runtime and Host): a Claude Code guard hook
(Claude Code's ``{"matcher": "Bash", "hooks": [...]}`` shape, a real command reading Claude Code's input) that
denies ``rm -rf`` through ``hookSpecificOutput.permissionDecision`` blocks the call: the tool never runs, the card
shows the block with the hook's reason and its ``systemMessage``, and the model reads the reason."""

from __future__ import annotations

import gc
import json
import sys
from pathlib import Path

from mcp.server.mcpserver import MCPServer

from desktop_app.runtime.hooks.config import parse_hooks
from desktop_app.runtime.hooks.model import HookSource
from desktop_app.runtime.hooks.runner import HookRunner
from desktop_app.runtime.host import Host
from desktop_app.runtime.run.approvals import ApprovalPolicy
from desktop_app.runtime.service import Runtime
from desktop_app.runtime.settings import ProviderSettings, Settings
from desktop_app.ui.window.main_window import MainWindow
from tests.support.fakes import FakeProvider, answer, calls, card_for

REASON = "rm -rf is refused: delete the files one by one"
GUARD = f"""import json, sys
data = json.load(sys.stdin)
if data["tool_name"] == "Bash" and "rm -rf" in data["tool_input"]["command"]:
    print(json.dumps({{"hookSpecificOutput": {{"hookEventName": "PreToolUse", "permissionDecision": "deny",
        "permissionDecisionReason": {REASON!r}}}, "systemMessage": "Guard checked a shell command"}}))
"""


def shell(ran: list[str]) -> MCPServer:
    server = MCPServer("shell", log_level="WARNING")

    @server.tool(description="Run a shell command.", structured_output=False)
    async def run_command(command: str) -> str:
        ran.append(command)
        return f"ran {command}"

    return server


def test_a_claude_code_guard_hook_blocks_rm_rf_in_the_window(qtbot, qloop, tmp_path: Path) -> None:
    script = tmp_path / "guard.py"
    script.write_text(GUARD)
    ran: list[str] = []
    host = Host(call_timeout=10)
    host.register_builtin("shell", lambda: shell(ran))
    runner = HookRunner(cwd=tmp_path)
    group = {"matcher": "Bash", "hooks": [{"type": "command", "command": f"{sys.executable} {script}"}]}
    runner.add_hooks(parse_hooks({"PreToolUse": [group]}, HookSource("user")))
    host.set_hooks(runner)
    provider = FakeProvider([calls(("c1", "run_command", json.dumps({"command": "rm -rf /"}))), answer("I stopped.")])
    runtime = Runtime(
        settings=Settings(provider=ProviderSettings(base_url="http://127.0.0.1:9/v1", model="m")),
        host=host,
        provider_factory=lambda _s, _k: provider,
        api_key_override="k",
        policy=ApprovalPolicy("always"),
    )
    win = MainWindow()
    qtbot.addWidget(win)
    win.attach_runtime(runtime)
    win.show()
    qtbot.waitExposed(win)
    try:
        win.composer.edit.setPlainText("clean up everything")
        win.composer.button.click()
        qtbot.waitUntil(lambda: not win.controller.busy and len(provider.requests) == 2, timeout=20000)
        card = card_for(win.view, "c1")
        assert card is not None and ran == []  # the tool never ran
        chips = {chip.property("kind"): chip for chip in card.hook_notices.chips}
        assert REASON in chips["blocked"].full_text  # the user sees why
        assert "Guard checked a shell command" in chips["warning"].full_text  # and the hook's systemMessage
        assert REASON in provider.requests[1].messages[-1].content  # the model reads the reason
    finally:
        task = qloop.create_task(runtime.aclose())
        qtbot.waitUntil(task.done, timeout=15000)
        gc.collect()
        qtbot.wait(50)
