"""Acceptance (#16, compaction): a conversation pushed past the threshold compacts before its next request, which
is then under budget; the PreCompact and PostCompact command hooks ran with the specified payload fields
(their stdin written to files); PreCompact's additional context reached the summary prompt; undo restores the
full history in the next recorded request. The model's window comes from the loopback server's model list
(the preset does not know the model). Then the CLI: ``switchboard compact`` between ``ask`` processes, its
JSON, a restart that sends the compacted history, and ``--undo``."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from desktop_app.assembly import assemble
from desktop_app.paths import app_paths
from desktop_app.runtime import events as ev
from desktop_app.runtime.compaction.budget import estimate_text_tokens
from desktop_app.runtime.compaction.plan import SUMMARY_INSTRUCTIONS
from desktop_app.runtime.run.approvals import ApprovalPolicy
from desktop_app.runtime.settings import ProviderSettings, Settings
from tests.support.llm_server import ScriptedLLMServer, text_reply

WINDOW = 4_550  # the built-in tools' schemas (workflows' and tasks' since issue 25) take a good part of it
LONG = "word " * 480  # ~600 tokens an answer
SWITCHBOARD = str(Path(sys.executable).parent / "switchboard")


def hooks(folder: Path) -> dict[str, Any]:
    pre, post = folder / "pre.jsonl", folder / "post.jsonl"
    answer = json.dumps({"additional_context": "Keep every number exactly."})
    return {
        "PreCompact": [{"command": f"cat >> {pre}; echo '{answer}'", "description": "pre"}],
        "PostCompact": [{"command": f"cat >> {post}", "description": "post"}],
    }


def request_tokens(body: dict[str, Any]) -> int:
    return sum(estimate_text_tokens(str(m.get("content") or "")) + 4 for m in body["messages"])


@pytest.mark.integration
@pytest.mark.asyncio
async def test_past_the_threshold_the_conversation_compacts_with_hooks_and_undo_restores(tmp_path: Path) -> None:
    with ScriptedLLMServer(models=[{"id": "small-model", "context_length": WINDOW}]) as llm:
        settings = Settings(
            provider=ProviderSettings(base_url=llm.url, model="small-model", dialect="openai"),
            system_prompt="You are terse.",
            compact_threshold_percent=80,
            compact_keep_turns=1,
            hooks=hooks(tmp_path),
        )
        built = assemble(
            app_paths(tmp_path / "home").ensure(), strict=True, settings=settings, policy=ApprovalPolicy("always")
        )
        runtime = built.runtime
        events: list[ev.Event] = []
        runtime.subscribe(events.append)
        try:
            cid = runtime.new_conversation()
            for turn in range(4):  # requests 1-4: ~700 to ~2,500 tokens (tools included)
                llm.enqueue(text_reply(f"{turn}: {LONG}"))
                await runtime.run(cid, f"question {turn}")
            assert not any(isinstance(e, ev.CompactionStarted) for e in events)
            assert runtime.context_budget(cid).window == WINDOW  # from GET /models: no preset knows the model
            llm.enqueue(text_reply("Summary: four questions (0-3) got long answers."), text_reply("answer 4"))
            await runtime.run(cid, "question 4")  # ~3,150 tokens: past 80 % of the window, so it compacts first
            bodies = [r.json for r in llm.requests]
            assert len(bodies) == 6
            summary_call, next_call = bodies[4], bodies[5]
            assert summary_call["messages"][0]["content"] == SUMMARY_INSTRUCTIONS and "tools" not in summary_call
            assert "Keep every number exactly." in summary_call["messages"][1]["content"]  # PreCompact's context
            assert "question 3" in summary_call["messages"][1]["content"]
            compacted = next(e for e in events if isinstance(e, ev.ConversationCompacted))
            assert compacted.reason == "auto" and (compacted.turns, compacted.kept_turns) == (4, 1)
            # The next request: system prompt, summary, the verbatim turn; under the threshold (and the window).
            roles = [(m["role"], m["content"][:24]) for m in next_call["messages"]]
            assert roles[0] == ("system", "You are terse.") and "<conversation-summary>" in roles[1][1]
            assert [m["content"] for m in next_call["messages"] if m["role"] == "user"] == ["question 4"]
            assert request_tokens(next_call) * 10 < request_tokens(bodies[3])
            assert compacted.tokens_after < 0.8 * WINDOW <= compacted.tokens_before
            # The hooks got the specified payload fields on stdin.
            (pre,) = [json.loads(line) for line in (tmp_path / "pre.jsonl").read_text().splitlines()]
            (post,) = [json.loads(line) for line in (tmp_path / "post.jsonl").read_text().splitlines()]
            assert list(pre) == ["event", "cwd", "session_id", "messages_before"]
            assert (pre["event"], pre["session_id"], pre["messages_before"]) == ("PreCompact", cid, 10)
            assert list(post) == ["event", "cwd", "session_id", "compact_summary", "messages_before", "messages_after"]
            assert post["event"] == "PostCompact" and post["compact_summary"] == compacted.summary
            assert (post["messages_before"], post["messages_after"]) == (10, 3)
            assert any(n.kind == "context" and n.event == "PreCompact" for n in compacted.notices)
            # Undo: the next request has the whole history again.
            runtime.undo_compaction(cid)
            llm.enqueue(text_reply("answer 5"))
            await runtime.run(cid, "question 5")
            users = [m["content"] for m in llm.requests[-1].json["messages"] if m["role"] == "user"]
            assert users == [f"question {n}" for n in range(6)]
            assert llm.pending == 0
        finally:
            await built.aclose()


def cli(*args: str, home: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHON_KEYRING_BACKEND": "keyring.backends.null.Keyring"}
    command = [SWITCHBOARD, *args, "--home", str(home)]
    return subprocess.run(command, capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL, env=env)


@pytest.mark.integration
@pytest.mark.timeout(300)
def test_switchboard_compact_between_ask_processes_and_undo(tmp_path: Path) -> None:
    home = tmp_path / "h"
    (home / "config").mkdir(parents=True)
    (home / "config" / "settings.json").write_text(json.dumps({"hooks": hooks(tmp_path), "compact_keep_turns": 1}))
    with ScriptedLLMServer() as llm:
        base = ["--base-url", llm.url, "--model", "m"]
        for turn in range(3):
            llm.enqueue(text_reply(f"answer {turn}"))
            proc = cli("ask", *base, *(["--conversation", "last"] if turn else []), f"question {turn}", home=home)
            assert proc.returncode == 0, proc.stderr
        llm.enqueue(text_reply("Questions 0 and 1 were answered."))
        proc = cli("compact", "--conversation", "last", "--json", *base, home=home)
        assert proc.returncode == 0, proc.stderr
        data = json.loads(proc.stdout)
        assert data["action"] == "compacted" and data["compaction"]["turns"] == 2
        assert (
            data["compaction"]["summary"] == "Questions 0 and 1 were answered."
            and data["compaction"]["summarised"] == 4
        )
        assert {n["event"] for n in data["notices"]} == {"PreCompact"}
        cid = data["conversation_id"]
        llm.enqueue(text_reply("answer 3"))
        proc = cli("ask", *base, "--conversation", cid, "question 3", home=home)  # a new process: restored
        assert proc.returncode == 0, proc.stderr
        sent = llm.requests[-1].json["messages"]
        assert "Questions 0 and 1 were answered." in sent[0]["content"]
        assert [m["content"] for m in sent if m["role"] == "user"] == ["question 2", "question 3"]
        proc = cli("compact", "--conversation", cid, "--undo", *base, home=home)
        assert proc.returncode == 0 and "full history" in proc.stdout, proc.stderr
        llm.enqueue(text_reply("answer 4"))
        assert cli("ask", *base, "--conversation", cid, "question 4", home=home).returncode == 0
        users = [m["content"] for m in llm.requests[-1].json["messages"] if m["role"] == "user"]
        assert users == [f"question {n}" for n in range(5)]
        proc = cli("compact", "--conversation", cid, "--undo", home=home)
        assert proc.returncode == 3 and "no compaction to undo" in proc.stderr
        assert cli("compact", "--conversation", "nope", home=home).returncode == 2
        assert len((tmp_path / "post.jsonl").read_text().splitlines()) == 1
