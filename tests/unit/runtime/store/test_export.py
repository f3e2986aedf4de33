"""Markdown and JSON export of one stored conversation."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from desktop_app.runtime import events as ev
from desktop_app.runtime.store import Recorder, Store, StoreError
from desktop_app.runtime.store.export import EXPORT_FORMAT, export_conversation, to_json_data, to_markdown
from tests.unit.runtime.store.conftest import FakeClock

IDS = {"conversation_id": "c1", "run_id": "r1"}


@pytest.fixture
def recorded(store: Store, clock: FakeClock) -> Store:
    recorder = Recorder(store, clock=clock, use_timer=False)
    recorder(ev.RunStarted(**IDS, model="deepseek-chat", prompt="Run ```ls``` for me"))
    recorder(ev.ReasoningDelta(**IDS, text="The user wants a listing."))
    recorder(ev.ContentDelta(**IDS, text="Sure."))
    recorder(
        ev.ToolCall(**IDS, tool_call_id="t1", name="mcp__sh__run", server="sh", tool="run", arguments={"cmd": "ls"})
    )
    recorder(ev.ApprovalRequired(**IDS, tool_call_id="t1", server="sh", tool="run", arguments={"cmd": "ls"}))
    recorder(ev.ApprovalDecided(**IDS, tool_call_id="t1", approved=True))
    recorder(ev.ToolResult(**IDS, tool_call_id="t1", server="sh", tool="run", text="a.txt\n````weird````"))
    recorder(ev.Usage(**IDS, usage=ev.TokenUsage(prompt_tokens=3, completion_tokens=2, total_tokens=5)))
    recorder(ev.ContentDelta(**IDS, text="There is a.txt"))
    recorder(ev.Error(**IDS, code="stream_stalled", message="No output for 90 s."))
    return store


def test_markdown_export_reads_like_the_chat(recorded: Store) -> None:
    md = to_markdown(recorded, "c1")
    assert md.startswith("# Run ```ls``` for me\n")
    assert "model `deepseek-chat`" in md
    assert "## User\n\nRun ```ls``` for me" in md
    assert "<details><summary>Reasoning</summary>\n\nThe user wants a listing.\n\n</details>" in md
    assert '**Tool call** `mcp__sh__run` (`t1`)\n\n```json\n{\n  "cmd": "ls"\n}\n```' in md
    assert "`````\na.txt\n````weird````\n`````" in md  # the fence outgrows backticks inside
    assert "## Assistant _(failed)_\n\nThere is a.txt\n\n> **Notice:** No output for 90 s." in md


def test_json_export_carries_everything(recorded: Store, tmp_path: Path) -> None:
    data = to_json_data(recorded, "c1")
    assert data["format"] == EXPORT_FORMAT and data["version"] == 1
    assert data["conversation"]["model"] == "deepseek-chat"
    assert [m["role"] for m in data["messages"]] == ["user", "assistant", "tool", "assistant"]
    assert data["messages"][1]["parts"][2] == {
        "kind": "tool_call",
        "text": "mcp__sh__run",
        "tool_call_id": "t1",
        "payload": {"name": "mcp__sh__run", "server": "sh", "tool": "run", "arguments": {"cmd": "ls"}},
    }
    assert data["approvals"][0]["decision"] == "approved"
    assert data["usage"][0]["total_tokens"] == 5
    assert data["runs"][0]["status"] == "failed"
    path = export_conversation(recorded, "c1", tmp_path / "out.json")
    assert json.loads(path.read_text(encoding="utf-8")) == json.loads(json.dumps(data))
    md_path = export_conversation(recorded, "c1", tmp_path / "out.md")
    assert md_path.read_text(encoding="utf-8") == to_markdown(recorded, "c1")


def test_exporting_an_unknown_conversation_raises(store: Store) -> None:
    with pytest.raises(StoreError):
        to_markdown(store, "missing")
