"""Claude Code's hook dialect, field by field, written from Claude Code's hooks reference: the input every event
gets on stdin (common fields, then each event's own), every output field (``continue``, ``stopReason``,
``suppressOutput``, ``systemMessage``, ``decision``/``reason`` and each event's ``hookSpecificOutput``), exit
codes 0 / 2 / other, and matchers naming Claude Code's own tools. Whale's hooks keep Whale's payload."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from desktop_app.runtime.hooks.claude import ClaudePayload, as_claude, claude_input, claude_outcome, matcher_note
from desktop_app.runtime.hooks.config import parse_hooks
from desktop_app.runtime.hooks.decisions import HookOutcome, HookReport
from desktop_app.runtime.hooks.model import HookPayload, HookSource
from desktop_app.runtime.hooks.runner import HookRunner, failure_notices
from desktop_app.runtime.messages import AssistantMessage, ToolCallRequest, UserMessage

COMMON = ("session_id", "transcript_path", "cwd", "permission_mode", "hook_event_name")


def payload(event: str, **fields: Any) -> HookPayload:
    return HookPayload(event, cwd="/work/project", session_id="conv-1", **fields)


# -- input ----------------------------------------------------------------------------------------------------


def test_every_event_gets_the_common_fields() -> None:
    for event in ("PreToolUse", "PostToolUse", "PermissionRequest", "UserPromptSubmit", "SessionStart", "Stop"):
        data = claude_input(payload(event), transcript_path="/t/conv-1.jsonl")
        assert [k for k in data if k in COMMON] == list(COMMON)
        assert data["session_id"] == "conv-1" and data["transcript_path"] == "/t/conv-1.jsonl"
        assert data["cwd"] == "/work/project" and data["permission_mode"] == "default"
        assert data["hook_event_name"] == event
        assert "event" not in data and "tool_args" not in data and "tool_call" not in data  # none of Whale's keys


def test_tool_events_input() -> None:
    args = {"command": "ls -la"}
    pre = claude_input(payload("PreToolUse", tool_name="mcp__sh__run_command", tool_args=args, tool_call_id="c1"))
    assert (pre["tool_name"], pre["tool_input"], pre["tool_use_id"]) == ("mcp__sh__run_command", args, "c1")
    post = claude_input(
        payload("PostToolUse", tool_name="mcp__sh__x", tool_args=args, tool_call_id="c1", tool_result='{"ok": true}')
    )
    assert post["tool_response"] == {"ok": True} and post["tool_use_id"] == "c1"
    assert (
        claude_input(payload("PostToolUse", tool_name="t", tool_result="plain text"))["tool_response"] == "plain text"
    )
    perm = claude_input(payload("PermissionRequest", tool_name="mcp__sh__x", tool_args=args))
    assert (perm["tool_name"], perm["tool_input"]) == ("mcp__sh__x", args) and "tool_use_id" not in perm


def test_an_equivalent_tool_is_named_as_claude_code_names_it_with_its_field_names() -> None:
    event = HookPayload(
        "PreToolUse",
        tool_name="mcp__fs__write_file",
        tool_args={"path": "/a.txt", "content": "x"},
        mcp_tool="write_file",
    )
    sent = as_claude(event, transcript_path="")
    assert isinstance(sent, ClaudePayload)
    data = sent.to_dict()
    assert data["tool_name"] == "Write"
    assert data["tool_input"] == {"path": "/a.txt", "content": "x", "file_path": "/a.txt"}
    assert json.loads(sent.to_line()) == data and sent.http_body({"A": "b"}) == data  # stdin and http body alike


def test_the_other_events_inputs() -> None:
    assert claude_input(payload("UserPromptSubmit", prompt="hello"))["prompt"] == "hello"
    assert claude_input(payload("SessionStart"))["source"] == "startup"
    stop = claude_input(payload("Stop", last_assistant_text="Done."))
    assert stop["stop_hook_active"] is False and stop["last_assistant_message"] == "Done."
    start = claude_input(payload("SubagentStart", subagent_role="reviewer", prompt="look"))
    assert (start["agent_id"], start["agent_type"]) == ("reviewer", "reviewer")
    stopped = claude_input(payload("SubagentStop", subagent_role="reviewer", subagent_summary="fine"))
    assert stopped["last_assistant_message"] == "fine" and stopped["stop_hook_active"] is False
    pre = claude_input(payload("PreCompact", messages_before=9))
    assert (pre["trigger"], pre["custom_instructions"]) == ("auto", "")
    assert claude_input(payload("PostCompact", compact_summary="S"))["compact_summary"] == "S"


# -- output ---------------------------------------------------------------------------------------------------


def ran(event: str, stdout: str = "", *, code: int = 0, stderr: str = "", **kw: Any) -> HookOutcome:
    return claude_outcome(event, HookOutcome("guard", "pass", exit_code=code, stdout=stdout, stderr=stderr), **kw)


def answer(event: str, data: dict[str, Any], **kw: Any) -> HookOutcome:
    return ran(event, json.dumps(data), **kw)


def specific(event: str, **fields: Any) -> dict[str, Any]:
    return {"hookSpecificOutput": {"hookEventName": event, **fields}}


def test_pre_tool_use_permission_decision_deny_blocks_with_its_reason() -> None:
    out = answer("PreToolUse", specific("PreToolUse", permissionDecision="deny", permissionDecisionReason="no rm -rf"))
    assert out.decision == "block" and out.message == "no rm -rf"
    report = HookReport("PreToolUse", [out])
    assert report.blocked and report.block_message() == "Blocked by PreToolUse hook guard: no rm -rf"


def test_pre_tool_use_allow_ask_and_the_older_decision_forms() -> None:
    assert answer("PreToolUse", specific("PreToolUse", permissionDecision="allow")).decision == "pass"
    asked = answer("PreToolUse", specific("PreToolUse", permissionDecision="ask", permissionDecisionReason="sure?"))
    assert asked.decision == "block" and asked.message.startswith("sure? — the hook asked for your confirmation")
    assert answer("PreToolUse", {"decision": "approve"}).decision == "pass"
    old = answer("PreToolUse", {"decision": "block", "reason": "not here"})
    assert (old.decision, old.message) == ("block", "not here")


def test_updated_input_replaces_the_arguments_in_our_field_names() -> None:
    out = answer(
        "PreToolUse",
        specific("PreToolUse", permissionDecision="allow", updatedInput={"file_path": "/b.txt", "content": "x"}),
        tool_name="Write",
        arguments={"path": "/a.txt", "content": "x"},
    )
    assert json.loads(out.updated_input) == {"path": "/b.txt", "content": "x"}


def test_additional_context_on_every_event_that_has_it() -> None:
    for event in ("PreToolUse", "PostToolUse", "UserPromptSubmit", "SessionStart", "SubagentStart"):
        out = answer(event, specific(event, additionalContext=f"ctx for {event}"))
        assert out.additional_context == f"ctx for {event}" and out.decision == "pass"


def test_decision_block_per_event() -> None:
    post = answer("PostToolUse", {"decision": "block", "reason": "the file has a secret"})
    assert post.decision == "warn" and post.additional_context == "the file has a secret"  # the model reads it
    prompt = answer("UserPromptSubmit", {"decision": "block", "reason": "no passwords in prompts"})
    assert prompt.decision == "block" and prompt.message == "no passwords in prompts"
    stop = answer("Stop", {"decision": "block", "reason": "tests fail"})
    assert stop.decision == "pass" and stop.answer is not None and "tests fail" in stop.answer.unsupported
    [notice] = failure_notices(HookReport("Stop", [stop]))
    assert notice.kind == "warning" and "does not continue a finished answer" in notice.message


def test_continue_false_halts_with_the_stop_reason() -> None:
    out = answer("PreToolUse", {"continue": False, "stopReason": "build is broken"})
    assert out.decision == "halt" and out.message == "build is broken"
    report = HookReport("PreToolUse", [out])
    assert report.halted and report.block_message() == "Halted by PreToolUse hook guard: build is broken"
    assert answer("PostToolUse", {"continue": False}).decision == "halt"


def test_system_message_is_shown_to_the_user_blocked_or_not() -> None:
    out = answer("PostToolUse", {"systemMessage": "Formatted 3 files"})
    [notice] = failure_notices(HookReport("PostToolUse", [out]))
    assert notice.kind == "warning" and notice.message == "PostToolUse hook guard: Formatted 3 files"
    denied = answer("PreToolUse", {**specific("PreToolUse", permissionDecision="deny"), "systemMessage": "Guarded"})
    assert [n.message for n in failure_notices(HookReport("PreToolUse", [denied]))] == [
        "PreToolUse hook guard: Guarded"
    ]


def test_suppress_output_keeps_stdout_out_of_what_is_shown() -> None:
    assert answer("PostToolUse", {"suppressOutput": True}).stdout == ""
    assert answer("PostToolUse", {"suppressOutput": False}).stdout != ""


def test_permission_request_decision() -> None:
    deny = answer("PermissionRequest", specific("PermissionRequest", decision={"behavior": "deny", "message": "no"}))
    assert (deny.decision, deny.message) == ("block", "no")
    stop = specific("PermissionRequest", decision={"behavior": "deny", "message": "stop", "interrupt": True})
    assert answer("PermissionRequest", stop).decision == "halt"
    allow = answer(
        "PermissionRequest",
        specific("PermissionRequest", decision={"behavior": "allow", "updatedInput": {"command": "ls"}}),
    )
    assert allow.decision == "pass" and allow.answer is not None and allow.answer.allow
    assert json.loads(allow.updated_input) == {"command": "ls"}


def test_exit_codes() -> None:
    blocked = ran("PreToolUse", '{"decision": "approve"}', code=2, stderr="rm -rf is not allowed\n")
    assert blocked.decision == "block" and blocked.explanation() == "rm -rf is not allowed"  # JSON is ignored on 2
    post = ran("PostToolUse", code=2, stderr="lint failed")
    assert post.decision == "warn" and post.additional_context == "lint failed"  # stderr goes to the model
    crashed = ran("PreToolUse", code=1, stderr="No module named 'core'")
    assert crashed.decision == "warn" and crashed.failed  # a non-blocking error, shown
    assert not HookReport("PreToolUse", [crashed]).blocked
    [notice] = failure_notices(HookReport("PreToolUse", [crashed]))
    assert notice.kind == "failed" and "No module named 'core'" in notice.message


def test_plain_stdout_is_context_for_user_prompt_submit_and_session_start_only() -> None:
    assert ran("UserPromptSubmit", "Today is Tuesday.\n").additional_context == "Today is Tuesday."
    assert ran("SessionStart", "Branch: main").additional_context == "Branch: main"
    plain = ran("PreToolUse", "just a log line")
    assert plain.decision == "pass" and plain.additional_context == ""
    assert ran("PreToolUse", "{not json").decision == "pass"  # Claude Code: text that is no JSON is plain text


# -- reading Claude Code's hooks.json shape, and matchers ----------------------------------------------------------

GUARD = {
    "PreToolUse": [
        {"matcher": "Bash", "hooks": [{"type": "command", "command": "guard", "timeout": 5}]},
        {"matcher": "Edit|Write", "hooks": [{"type": "command", "command": "fmt"}]},
        {"matcher": "mcp__github__.*", "hooks": [{"type": "command", "command": "gh"}]},
        {"matcher": "NotebookEdit", "hooks": [{"type": "command", "command": "nb"}]},
        {"hooks": [{"type": "command", "command": "all"}]},
    ]
}


def test_claude_code_groups_are_read_as_claude_code_reads_them() -> None:
    found = parse_hooks(GUARD, HookSource("project", Path("/p/.claude/settings.json")))
    assert not found.problems
    hooks = [
        (h.definition.command, h.definition.match, h.definition.format, h.definition.timeout) for h in found.lifecycle
    ]
    assert hooks == [
        ("guard", "Bash", "claude", 5),
        ("fmt", "Edit|Write", "claude", 60),  # Claude Code's default timeout
        ("gh", "mcp__github__.*", "claude", 60),
        ("nb", "NotebookEdit", "claude", 60),
        ("all", None, "claude", 60),
    ]
    whale = parse_hooks({"PreToolUse": [{"command": "w", "match": "Bash"}]}, HookSource("user"))
    assert whale.lifecycle[0].definition.format == "whale"


def fired(runner: HookRunner, model_name: str, tool: str) -> list[str | None]:
    event = HookPayload("PreToolUse", tool_name=model_name, mcp_tool=tool)
    return [h.definition.command for h in runner.active_hooks("PreToolUse", model_name, event)]


def test_matchers_naming_claude_code_tools_match_the_equivalents_here() -> None:
    runner = HookRunner()
    runner.add_hooks(parse_hooks(GUARD, HookSource("user")))
    runner.add_hooks(parse_hooks({"PreToolUse": [{"command": "whale", "match": "Bash"}]}, HookSource("user")))
    assert fired(runner, "mcp__shell__run_command", "run_command") == ["guard", "all"]
    assert fired(runner, "mcp__fs__write_file", "write_file") == ["fmt", "all"]
    assert fired(runner, "mcp__fs__edit_file", "edit_file") == ["fmt", "all"]
    assert fired(runner, "mcp__github__create_issue", "create_issue") == ["gh", "all"]
    assert fired(runner, "mcp__fs__read_file", "read_file") == ["all"]  # nothing matches Read, NotebookEdit never


def test_matcher_notes_say_what_matches_and_what_never_fires() -> None:
    assert matcher_note("Bash") == (
        "matcher 'Bash': matches Switchboard's equivalents: "
        "Bash → run_command, execute_command, run_shell_command, shell_execute, bash"
    )
    assert (
        matcher_note("NotebookEdit")
        == "matcher 'NotebookEdit': NotebookEdit: no such tool in Switchboard (never fires here)"
    )
    assert matcher_note("mcp__github__.*") == ""


# -- through a real command hook ----------------------------------------------------------------------------------


@pytest.mark.asyncio
async def test_a_real_claude_code_hook_reads_claude_codes_input_and_its_deny_blocks(tmp_path: Path) -> None:
    seen = tmp_path / "seen.json"
    script = tmp_path / "guard.py"
    script.write_text(
        "import json, sys\n"
        "data = json.load(sys.stdin)\n"
        "lines = [json.loads(line) for line in open(data['transcript_path'])]\n"
        f"open({str(seen)!r}, 'w').write(json.dumps({{'input': data, 'transcript': lines}}))\n"
        "if 'rm -rf' in data['tool_input'].get('command', ''):\n"
        "    print(json.dumps({'hookSpecificOutput': {'hookEventName': 'PreToolUse',\n"
        "        'permissionDecision': 'deny', 'permissionDecisionReason': 'rm -rf is refused by the guard'}}))\n"
    )
    hooks = {
        "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": f"{sys.executable} {script}"}]}]
    }
    runner = HookRunner(cwd=tmp_path)
    runner.add_hooks(parse_hooks(hooks, HookSource("user")))
    call = ToolCallRequest(id="call-1", name="mcp__shell__run_command", arguments='{"command": "rm -rf /"}')
    history = {"conv-9": (UserMessage(content="clean up"), AssistantMessage(content="Cleaning.", tool_calls=(call,)))}
    runner.transcripts.messages_of = lambda session: history.get(session, ())
    event = HookPayload(
        "PreToolUse",
        session_id="conv-9",
        tool_name="mcp__shell__run_command",
        tool_args={"command": "rm -rf /"},
        tool_call_id="call-1",
        mcp_tool="run_command",
    )
    report = await runner.run("PreToolUse", event)
    assert report.blocked and "rm -rf is refused by the guard" in report.block_message()
    written = read_json(seen)
    data = written["input"]
    assert data["hook_event_name"] == "PreToolUse" and data["tool_name"] == "Bash"
    assert data["tool_input"] == {"command": "rm -rf /"} and data["tool_use_id"] == "call-1"
    assert data["session_id"] == "conv-9" and data["cwd"] == str(tmp_path)
    user, assistant = written["transcript"]  # Claude Code's transcript lines, while the hook ran
    assert (user["type"], user["message"], user["sessionId"]) == (
        "user",
        {"role": "user", "content": "clean up"},
        "conv-9",
    )
    assert assistant["type"] == "assistant" and assistant["parentUuid"] == user["uuid"]
    assert assistant["message"]["content"] == [
        {"type": "text", "text": "Cleaning."},
        {"type": "tool_use", "id": "call-1", "name": "mcp__shell__run_command", "input": {"command": "rm -rf /"}},
    ]
    assert not is_file(data["transcript_path"])  # removed once the hook is done: the store keeps the conversation


def read_json(path: Path) -> Any:
    return json.loads(path.read_text())


def is_file(path: str) -> bool:
    return Path(path).is_file()


def test_whale_hooks_keep_their_trust_hash_and_a_claude_hook_hashes_its_format() -> None:
    import hashlib

    from desktop_app.runtime.hooks.trust import lifecycle_entry

    [whale] = parse_hooks({"Stop": [{"command": "echo hi"}]}, HookSource("project", Path("/p/h.json"))).lifecycle
    before = json.dumps(  # the content as hashed before hooks had a format: trust given then still holds
        {
            "event": "Stop",
            "source": ["project", "/p/h.json"],
            "hook": whale.definition.model_dump(mode="json", exclude={"format"}),
        },
        sort_keys=True,
    )
    assert lifecycle_entry(whale).content_hash == hashlib.sha256(before.encode()).hexdigest()
    [claude] = parse_hooks(
        {"Stop": [{"hooks": [{"type": "command", "command": "echo hi"}]}]}, HookSource("project", Path("/p/h.json"))
    ).lifecycle
    assert lifecycle_entry(claude).content_hash != lifecycle_entry(whale).content_hash
