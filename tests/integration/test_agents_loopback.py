"""Agents end to end: ``switchboard ask`` (the real console script) with an agent file, the real
mcp-server-time and the loopback LLM. The default agent calls ``chat-with-researcher``; the researcher's run
nests under that tool call (``subagent_started``/``subagent_finished`` name its conversation), sees only
``switchboard.history`` and ``time`` tools, and a tool outside its allowlist is refused even when named.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.cli_ask import events_of, run_ask, time_server_config
from tests.support.llm_server import ScriptedLLMServer, text_reply, tool_call_reply

RESEARCHER = """---
description: Looks things up in past conversations and tells the time
servers: [switchboard.history, time]
tools: ["switchboard.history/*", "time/*"]
---
You are the researcher. Answer briefly.
"""


def write_home(home: Path) -> Path:
    (home / "config" / "agents").mkdir(parents=True)
    (home / "config" / "agents" / "researcher.md").write_text(RESEARCHER, encoding="utf-8")
    return time_server_config(home / "mcp.json")


@pytest.mark.integration
def test_default_agent_calls_the_researcher_which_stays_inside_its_allowlist(
    llm_server: ScriptedLLMServer, tmp_path: Path
) -> None:
    home = tmp_path / "h"
    mcp = write_home(home)
    llm_server.enqueue(
        tool_call_reply([("call_r", "chat-with-researcher", {"prompt": "What time is it in UTC?"})]),  # default
        tool_call_reply(  # the researcher: one allowed tool, one outside its allowlist
            [
                ("call_t", "mcp__time__get_current_time", {"timezone": "UTC"}),
                ("call_x", "save_artifact", {"name": "x.md", "content": "no"}),
            ]
        ),
        text_reply("It is noon in UTC."),  # the researcher's answer
        text_reply("The researcher says: it is noon in UTC."),  # the default agent's answer
    )
    proc = run_ask(
        "--base-url", llm_server.url, "--dialect", "openai", "--mcp-config", str(mcp), "--approve", "always",
        "--events", "jsonl", "What time is it?", home=home,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    events = events_of(proc.stdout)

    parent = events[0]["conversation_id"]
    started = [e for e in events if e["kind"] == "subagent_started"]
    finished = [e for e in events if e["kind"] == "subagent_finished"]
    assert len(started) == len(finished) == 1
    child = started[0]["child_conversation_id"]
    assert child != parent and started[0]["conversation_id"] == parent
    assert (started[0]["agent"], started[0]["depth"]) == ("researcher", 1)
    parent_call = next(e for e in events if e["kind"] == "tool_call" and e["conversation_id"] == parent)
    assert (parent_call["name"], parent_call["server"]) == ("chat-with-researcher", "switchboard.agent.researcher")
    assert started[0]["tool_call_id"] == finished[0]["tool_call_id"] == parent_call["tool_call_id"]
    # The researcher's events sit between the parent's start and finish of that tool call, in its conversation.
    first, last = events.index(started[0]), events.index(finished[0])
    inside = events[first + 1 : last]
    assert inside and all(e["conversation_id"] == child for e in inside)
    assert inside[0]["kind"] == "run_started" and inside[-1]["kind"] == "run_finished"
    child_results = [e for e in inside if e["kind"] == "tool_result"]
    assert len(child_results) == 2
    time_result = next(e for e in child_results if not e["is_error"])
    assert '"timezone": "UTC"' in time_result["text"] or json.loads(time_result["text"])["timezone"] == "UTC"
    refused = next(e for e in child_results if e["is_error"])
    assert "save_artifact" in refused["text"] and "not found" in refused["text"].lower(), refused
    assert finished[0]["status"] == "finished" and finished[0]["content"] == "It is noon in UTC."
    parent_result = next(e for e in events if e["kind"] == "tool_result" and e["conversation_id"] == parent)
    assert parent_result["text"] == "It is noon in UTC." and not parent_result["is_error"]
    assert events[-1]["kind"] == "run_finished" and events[-1]["conversation_id"] == parent

    # What each model was offered: the default agent has the agent tool; the researcher only its allowlist.
    offered = [{t["function"]["name"] for t in r.json.get("tools", [])} for r in llm_server.requests]
    assert "chat-with-researcher" in offered[0] and "save_artifact" in offered[0]
    assert (
        offered[1]
        == offered[2]
        == {
            "search_conversations",
            "read_conversation",
            "mcp__time__get_current_time",
            "mcp__time__convert_time",
        }
    )
    assert llm_server.requests[1].json["messages"][0] == {
        "role": "system",
        "content": "You are the researcher. Answer briefly.",
    }
