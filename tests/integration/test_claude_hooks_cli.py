"""Issue 22 items 2 and 3 through the real ``switchboard`` console script and the loopback LLM server: a Claude Code
plugin (written from Claude Code's plugin and hooks references) whose guard hook denies ``rm -rf`` through
``hookSpecificOutput.permissionDecision`` blocks the call, the hook's reason reaching the user (stderr) and the model
(the tool message of the next request), its ``systemMessage`` shown; its ``Bash`` matcher fires for the
``run_command`` tool; the hook imports its own package from ``$CLAUDE_PLUGIN_ROOT`` (as hookify does) and the
plugin's server is started with ``CLAUDE_PLUGIN_ROOT`` set."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from tests.integration.test_hooks_trust import switchboard
from tests.support import claude_plugins
from tests.support.llm_server import ScriptedLLMServer, text_reply, tool_call_reply

pytestmark = pytest.mark.integration
SERVER = Path(__file__).parents[1] / "support" / "shell_tool_server.py"
TOOL = "mcp__guard_shell__run_command"  # server guard.shell, tool run_command
REASON = "rm -rf is not allowed here: remove the files one by one"

HOOK = """import json, os, sys
sys.path.insert(0, os.environ["CLAUDE_PLUGIN_ROOT"])
from core.rules import check

data = json.load(sys.stdin)
reason = check(data)
if reason:
    print(json.dumps({
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "deny",
            "permissionDecisionReason": reason,
        },
        "systemMessage": "guard stopped a destructive command",
    }))
"""
RULES = f"""def check(data):
    command = data.get("tool_input", {{}}).get("command", "")
    if data.get("hook_event_name") == "PreToolUse" and data.get("tool_name") == "Bash" and "rm -rf" in command:
        return {REASON!r}
    return ""
"""


def guard_plugin(root: Path, ran_log: Path) -> Path:
    folder = root / "guard"
    claude_plugins.manifest(folder, "guard", version="1.0.0", description="Stops destructive shell commands")
    claude_plugins.write(folder / "hooks" / "pretooluse.py", HOOK)
    claude_plugins.write(folder / "core" / "__init__.py", "")
    claude_plugins.write(folder / "core" / "rules.py", RULES)
    command = f"{sys.executable} ${{CLAUDE_PLUGIN_ROOT}}/hooks/pretooluse.py"
    claude_plugins.hooks(
        folder, {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": command, "timeout": 30}]}]}
    )
    server = {"command": sys.executable, "args": [str(SERVER)], "env": {"RAN_LOG": str(ran_log)}}
    claude_plugins.write(folder / ".mcp.json", json.dumps({"mcpServers": {"shell": server}}))
    return folder


def test_a_claude_code_guard_hook_denies_rm_rf_in_ask(llm_server: ScriptedLLMServer, tmp_path: Path) -> None:
    home, project, ran_log = tmp_path / "home", tmp_path / "project", tmp_path / "ran.log"
    project.mkdir()
    folder = guard_plugin(tmp_path / "src", ran_log)
    for args in (("plugins", "install", str(folder)), ("plugins", "enable", "guard"), ("hooks", "trust", "--all")):
        proc = switchboard(*args, home=home, cwd=project)
        assert proc.returncode == 0, proc.stderr

    llm_server.enqueue(
        tool_call_reply([("c1", TOOL, {"command": "rm -rf /tmp/build"})]), text_reply("I could not delete it.")
    )
    ask = ("ask", "--base-url", llm_server.url, "--model", "m", "--approve", "always")
    proc = switchboard(*ask, "clean the build folder", home=home, cwd=project)
    assert proc.returncode == 0, proc.stderr
    assert not ran_log.exists()  # the tool never ran
    assert REASON in proc.stderr  # the user reads the hook's reason …
    assert "[hook] PreToolUse hook" in proc.stderr and "guard stopped a destructive command" in proc.stderr
    tool_message = llm_server.requests[1].json["messages"][-1]
    assert tool_message["role"] == "tool" and REASON in tool_message["content"]  # … and so does the model

    llm_server.enqueue(tool_call_reply([("c2", TOOL, {"command": "ls"})]), text_reply("Listed."))
    proc = switchboard(*ask, "list the files", home=home, cwd=project)
    assert proc.returncode == 0, proc.stderr
    [line] = ran_log.read_text().splitlines()
    assert line == f"ls\t{home / 'data' / 'plugin-files' / 'guard'}"  # the plugin's server knows its folder
