"""The built-in servers end to end: ``switchboard ask`` (the real console script) against the loopback LLM.

Under ``--approve never`` the read-only built-in ``current_time`` still runs (built-in tools that only read
never ask), while ``save_artifact``, which writes, is denied and writes nothing.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import datetime
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
}


def ask(*args: str, home: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHON_KEYRING_BACKEND": "keyring.backends.null.Keyring", "TZ": "Asia/Tokyo"}
    command = [SWITCHBOARD, "ask", "--home", str(home), *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL, env=env)


def events_of(stdout: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in stdout.splitlines() if line.strip()]


@pytest.mark.integration
def test_read_only_builtin_runs_under_never_and_save_artifact_is_denied(
    llm_server: ScriptedLLMServer, tmp_path: Path
) -> None:
    llm_server.enqueue(
        tool_call_reply([("call_time", "current_time", {})], reasoning="Check the clock."),
        tool_call_reply([("call_save", "save_artifact", {"name": "note.md", "content": "# Note"})]),
        text_reply("I could not save the note."),
    )
    home = tmp_path / "h"
    proc = ask(
        "--base-url",
        llm_server.url,
        "--dialect",
        "deepseek",
        "--approve",
        "never",
        "--events",
        "jsonl",
        "What time is it? Then save a note.",
        home=home,
    )

    assert proc.returncode == 0, proc.stderr
    events = events_of(proc.stdout)
    assert events[0]["kind"] == "run_started" and events[-1]["kind"] == "run_finished"
    assert "approval_required" not in [e["kind"] for e in events]  # --approve never asks nobody
    calls = [e for e in events if e["kind"] == "tool_call"]
    model_id = {c["tool_call_id"]: c["model_call_id"] for c in calls}
    assert [(c["model_call_id"], c["name"], c["server"], c["tool"]) for c in calls] == [
        ("call_time", "current_time", "switchboard.system", "current_time"),
        ("call_save", "save_artifact", "switchboard.artifacts", "save_artifact"),
    ]
    decided = {model_id[e["tool_call_id"]]: e for e in events if e["kind"] == "approval_decided"}
    assert (decided["call_time"]["approved"], decided["call_time"]["source"]) == (True, "policy")
    assert decided["call_time"]["reason"] == "built-in read-only tool"
    assert (decided["call_save"]["approved"], decided["call_save"]["reason"]) == (
        False,
        "denied by policy (--approve never)",
    )

    results = {model_id[e["tool_call_id"]]: e for e in events if e["kind"] == "tool_result"}
    clock = results["call_time"]
    assert clock["is_error"] is False
    now = json.loads(clock["text"])  # the real result text: the structured time as JSON
    assert (now["timezone"], now["utc_offset"], now["abbreviation"]) == ("Asia/Tokyo", "+09:00", "JST")
    assert datetime.fromisoformat(now["iso"]).utcoffset() is not None and now["iso"].endswith("+09:00")
    assert clock["structured"] == now
    saved = results["call_save"]
    assert saved["is_error"] is True
    assert saved["text"] == "The user denied this tool call. Reason: denied by policy (--approve never)"
    assert not (home / "data" / "artifacts").exists()  # nothing written

    # The model saw the built-in tools under their bare names, and got both results back.
    first, second, third = (r.json for r in llm_server.requests)
    assert {t["function"]["name"] for t in first["tools"]} >= BUILTIN_TOOLS
    assert second["messages"][-1]["tool_call_id"] == "call_time"
    assert json.loads(second["messages"][-1]["content"])["timezone"] == "Asia/Tokyo"
    assert third["messages"][-1]["tool_call_id"] == "call_save"
    assert "denied by policy" in third["messages"][-1]["content"]
