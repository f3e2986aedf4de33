"""`switchboard ask --dialect anthropic` end to end: the real console script, Messages SSE, a real MCP server.

The Anthropic twin of ``test_cli_ask.test_tool_call_reaches_the_real_time_server``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.support.anthropic_server import anthropic_text_reply, anthropic_tool_use_reply
from tests.support.llm_server import ScriptedLLMServer

SWITCHBOARD = str(Path(sys.executable).parent / "switchboard")


def run_ask(*args: str, home: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHON_KEYRING_BACKEND": "keyring.backends.null.Keyring"}
    command = [SWITCHBOARD, "ask", "--home", str(home), *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL, env=env)


def events_of(stdout: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in stdout.splitlines() if line.strip()]


@pytest.fixture
def time_config(tmp_path: Path) -> Path:
    path = tmp_path / "mcp.json"
    path.write_text(
        json.dumps({"mcpServers": {"time": {"command": sys.executable, "args": ["-m", "mcp_server_time"]}}})
    )
    return path


@pytest.mark.integration
@pytest.mark.parametrize("with_v1", [True, False])
def test_anthropic_tool_call_reaches_the_real_time_server(
    llm_server: ScriptedLLMServer, tmp_path: Path, time_config: Path, with_v1: bool
) -> None:
    llm_server.enqueue(
        anthropic_tool_use_reply(
            [("toolu_1", "mcp__time__get_current_time", {"timezone": "UTC"})], thinking="Need time.", signature="s1"
        ),
        anthropic_text_reply("It is the time the server said.", thinking="Got it."),
    )
    base_url = llm_server.url if with_v1 else llm_server.url.removesuffix("/v1")
    proc = run_ask(
        "--base-url",
        base_url,
        "--dialect",
        "anthropic",
        "--model",
        "claude-test",
        "--mcp-config",
        str(time_config),
        "--approve",
        "always",
        "--events",
        "jsonl",
        "What time is it?",
        home=tmp_path / "h",
    )
    assert proc.returncode == 0, proc.stderr
    events = events_of(proc.stdout)
    kinds = [e["kind"] for e in events]
    assert kinds.index("tool_call") < kinds.index("tool_result") < kinds.index("content_delta")
    call = next(e for e in events if e["kind"] == "tool_call")
    assert (call["model_call_id"], call["server"], call["tool"]) == ("toolu_1", "time", "get_current_time")
    assert call["arguments"] == {"timezone": "UTC"}
    result = next(e for e in events if e["kind"] == "tool_result")
    assert result["tool_call_id"] == call["tool_call_id"] and result["is_error"] is False
    data = json.loads(result["text"])
    assert data["timezone"] == "UTC" and "datetime" in data  # real data from mcp-server-time
    assert "".join(e["text"] for e in events if e["kind"] == "content_delta") == "It is the time the server said."
    assert kinds[-1] == "run_finished"
    assert events[-1]["content"] == "It is the time the server said."

    # Both requests went to /v1/messages; the model saw the tool and got the tool_use + tool_result back.
    assert [r.path for r in llm_server.requests] == ["/v1/messages", "/v1/messages"]
    first, second = (r.json for r in llm_server.requests)
    assert first["model"] == "claude-test" and first["stream"] is True
    assert "mcp__time__get_current_time" in [t["name"] for t in first["tools"]]
    assistant, tool_results = second["messages"][-2], second["messages"][-1]
    assert assistant["role"] == "assistant"
    tool_use = next(b for b in assistant["content"] if b["type"] == "tool_use")
    assert tool_use == {
        "type": "tool_use",
        "id": "toolu_1",
        "name": "mcp__time__get_current_time",
        "input": {"timezone": "UTC"},
    }
    assert tool_results["role"] == "user"
    [block] = tool_results["content"]
    assert block["type"] == "tool_result" and block["tool_use_id"] == "toolu_1" and block["is_error"] is False
    assert json.loads(block["content"])["timezone"] == "UTC"
