"""The served host in-process: the socket is loopback only, tool calls follow the approval policy (denied
with a reason the client reads under ``ask`` with nobody to ask, and under ``never``), and pass the hooks of
``Host.call`` (a PreToolUse hook that blocks is what the client sees)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from mcp import Client

from desktop_app.runtime import events as ev
from desktop_app.runtime.agents import AgentCatalog, AgentRunner, register_agents
from desktop_app.runtime.agents.progress import ProgressTracker
from desktop_app.runtime.hooks.config import parse_hooks
from desktop_app.runtime.hooks.model import HookSource
from desktop_app.runtime.hooks.runner import HookRunner
from desktop_app.runtime.host import Host
from desktop_app.runtime.run.approvals import ApprovalMode, ApprovalPolicy
from desktop_app.runtime.serve.host import make_http_host
from desktop_app.runtime.serve.http import bind_loopback
from desktop_app.runtime.service import Runtime
from desktop_app.runtime.settings import AgentSettings, ProviderSettings, Settings
from tests.support.fakes import FakeProvider, answer


def test_the_socket_is_bound_to_loopback_only() -> None:
    sock = bind_loopback(0)
    try:
        address, port = sock.getsockname()
        assert address == "127.0.0.1" and port > 0
    finally:
        sock.close()


async def served(mode: ApprovalMode, ask: Any = None, hooks: dict[str, Any] | None = None) -> tuple[Runtime, Any]:
    host = Host({})
    if hooks:
        runner = HookRunner()
        runner.add_hooks(parse_hooks(hooks, HookSource("user")))
        host.set_hooks(runner)
    settings = Settings(
        provider=ProviderSettings(base_url="http://127.0.0.1:9/v1", model="m"), agents=[AgentSettings(name="helper")]
    )
    provider = FakeProvider([answer("helped")])
    runtime = Runtime(
        settings=settings, host=host, policy=ApprovalPolicy(mode), provider_factory=lambda _s, _k: provider
    )
    catalog = AgentCatalog.build(settings)
    runtime.attach_agents(catalog)
    register_agents(host, AgentRunner(runtime, catalog), include_implicit_default=True)
    return runtime, make_http_host(host, catalog, runtime.policy, ask, runtime=runtime)


@pytest.mark.asyncio
@pytest.mark.parametrize(
    ("mode", "expected"),
    [
        ("ask", "nobody can approve it here (no terminal to ask on; --approve ask)"),
        ("never", "switchboard serve runs with --approve never"),
    ],
)
async def test_calls_are_denied_by_the_policy_with_a_reason_the_client_reads(mode: ApprovalMode, expected: str) -> None:
    runtime, server = await served(mode)
    try:
        async with Client(server) as client:
            assert {t.name for t in (await client.list_tools()).tools} == {"chat-with-assistant", "chat-with-helper"}
            result = await client.call_tool("chat-with-helper", {"prompt": "help"})
        assert result.is_error and expected in result.content[0].text  # type: ignore[union-attr]
    finally:
        await runtime.aclose()


@pytest.mark.asyncio
async def test_an_approved_call_runs_the_agent_and_a_blocking_hook_is_what_the_client_sees() -> None:
    async def yes(tool: str, arguments: dict[str, Any]) -> tuple[bool, str]:
        assert (tool, arguments) == ("chat-with-helper", {"prompt": "help"})
        return True, ""

    runtime, server = await served("ask", yes)
    try:
        async with Client(server) as client:
            result = await client.call_tool("chat-with-helper", {"prompt": "help"})
        assert not result.is_error and result.content[0].text == "helped"  # type: ignore[union-attr]
    finally:
        await runtime.aclose()

    block = {"PreToolUse": [{"command": "echo 'agents are off today' >&2; exit 2", "match": "chat-with-.*"}]}
    runtime, server = await served("always", hooks=block)
    try:
        async with Client(server) as client:
            result = await client.call_tool("chat-with-helper", {"prompt": "help"})
        text = result.content[0].text  # type: ignore[union-attr]
        assert result.is_error and "agents are off today" in text, json.dumps(text)
    finally:
        await runtime.aclose()


@pytest.mark.asyncio
async def test_a_served_call_names_its_conversation_whose_history_is_a_resource() -> None:
    runtime, server = await served("always")
    uris: list[str] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        uris.append((message or "").removeprefix("chat-progress: "))

    try:
        async with Client(server) as client:
            result = await client.call_tool("chat-with-helper", {"prompt": "help"}, progress_callback=on_progress)
            assert not result.is_error
            progress_uri = uris[0]
            base = progress_uri.removesuffix("chat-progress")
            history = json.loads((await client.read_resource(base + "chat-history")).contents[0].text)  # type: ignore[union-attr]
            progress = json.loads((await client.read_resource(progress_uri)).contents[0].text)  # type: ignore[union-attr]
            pending = json.loads((await client.read_resource(base + "pending-elicitation")).contents[0].text)  # type: ignore[union-attr]
        assert [(m["role"], m["content"]) for m in history["messages"]] == [("user", "help"), ("assistant", "helped")]
        assert (progress["status"], progress["content"]) == ("end_turn", "helped")
        assert pending["approvals"] == []
    finally:
        await runtime.aclose()


def test_pending_elicitation_lists_approvals_until_they_are_decided() -> None:
    changed: list[str] = []
    tracker = ProgressTracker(changed.append)
    ids = {"conversation_id": "c", "run_id": "r"}
    tracker(ev.RunStarted(**ids, model="m", prompt="p"))
    tracker(ev.ApprovalRequired(**ids, tool_call_id="t", server="s", tool="x", arguments={"a": 1}))
    assert tracker.pending("c")["approvals"] == [
        {"tool_call_id": "t", "server": "s", "tool": "x", "arguments": {"a": 1}}
    ]
    assert tracker.progress("c")["status"] == "running"
    tracker(ev.ApprovalDecided(**ids, tool_call_id="t", approved=True, source="user"))
    assert tracker.pending("c")["approvals"] == [] and changed == ["c", "c", "c"]
