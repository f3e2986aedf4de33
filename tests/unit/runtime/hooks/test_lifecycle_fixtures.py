"""Whale's hook fixtures (``internal/agent/hooks_test.go``, seed-behaviours §1.7) with real subprocess hooks."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from desktop_app.runtime.hooks.model import HookPayload, effective_timeout

from .conftest import runner_for


def pre(args: dict[str, object] | None = None) -> HookPayload:
    return HookPayload(
        "PreToolUse", session_id="s1", tool_name="mcp__sh__run", tool_args=args or {"x": 1}, tool_call_id="c1"
    )


def post() -> HookPayload:
    return HookPayload(
        "PostToolUse",
        session_id="s1",
        tool_name="mcp__sh__run",
        tool_args={"x": 1},
        tool_call_id="c1",
        tool_result="ok",
        tool_outcome="success",
    )


@pytest.mark.asyncio
async def test_exit_2_blocks_pre_and_warns_post() -> None:
    hook = {"command": "echo nope >&2; exit 2"}
    runner = runner_for({"PreToolUse": [hook], "PostToolUse": [hook], "SubagentStart": [hook], "Stop": [hook]})
    blocked = await runner.run("PreToolUse", pre())
    assert blocked.blocked and blocked.outcomes[0].decision == "block"
    assert "nope" in blocked.block_message()
    warned = await runner.run("PostToolUse", post())
    assert not warned.blocked and warned.outcomes[0].decision == "warn"
    sub = await runner.run("SubagentStart", HookPayload("SubagentStart", prompt="go"))
    assert sub.blocked  # SubagentStart is a blocking event too
    assert not (await runner.run("Stop", HookPayload("Stop"))).blocked


def test_timeouts_pass_through_default_and_minimum() -> None:
    assert effective_timeout(2) == 2
    assert effective_timeout(None) == 600
    assert effective_timeout(0) == 600
    assert effective_timeout(-5) == 600
    assert effective_timeout(0.2) == 1


@pytest.mark.asyncio
async def test_block_short_circuits_later_hooks(tmp_path: Path) -> None:
    marker = tmp_path / "second-ran"
    runner = runner_for({"PreToolUse": [{"command": "exit 2"}, {"command": f"touch {marker}"}]})
    report = await runner.run("PreToolUse", pre())
    assert report.blocked and report.ran == 1
    assert not marker.exists()


@pytest.mark.asyncio
async def test_structured_json_block() -> None:
    answer = {
        "decision": "block",
        "reason": "nope",
        "additional_context": "ctx",
        "updated_input": {"x": 2},
        "metadata": {"k": "v"},
    }
    runner = runner_for({"PreToolUse": [{"command": f"echo '{json.dumps(answer)}'"}]})
    report = await runner.run("PreToolUse", pre())
    assert report.blocked
    assert report.updated_input == '{"x":2}'
    assert report.additional_context == "ctx"
    assert report.metadata == {"k": "v"}
    assert report.block_message().endswith(": nope")


@pytest.mark.asyncio
async def test_json_pass_overrides_exit_2_but_not_a_timeout() -> None:
    runner = runner_for(
        {
            "PreToolUse": [{"command": 'echo \'{"decision":"pass"}\'; exit 2'}],
            "PermissionRequest": [{"command": 'echo \'{"decision":"pass"}\'; exec sleep 30', "timeout": 1}],
        }
    )
    passed = await runner.run("PreToolUse", pre())
    assert not passed.blocked and passed.outcomes[0].decision == "pass"
    timed = await runner.run("PermissionRequest", HookPayload("PermissionRequest", tool_name="t"))
    assert timed.outcomes[0].decision == "timeout" and timed.blocked
    assert "hook timed out after 1s" in timed.outcomes[0].stderr


@pytest.mark.asyncio
async def test_updated_input_chains_to_the_next_hook(tmp_path: Path) -> None:
    seen_args, seen_prompt = tmp_path / "args.json", tmp_path / "prompt.json"
    runner = runner_for(
        {
            "PreToolUse": [{"command": 'echo \'{"updated_input":{"x":2}}\''}, {"command": f"cat > {seen_args}"}],
            "UserPromptSubmit": [
                {"command": 'echo \'{"updatedInput":"  rewritten  "}\''},
                {"command": f"cat > {seen_prompt}"},
            ],
        }
    )
    report = await runner.run("PreToolUse", pre())
    second = json.loads(seen_args.read_text())
    assert second["tool_args"] == {"x": 2}
    assert second["tool_call"] == {"ID": "c1", "Name": "mcp__sh__run", "Input": '{"x":2}'}
    assert report.updated_input == '{"x":2}'
    prompt = await runner.run("UserPromptSubmit", HookPayload("UserPromptSubmit", prompt="original"))
    assert json.loads(seen_prompt.read_text())["prompt"] == "rewritten"
    assert prompt.updated_input == "rewritten"


@pytest.mark.asyncio
async def test_match_is_an_anchored_regex_on_tool_events_only(tmp_path: Path) -> None:
    log = tmp_path / "log"
    hook = {"command": f"echo ran >> {log}"}
    runner = runner_for(
        {
            "PreToolUse": [{**hook, "match": "mcp__sh"}, {**hook, "match": "mcp__sh__.*"}, {**hook, "match": "("}],
            "Stop": [{**hook, "match": "never-matches"}],
        }
    )
    assert (await runner.run("PreToolUse", pre())).ran == 1  # "mcp__sh" is not a full match; "(" is invalid
    assert (await runner.run("Stop", HookPayload("Stop"))).ran == 1  # match ignored outside tool events


@pytest.mark.asyncio
async def test_stdin_payload_key_order_and_tool_call_keys(tmp_path: Path) -> None:
    out = tmp_path / "payload"
    runner = runner_for({"PostToolUse": [{"command": f"cat > {out}"}]}, cwd=tmp_path)
    await runner.run("PostToolUse", post())
    raw = out.read_text()
    assert raw.endswith("\n") and raw.count("\n") == 1
    data = json.loads(raw)
    assert list(data) == [
        "event",
        "cwd",
        "session_id",
        "tool_name",
        "tool_args",
        "tool_result",
        "tool_outcome",
        "tool_call",
    ]
    assert data["cwd"] == str(tmp_path)
    assert list(data["tool_call"]) == ["ID", "Name", "Input"]
    # event and cwd are always present, empty fields are left out
    assert HookPayload("Stop").to_dict() == {"event": "Stop", "cwd": ""}


@pytest.mark.asyncio
async def test_decision_aliases() -> None:
    cases = {
        "deny": "block",
        "Denied": "block",
        "warning": "warn",
        "stop": "halt",
        "approve": "pass",
        "continue": "pass",
        "bogus": "pass",
    }
    for word, expected in cases.items():
        runner = runner_for({"PreToolUse": [{"command": f'echo \'{{"decision":"{word}"}}\''}]})
        report = await runner.run("PreToolUse", pre())
        assert report.outcomes[0].decision == expected, word


@pytest.mark.asyncio
async def test_compaction_and_subagent_payloads_reach_the_hooks(tmp_path: Path) -> None:
    from desktop_app.runtime.hooks.model import (
        post_compact_payload,
        pre_compact_payload,
        subagent_start_payload,
        subagent_stop_payload,
    )

    events = ("PreCompact", "PostCompact", "SubagentStart", "SubagentStop")
    runner = runner_for({event: [{"command": f"cat > {tmp_path / event}"}] for event in events}, cwd=tmp_path)
    await runner.run("PreCompact", pre_compact_payload(session_id="s", cwd="", messages_before=40))
    await runner.run(
        "PostCompact", post_compact_payload(session_id="s", cwd="", summary="sum", messages_before=40, messages_after=3)
    )
    await runner.run("SubagentStart", subagent_start_payload(session_id="s", cwd="", role="r", model="m", prompt="p"))
    await runner.run("SubagentStop", subagent_stop_payload(session_id="s", cwd="", role="r", model="m", summary="d"))
    seen = {event: json.loads((tmp_path / event).read_text()) for event in events}
    assert seen["PreCompact"] == {"event": "PreCompact", "cwd": str(tmp_path), "session_id": "s", "messages_before": 40}
    assert list(seen["PostCompact"])[-3:] == ["compact_summary", "messages_before", "messages_after"]
    assert seen["SubagentStart"]["tool_name"] == "spawn_subagent" and seen["SubagentStart"]["prompt"] == "p"
    assert seen["SubagentStop"]["subagent_summary"] == "d" and seen["SubagentStop"]["subagent_role"] == "r"
