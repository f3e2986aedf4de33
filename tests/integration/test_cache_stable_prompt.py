"""Acceptance (#16): a scripted 30-turn conversation through ``switchboard ask --conversation``, one real
process per turn, against the loopback SSE server. Every request's ``messages`` array starts with the
previous request's, exactly, except across the compaction (``switchboard compact`` after turn 15: its summary
request and the first request after it), and the tool schemas never change (no promotion happens here)."""

from __future__ import annotations

import itertools
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.support.llm_server import ScriptedLLMServer, text_reply, tool_call_reply

SWITCHBOARD = str(Path(sys.executable).parent / "switchboard")
TURNS = 30
COMPACT_AFTER = 15


def ask(*args: str, home: Path, command_name: str = "ask") -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHON_KEYRING_BACKEND": "keyring.backends.null.Keyring"}
    command = [SWITCHBOARD, command_name, "--home", str(home), *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL, env=env)


def events_of(stdout: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in stdout.splitlines() if line.strip()]


def script_turn(server: ScriptedLLMServer, turn: int) -> None:
    """Every third turn calls a built-in tool first (twice on every sixth: two rounds)."""
    if turn % 3 == 0:
        server.enqueue(tool_call_reply([(f"call_{turn}_a", "current_time", {})], reasoning=f"Clock {turn}."))
        if turn % 6 == 0:
            server.enqueue(tool_call_reply([(f"call_{turn}_b", "system_info", {})]))
    server.enqueue(text_reply(f"Answer number {turn}.", reasoning=f"Thinking about {turn}."))


@pytest.mark.integration
@pytest.mark.timeout(600)  # 30 real processes: ~30 s on an idle box, minutes on a loaded one
def test_thirty_turns_one_process_each_keep_an_exact_prefix(llm_server: ScriptedLLMServer, tmp_path: Path) -> None:
    home = tmp_path / "h"
    base = ["--base-url", llm_server.url, "--dialect", "deepseek", "--model", "deepseek-chat", "--approve", "always"]
    conversation = ""
    for turn in range(TURNS):
        script_turn(llm_server, turn)
        more = ["--conversation", conversation if turn % 2 else "last"] if turn else []
        proc = ask(*base, *more, "--events", "jsonl", f"Question {turn}?", home=home)
        assert proc.returncode == 0, proc.stderr
        (only,) = {e["conversation_id"] for e in events_of(proc.stdout)}
        conversation = conversation or only
        assert only == conversation  # every turn continued the first conversation
        if turn + 1 == COMPACT_AFTER:  # the user compacts between two turns (default: the last 2 turns kept)
            llm_server.enqueue(text_reply("Summary of questions 0 to 12."))
            compacted = ask("--conversation", "last", *base[:6], home=home, command_name="compact")
            assert compacted.returncode == 0, compacted.stderr
            compaction_request = len(llm_server.requests) - 1
    final = events_of(proc.stdout)[-1]
    assert final["kind"] == "run_finished"
    requests = TURNS + TURNS // 3 + TURNS // 6 + 1  # the answers, the tool rounds and the summary
    summary = final["conversation_usage"]  # the totals of every request of all 30 processes (10 + 5 each)
    assert summary["tokens"]["total_tokens"] == 15 * requests and summary["tokens"]["prompt_tokens"] == 10 * requests
    assert summary["cost_usd"] is None  # the loopback server's model has no known price: tokens only
    assert llm_server.pending == 0
    bodies = [r.json for r in llm_server.requests]
    assert len(bodies) == requests
    summary_request = bodies.pop(compaction_request)
    assert "tools" not in summary_request and "Question 12?" in summary_request["messages"][1]["content"]
    for index, (earlier, later) in enumerate(itertools.pairwise(bodies)):
        assert json.dumps(later["tools"]) == json.dumps(earlier["tools"])
        before, after = earlier["messages"], later["messages"]
        if index + 1 == compaction_request:  # across the compaction: the summary replaced turns 0-12
            assert after[0]["role"] == "system" and "Summary of questions 0 to 12." in after[0]["content"]
            assert len(after) < len(before)
            continue
        assert len(after) > len(before)
        assert json.dumps(after[: len(before)]) == json.dumps(before), "the history changed between requests"
    users = [m["content"] for m in bodies[-1]["messages"] if m["role"] == "user"]
    assert users == [f"Question {turn}?" for turn in range(COMPACT_AFTER - 2, TURNS)]


