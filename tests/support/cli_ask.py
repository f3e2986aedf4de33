"""Running the real ``switchboard ask`` console script in tests, and reading what it prints.

``run_ask`` starts the installed script with an isolated ``--home`` and no OS keyring; ``events_of`` parses its
``--events jsonl`` output; ``time_server_config`` writes an ``mcp.json`` for the real mcp-server-time; and
``ask_time_round`` asks "What time is it?" with that server approved and checks the events of a run whose model
called its ``get_current_time`` once and then answered (``assert_time_tool_round``, whatever the wire dialect).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

SWITCHBOARD = str(Path(sys.executable).parent / "switchboard")


def run_ask(*args: str, home: Path) -> subprocess.CompletedProcess[str]:
    """``switchboard ask --home <home> <args>``: no stdin, a 60 s bound and the null keyring backend."""
    env = {**os.environ, "PYTHON_KEYRING_BACKEND": "keyring.backends.null.Keyring"}
    command = [SWITCHBOARD, "ask", "--home", str(home), *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL, env=env)


def events_of(stdout: str) -> list[dict[str, Any]]:
    """The events of ``--events jsonl`` output, one JSON object a line."""
    return [json.loads(line) for line in stdout.splitlines() if line.strip()]


def time_server_config(path: Path) -> Path:
    """Write an ``mcp.json`` at ``path`` with one server, ``time``: the real mcp-server-time."""
    path.write_text(
        json.dumps({"mcpServers": {"time": {"command": sys.executable, "args": ["-m", "mcp_server_time"]}}})
    )
    return path


def assert_time_tool_round(events: list[dict[str, Any]], *, model_call_id: str, answer: str) -> None:
    """The model called ``time.get_current_time`` for UTC as ``model_call_id``, the real server answered, and the
    run finished with ``answer``: tool call, then its result, then the streamed answer."""
    kinds = [e["kind"] for e in events]
    assert kinds.index("tool_call") < kinds.index("tool_result") < kinds.index("content_delta")
    call = next(e for e in events if e["kind"] == "tool_call")
    assert (call["model_call_id"], call["server"], call["tool"]) == (model_call_id, "time", "get_current_time")
    assert call["arguments"] == {"timezone": "UTC"}
    result = next(e for e in events if e["kind"] == "tool_result")
    assert result["tool_call_id"] == call["tool_call_id"] and result["is_error"] is False
    data = json.loads(result["text"])
    assert data["timezone"] == "UTC" and "datetime" in data  # real data from mcp-server-time
    assert "".join(e["text"] for e in events if e["kind"] == "content_delta") == answer
    assert kinds[-1] == "run_finished"
    assert events[-1]["content"] == answer


def ask_time_round(*args: str, mcp_config: Path, home: Path, model_call_id: str, answer: str) -> list[dict[str, Any]]:
    """``switchboard ask <args>`` "What time is it?" with ``mcp_config``'s tools always approved, as JSONL events;
    it must exit 0 and its events pass ``assert_time_tool_round``."""
    round_args = ("--mcp-config", str(mcp_config), "--approve", "always", "--events", "jsonl", "What time is it?")
    proc = run_ask(*args, *round_args, home=home)
    assert proc.returncode == 0, proc.stderr
    events = events_of(proc.stdout)
    assert_time_tool_round(events, model_call_id=model_call_id, answer=answer)
    return events
