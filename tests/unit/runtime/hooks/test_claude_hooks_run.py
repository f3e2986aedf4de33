"""Claude Code hooks' answers through a real run (real Runtime, real Host, real command hooks written to Claude
Code's hooks reference): PermissionRequest ``decision.behavior: "allow"`` approves without asking and its
``updatedInput`` is what runs; PreToolUse ``updatedInput`` changes the arguments; ``additionalContext`` from
SessionStart, UserPromptSubmit (and its plain stdout) and PostToolUse reaches the model; PostToolUse
``decision: "block"`` gives its reason to the model; ``continue: false`` on PostToolUse is shown with its
``stopReason``."""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path
from typing import Any

import pytest
from mcp.server.mcpserver import MCPServer

from desktop_app.runtime import events as ev
from desktop_app.runtime.hooks.config import parse_hooks
from desktop_app.runtime.hooks.model import HookSource
from desktop_app.runtime.hooks.runner import HookRunner
from desktop_app.runtime.host import Host
from desktop_app.runtime.run.approvals import ApprovalPolicy
from desktop_app.runtime.service import Runtime
from desktop_app.runtime.settings import ProviderSettings, Settings
from tests.support.fakes import FakeProvider, answer, calls

ran: list[str] = []


def fs() -> MCPServer:
    server = MCPServer("fs", log_level="WARNING")

    @server.tool(structured_output=False)
    async def write_file(path: str, content: str) -> str:
        ran.append(path)
        return f"wrote {path}"

    return server


def says(data: dict[str, Any] | str) -> str:
    """A command that prints ``data`` (JSON, or plain text) and exits 0."""
    text = data if isinstance(data, str) else json.dumps(data)
    return f"{shlex.quote(sys.executable)} -c {shlex.quote(f'print({text!r})')}"


def group(command: str, matcher: str = "") -> dict[str, Any]:
    return {"matcher": matcher, "hooks": [{"type": "command", "command": command}]}


async def run(hooks: dict[str, Any], policy: str = "ask") -> tuple[list[ev.Event], FakeProvider]:
    ran.clear()
    host = Host(call_timeout=10)
    host.add_in_process("fs", fs)
    runner = HookRunner(cwd=Path.cwd())
    found = parse_hooks(hooks, HookSource("user"))
    assert not found.problems
    runner.add_hooks(found)
    host.set_hooks(runner)
    arguments = json.dumps({"path": "/tmp/a.txt", "content": "x"})
    provider = FakeProvider([calls(("c1", "mcp__fs__write_file", arguments)), answer("done")])
    runtime = Runtime(
        settings=Settings(provider=ProviderSettings(base_url="http://127.0.0.1:9/v1", model="m")),
        host=host,
        policy=ApprovalPolicy(policy),
        provider_factory=lambda _s, _k: provider,
    )
    seen: list[ev.Event] = []

    def on_event(event: ev.Event) -> None:
        seen.append(event)
        if isinstance(event, ev.ApprovalRequired):  # a user who approves, should anyone ask
            runtime.answer(event.tool_call_id, approved=True)

    runtime.subscribe(on_event)
    await host.start()
    try:
        await runtime.run(runtime.new_conversation(), "save it")
    finally:
        await runtime.aclose()
    return seen, provider


def specific(event: str, **fields: Any) -> dict[str, Any]:
    return {"hookSpecificOutput": {"hookEventName": event, **fields}}


@pytest.mark.asyncio
async def test_permission_request_allow_approves_without_asking_with_its_updated_input() -> None:
    decision = {"behavior": "allow", "updatedInput": {"file_path": "/tmp/b.txt", "content": "x"}}
    seen, _ = await run({"PermissionRequest": [group(says(specific("PermissionRequest", decision=decision)), "Write")]})
    assert not [e for e in seen if isinstance(e, ev.ApprovalRequired)]  # nobody was asked
    [decided] = [e for e in seen if isinstance(e, ev.ApprovalDecided)]
    assert decided.approved and decided.source == "policy" and "PermissionRequest hook" in (decided.reason or "")
    assert ran == ["/tmp/b.txt"]  # Claude Code's file_path went back to the tool's own path


@pytest.mark.asyncio
async def test_pre_tool_use_updated_input_changes_the_arguments() -> None:
    out = specific("PreToolUse", permissionDecision="allow", updatedInput={"path": "/tmp/safe.txt", "content": "x"})
    seen, _ = await run({"PreToolUse": [group(says(out), "Write")]}, policy="always")
    assert ran == ["/tmp/safe.txt"]
    [result] = [e for e in seen if isinstance(e, ev.ToolResult)]
    assert [n.kind for n in result.hooks] == ["mutated"]


