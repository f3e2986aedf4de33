"""The CLI contract for deferred tools, with the real console script and a real stdio MCP server (60 tools):

* ``switchboard ask --events jsonl`` emits ``tools_promoted`` with the tools and why (search, direct call);
* ``switchboard tools [--json] [QUERY]`` lists the catalog with tool_search's syntax.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.support.llm_server import ScriptedLLMServer, text_reply, tool_call_reply

SWITCHBOARD = str(Path(sys.executable).parent / "switchboard")
BUILTIN_TOOLS = {
    "current_time",
    "system_info",
    "search_conversations",
    "read_conversation",
    "save_artifact",
    "list_artifacts",
    "read_artifact",
    # switchboard.workflows and switchboard.tasks (issue 25): built-ins, loaded like the others
    "list_workflows",
    "run_workflow",
    "create_task",
    "list_tasks",
    "update_task",
    "delete_task",
    "run_task",
}
SERVER = Path(__file__).resolve().parents[1] / "support" / "many_tools_server.py"


def home_with_server(tmp_path: Path) -> Path:
    home = tmp_path / "h"
    (home / "config").mkdir(parents=True)
    config = {
        "mcpServers": {"many": {"command": sys.executable, "args": [str(SERVER), "many", "60"], "pinned": ["tool_059"]}}
    }
    (home / "config" / "mcp.json").write_text(json.dumps(config), encoding="utf-8")
    return home


def run(*args: str, home: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHON_KEYRING_BACKEND": "keyring.backends.null.Keyring"}
    command = [SWITCHBOARD, *args, "--home", str(home)]
    return subprocess.run(command, capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL, env=env)


def events_of(stdout: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in stdout.splitlines() if line.strip()]


@pytest.mark.integration
def test_ask_events_name_promoted_tools_and_why(llm_server: ScriptedLLMServer, tmp_path: Path) -> None:
    home = home_with_server(tmp_path)
    llm_server.enqueue(
        tool_call_reply([("s1", "tool_search", {"query": "+tool_01 number"})]),
        tool_call_reply([("d1", "mcp__many__tool_042", {"text": "hi"})]),
        text_reply("ok"),
    )
    proc = run("ask", "--base-url", llm_server.url, "--approve", "always", "--events", "jsonl", "go", home=home)
    assert proc.returncode == 0, proc.stderr
    events = events_of(proc.stdout)
    promoted = [(e["tools"], e["reason"]) for e in events if e["kind"] == "tools_promoted"]
    expected_search = [f"mcp__many__tool_{n:03d}" for n in range(10, 15)]  # capped at 5, catalog order on ties
    assert promoted == [(expected_search, "search"), (["mcp__many__tool_042"], "direct_call")]
    first, _second, third = (r.json for r in llm_server.requests)
    loaded = [t["function"]["name"] for t in first["tools"]]
    assert set(loaded) == {*BUILTIN_TOOLS, "mcp__many__tool_059", "tool_search"}  # not the 59 deferred ones
    assert [t["function"]["name"] for t in third["tools"]] == [*loaded, *expected_search, "mcp__many__tool_042"]
    call = next(e for e in events if e["kind"] == "tool_call" and e["model_call_id"] == "d1")
    result = next(e for e in events if e["kind"] == "tool_result" and e["tool_call_id"] == call["tool_call_id"])
    assert result["text"] == "many.tool_042(hi)" and not result["is_error"]


@pytest.mark.integration
def test_tools_command_lists_and_searches(tmp_path: Path) -> None:
    home = home_with_server(tmp_path)
    proc = run("tools", "--json", home=home)
    assert proc.returncode == 0, proc.stderr
    listing = json.loads(proc.stdout)
    assert listing["deferring"] is True and "69 tools are more than 40" in listing["reason"]
    states = {t["name"]: t["state"] for t in listing["tools"]}
    assert states["mcp__many__tool_059"] == "pinned" and states["mcp__many__tool_000"] == "deferred"
    sees = {t["name"]: t["visibility"] for t in listing["tools"]}
    assert sees["mcp__many__tool_059"] == "schema" and sees["mcp__many__tool_000"] == "named"
    assert listing["named"] == sum(1 for v in sees.values() if v == "named") > 0
    assert listing["saved_tokens"] > 0 and listing["sent_tokens"] < listing["total_tokens"]
    proc = run("tools", "select:mcp__many__tool_003,mcp__many__tool_001", home=home)
    assert proc.returncode == 0, proc.stderr
    lines = [line.split()[0] for line in proc.stdout.splitlines() if line.startswith("  ")]
    assert lines == ["mcp__many__tool_001", "mcp__many__tool_003"]
    assert "2 of 69 tools match" in proc.stdout and "Deferral on" in proc.stdout
    proc = run("tools", "+tool_01", home=home)  # the + form, uncapped (tool_search would stop at 5)
    assert proc.returncode == 0, proc.stderr
    lines = [line.split()[0] for line in proc.stdout.splitlines() if line.startswith("  ")]
    assert lines == [f"mcp__many__tool_{n:03d}" for n in range(10, 20)] and "10 of 69 tools match" in proc.stdout
    proc = run("tools", "NUMBER 42", home=home)  # words: each in the name or the description, any case
    assert proc.returncode == 0, proc.stderr
    assert [line.split()[:3] for line in proc.stdout.splitlines() if line.startswith("  ")] == [
        ["mcp__many__tool_042", "deferred", "named"]
    ]
    proc = run("tools", "nothing-like-this", home=home)
    assert proc.returncode == 1 and "0 of 69 tools match" in proc.stdout
