"""A regular expression that would backtrack forever, through the real CLI: ``switchboard tools QUERY`` says
it took too long (exit 2), and a model's ``tool_search`` in ``switchboard ask`` gets an error result at the
time bound and the run goes on to its answer (it used to spin at 100 % CPU, SIGTERM ignored)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from desktop_app.runtime.host.bounded_regex import SEARCH_TIME_LIMIT_S
from tests.support.llm_server import ScriptedLLMServer, text_reply, tool_call_reply
from tests.unit.test_cli_ask import events, run_cli

SERVER = f"""
from mcp.server.mcpserver import MCPServer
server = MCPServer("long")

@server.tool(description={"a" * 60 + "!"!r})
def tidy() -> str:
    return "ok"

server.run()
"""
EVIL = "(a|aa)+$"


def config(tmp_path: Path) -> Path:
    script = tmp_path / "long.py"
    script.write_text(SERVER)
    path = tmp_path / "mcp.json"
    path.write_text(json.dumps({"mcpServers": {"long": {"command": sys.executable, "args": [str(script)]}}}))
    return path


def test_tools_with_a_catastrophic_regex_says_so_and_exits_2(tmp_path: Path) -> None:
    code, out, err = run_cli("tools", "--home", str(tmp_path / "h"), "--mcp-config", str(config(tmp_path)), EVIL)
    assert code == 2 and out == ""
    assert f"took longer than {SEARCH_TIME_LIMIT_S:g} s" in err and "Use a simpler pattern" in err


def test_ask_a_models_catastrophic_tool_search_is_an_error_result_and_the_run_finishes(
    llm_server: ScriptedLLMServer, tmp_path: Path
) -> None:
    home = tmp_path / "h"
    (home / "config").mkdir(parents=True)
    (home / "config" / "settings.json").write_text(json.dumps({"tool_deferral": "always"}))
    llm_server.enqueue(
        tool_call_reply([("q1", "tool_search", {"query": EVIL})]),
        text_reply("That search was too slow."),
    )
    code, out, err = run_cli(
        "ask", "--home", str(home), "--base-url", llm_server.url, "--mcp-config", str(config(tmp_path)),
        "--events", "jsonl", "find a tool",
    )  # fmt: skip
    assert code == 0, err
    seen = events(out)
    [result] = [e for e in seen if e["kind"] == "tool_result"]
    assert result["is_error"] is True and "search_timeout" in str(result["text"])
    assert seen[-1]["kind"] == "run_finished" and seen[-1]["content"] == "That search was too slow."