@pytest.mark.asyncio
async def test_additional_context_reaches_the_model() -> None:
    hooks = {
        "SessionStart": [group(says(specific("SessionStart", additionalContext="Branch: main")))],
        "UserPromptSubmit": [group(says("Today is Tuesday."))],  # plain stdout is context here
        "PostToolUse": [group(says(specific("PostToolUse", additionalContext="Saved with CRLF endings")))],
    }
    _, provider = await run(hooks, policy="always")
    first = provider.requests[0].messages[-1]
    assert first.content == "save it" and "Branch: main" in first.context and "Today is Tuesday." in first.context
    assert "Saved with CRLF endings" in provider.requests[1].messages[-1].content


@pytest.mark.asyncio
async def test_post_tool_use_block_reason_goes_to_the_model() -> None:
    hooks = {"PostToolUse": [group(says({"decision": "block", "reason": "the file now holds a secret"}))]}
    seen, provider = await run(hooks, policy="always")
    assert "the file now holds a secret" in provider.requests[1].messages[-1].content
    [result] = [e for e in seen if isinstance(e, ev.ToolResult)]
    assert [(n.kind, n.reasons) for n in result.hooks if n.kind != "context"] == [
        ("warning", ["the file now holds a secret"])
    ]


@pytest.mark.asyncio
async def test_a_post_tool_use_halt_is_shown_beside_the_other_hooks_warnings_and_ends_the_turn() -> None:
    hooks = {
        "PostToolUse": [
            group(says({"decision": "block", "reason": "the file now holds a secret"})),
            group(says({"continue": False, "stopReason": "stop editing: build broken"})),
        ]
    }
    seen, provider = await run(hooks, policy="always")
    assert ran == ["/tmp/a.txt"] and len(provider.requests) == 1  # it ran; then the turn ended
    [result] = [e for e in seen if isinstance(e, ev.ToolResult)]
    assert [(n.kind, n.reasons) for n in result.hooks if n.kind != "context"] == [
        ("warning", ["the file now holds a secret"]),
        ("blocked", ["stop editing: build broken"]),
    ]
    [error] = [e for e in seen if isinstance(e, ev.Error)]
    assert error.code == "hook_halted" and error.message.endswith(": stop editing: build broken")


@pytest.mark.asyncio
async def test_a_lifecycle_hooks_system_message_is_a_notice_of_the_turn() -> None:
    hooks = {"UserPromptSubmit": [group(says({"systemMessage": "Prompt checked by the policy hook"}))]}
    seen, provider = await run(hooks, policy="always")
    [notice] = [e.notice for e in seen if isinstance(e, ev.HookNoticeEvent) and not e.tool_call_id]
    assert notice.kind == "warning" and notice.event == "UserPromptSubmit"
    assert notice.message.endswith(": Prompt checked by the policy hook")
    assert "Prompt checked" not in provider.requests[0].messages[-1].context  # for the user, not the model


@pytest.mark.asyncio
async def test_continue_false_ends_the_turn_with_the_stop_reason() -> None:
    hooks = {"PreToolUse": [group(says({"continue": False, "stopReason": "CI is red: stop and tell the user"}))]}
    seen, provider = await run(hooks, policy="always")
    assert ran == [] and len(provider.requests) == 1  # the tool did not run and the model was not asked again
    [error] = [e for e in seen if isinstance(e, ev.Error)]
    assert error.code == "hook_halted" and error.message.endswith(": CI is red: stop and tell the user")
    [result] = [e for e in seen if isinstance(e, ev.ToolResult)]
    assert result.is_error and result.hooks[-1].halted


@pytest.mark.asyncio
async def test_permission_decision_ask_is_met_by_the_users_approval_of_this_call_only() -> None:
    hooks = {"PreToolUse": [group(says(specific("PreToolUse", permissionDecision="ask")), "Write")]}
    await run(hooks, policy="ask")  # the user was asked and approved this call
    assert ran == ["/tmp/a.txt"]
    seen, _ = await run(hooks, policy="always")  # approved by the policy: nobody confirmed it
    assert ran == []
    [result] = [e for e in seen if isinstance(e, ev.ToolResult)]
    assert result.is_error and "the hook asked for your confirmation" in result.text
