"""Hooks that hang, crash, print invalid JSON or cannot be spawned: blocking events fail closed naming the
hook; non-blocking events go on and the failure is shown (real subprocess hooks, the real ``Host.call``)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from mcp.server.mcpserver import MCPServer

from desktop_app.runtime.hooks.config import parse_hooks
from desktop_app.runtime.hooks.model import HookSource
from desktop_app.runtime.hooks.runner import HookRunner
from desktop_app.runtime.host import CallOutcome, Host

FAILURES: dict[str, dict[str, Any]] = {
    "hangs": {"command": "exec sleep 30", "timeout": 1, "description": "slow guard"},
    "exits 1": {"command": "echo crashed >&2; exit 1", "description": "crashing guard"},
    "invalid JSON": {"command": "echo '{\"decision\": '", "description": "garbled guard"},
    "cannot spawn": {"command": "true", "cwd": "no/such/folder", "description": "missing guard"},
}
EXPECTED = {
    "hangs": "hook timed out after 1s",
    "exits 1": "crashed",
    "invalid JSON": "invalid JSON",
    "cannot spawn": "could not be started",
}


def counting_server(ran: list[str]) -> MCPServer:
    server = MCPServer("work", log_level="WARNING")

    @server.tool(structured_output=False)
    async def touch(name: str) -> str:
        ran.append(name)
        return f"touched {name}"

    return server


async def call_with(event: str, hook: dict[str, Any], tmp_path: Path) -> tuple[CallOutcome, list[str]]:
    ran: list[str] = []
    host = Host(call_timeout=10)
    host.register_builtin("work", lambda: counting_server(ran))
    runner = HookRunner(cwd=tmp_path)
    runner.add_hooks(parse_hooks({event: [hook]}, HookSource("user")))
    host.set_hooks(runner)
    try:
        return await host.call("work", "touch", {"name": "a"}), ran
    finally:
        await host.aclose()


@pytest.mark.asyncio
async def test_blocking_event_fails_closed_and_names_the_hook(tmp_path: Path) -> None:
    results = await asyncio.gather(*(call_with("PreToolUse", hook, tmp_path) for hook in FAILURES.values()))
    for (case, hook), (outcome, ran) in zip(FAILURES.items(), results, strict=True):
        assert outcome.is_error, case
        assert ran == [], case  # the tool never ran
        assert f"Blocked by PreToolUse hook {hook['description']}" in outcome.text, case
        assert EXPECTED[case] in outcome.text, case
        assert outcome.hooks[-1].kind == "blocked" and outcome.hooks[-1].hooks == [hook["description"]], case


@pytest.mark.asyncio
async def test_non_blocking_event_goes_on_and_shows_the_failure(tmp_path: Path) -> None:
    results = await asyncio.gather(*(call_with("PostToolUse", hook, tmp_path) for hook in FAILURES.values()))
    for (case, hook), (outcome, ran) in zip(FAILURES.items(), results, strict=True):
        assert not outcome.is_error and outcome.text == "touched a", case
        assert ran == ["a"], case
        [notice] = outcome.hooks
        assert notice.kind == "failed" and notice.hooks == [hook["description"]], case
        assert EXPECTED[case] in notice.message, case


@pytest.mark.asyncio
async def test_exit_2_on_post_tool_use_is_a_warning_not_a_block(tmp_path: Path) -> None:
    outcome, ran = await call_with("PostToolUse", {"command": "echo 'looks odd' >&2; exit 2"}, tmp_path)
    assert not outcome.is_error and ran == ["a"]
    assert outcome.hooks[0].kind == "warning" and outcome.hooks[0].reasons == ["looks odd"]


@pytest.mark.asyncio
async def test_updated_input_and_context_reach_the_tool_and_the_result(tmp_path: Path) -> None:
    hooks = {
        "PreToolUse": [{"command": 'echo \'{"updated_input": {"name": "b"}, "reason": "renamed"}\''}],
        "PostToolUse": [{"command": 'echo \'{"additional_context": "checked by the linter"}\''}],
    }
    ran: list[str] = []
    host = Host(call_timeout=10)
    host.register_builtin("work", lambda: counting_server(ran))
    runner = HookRunner(cwd=tmp_path)
    runner.add_hooks(parse_hooks(hooks, HookSource("user")))
    host.set_hooks(runner)
    try:
        outcome = await host.call("work", "touch", {"name": "a"})
    finally:
        await host.aclose()
    assert ran == ["b"]
    assert outcome.text == "touched b\nchecked by the linter"
    mutated = next(n for n in outcome.hooks if n.kind == "mutated")
    assert (mutated.before, mutated.after, mutated.reasons) == ({"name": "a"}, {"name": "b"}, ["renamed"])
    assert any(n.kind == "context" for n in outcome.hooks)