def test_conversation_that_does_not_exist_is_bad_usage(tmp_path: Path) -> None:
    proc = ask("--base-url", "http://127.0.0.1:9/v1", "--conversation", "nope", "hi", home=tmp_path / "h")
    assert proc.returncode == 2
    assert "no conversation 'nope'" in proc.stderr or "nothing to continue" in proc.stderr


MANY_TOOLS = Path(__file__).resolve().parents[1] / "support" / "many_tools_server.py"


@pytest.mark.integration
def test_promotions_append_schemas_and_survive_the_next_process(llm_server: ScriptedLLMServer, tmp_path: Path) -> None:
    """With 60 deferred tools: a search and a direct call promote tools in one process; every request's tool
    list starts with the previous one's (promotions only append), and the next process, continuing the
    conversation, sends the same list and the same ``<available-deferred-tools>`` history."""
    home = tmp_path / "h"
    (home / "config").mkdir(parents=True)
    server = {"command": sys.executable, "args": [str(MANY_TOOLS), "many", "60"], "pinned": ["tool_059"]}
    (home / "config" / "mcp.json").write_text(json.dumps({"mcpServers": {"many": server}}), encoding="utf-8")
    llm_server.enqueue(
        tool_call_reply([("s1", "tool_search", {"query": "+tool_01 number"})]),
        text_reply("Found some."),
        tool_call_reply([("d1", "mcp__many__tool_042", {"text": "hi"})]),
        text_reply("Called it."),
        text_reply("Nothing more."),
    )
    base = ["--base-url", llm_server.url, "--dialect", "deepseek", "--approve", "always", "--events", "jsonl"]
    promoted: list[list[str]] = []
    for turn, prompt in enumerate(["search", "call one", "thanks"]):
        proc = ask(*base, *(["--conversation", "last"] if turn else []), prompt, home=home)
        assert proc.returncode == 0, proc.stderr
        events = [e for e in events_of(proc.stdout) if e["kind"] == "tools_promoted"]
        promoted += [e["tools"] for e in events if e["reason"] != "restored"]  # a new process restores them
    assert promoted == [[f"mcp__many__tool_{n:03d}" for n in range(10, 15)], ["mcp__many__tool_042"]]
    bodies = [r.json for r in llm_server.requests]
    names = [[t["function"]["name"] for t in body["tools"]] for body in bodies]
    grew = []
    for i, (earlier, later) in enumerate(itertools.pairwise(bodies)):
        before, after = earlier["messages"], later["messages"]
        assert json.dumps(after[: len(before)]) == json.dumps(before)
        assert json.dumps(later["tools"][: len(earlier["tools"])]) == json.dumps(earlier["tools"])
        if len(names[i + 1]) > len(names[i]):
            grew.append((i + 1, names[i + 1][len(names[i]) :]))
    assert grew == [(1, promoted[0]), (3, promoted[1])]  # only right after a promotion, and only appended
    assert "<available-deferred-tools>" in bodies[0]["messages"][0]["content"]


SKILL = Path(__file__).resolve().parents[2] / "docs" / "examples" / "skills" / "release-notes"


@pytest.mark.integration
def test_a_continued_conversation_sends_the_same_system_prompt_with_the_skills_index(
    llm_server: ScriptedLLMServer, tmp_path: Path
) -> None:
    """With a skill installed, the second process (``--conversation``) sends the first turn's system prompt,
    byte for byte: the settings' prompt and the skills index (it used to be rebuilt from the settings alone)."""
    import shutil

    home = tmp_path / "h"
    shutil.copytree(SKILL, home / "config" / "skills" / "release-notes")
    (home / "config" / "settings.json").write_text(json.dumps({"system_prompt": "You are terse."}), encoding="utf-8")
    llm_server.enqueue(text_reply("First."), text_reply("Second."))
    base = ["--base-url", llm_server.url, "--dialect", "deepseek", "--events", "jsonl"]
    for more in ([], ["--conversation", "last"]):
        proc = ask(*base, *more, "Notes?", home=home)
        assert proc.returncode == 0, proc.stderr
    first, second = (r.json["messages"] for r in llm_server.requests)
    assert first[0]["role"] == "system" and "You are terse." in first[0]["content"]
    assert "Available skills:\n- release-notes: Write release notes" in first[0]["content"]
    assert json.dumps(second[0]) == json.dumps(first[0])
    assert json.dumps(second[: len(first)]) == json.dumps(first)  # the whole first request is the prefix
