"""Agents through the real Runtime and Host with a scripted provider: cycle and depth refusals, approvals
inside a sub-agent, SubagentStart/SubagentStop hooks, the allowlist at call time and the per-conversation agent."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from mcp.server.mcpserver import MCPServer

from desktop_app.runtime import events as ev
from desktop_app.runtime.agents import AgentCatalog, AgentRunner, ScopedToolHost, register_agents
from desktop_app.runtime.hooks.config import parse_hooks
from desktop_app.runtime.hooks.model import HookSource
from desktop_app.runtime.hooks.runner import HookRunner
from desktop_app.runtime.host import Host
from desktop_app.runtime.providers.base import ProviderEvent
from desktop_app.runtime.run.approvals import ApprovalMode, ApprovalPolicy
from desktop_app.runtime.service import Runtime
from desktop_app.runtime.settings import AgentSettings, ProviderSettings, Settings
from tests.support.fakes import FakeProvider, answer, calls


def tools_server() -> MCPServer:
    server = MCPServer("switchboard.t", log_level="WARNING")

    @server.tool()
    async def ping() -> str:
        return "pong"

    @server.tool()
    async def secret() -> str:
        return "the secret"

    return server


def build(
    agents: Sequence[AgentSettings],
    responses: Sequence[Sequence[ProviderEvent]],
    *,
    mode: ApprovalMode = "always",
    hooks: dict[str, Any] | None = None,
) -> tuple[Runtime, FakeProvider, list[ev.Event]]:
    host = Host({})
    host.register_builtin("switchboard.t", tools_server)
    if hooks:
        runner = HookRunner()
        runner.add_hooks(parse_hooks(hooks, HookSource("user")))
        host.set_hooks(runner)
    settings = Settings(provider=ProviderSettings(base_url="http://127.0.0.1:9/v1", model="m"), agents=list(agents))
    provider = FakeProvider(responses)
    runtime = Runtime(
        settings=settings, host=host, policy=ApprovalPolicy(mode), provider_factory=lambda _s, _k: provider
    )
    catalog = AgentCatalog.build(settings)
    runtime.attach_agents(catalog)
    assert register_agents(host, AgentRunner(runtime, catalog)) == []
    seen: list[ev.Event] = []
    runtime.subscribe(seen.append)
    return runtime, provider, seen


def chat(call_id: str, agent: str, prompt: str = "go") -> list[ProviderEvent]:
    return calls((call_id, f"chat-with-{agent}", json.dumps({"prompt": prompt})))


def results(seen: list[ev.Event]) -> list[ev.ToolResult]:
    return [e for e in seen if isinstance(e, ev.ToolResult)]


@pytest.mark.asyncio
async def test_a_cycle_is_refused_with_the_chain_in_the_error() -> None:
    agents = [AgentSettings(name="a", agents=["b"]), AgentSettings(name="b", agents=["a"])]
    runtime, _provider, seen = build(
        agents,
        [chat("1", "a"), chat("2", "b"), chat("3", "a"), answer("b done"), answer("a done"), answer("all done")],
    )
    try:
        outcome = await runtime.run(runtime.new_conversation(), "start")
        assert (outcome.status, outcome.content) == ("finished", "all done")
        refused = results(seen)[0]  # b's call back into a, the innermost result
        assert refused.is_error and "Agent cycle refused: assistant → a → b → a" in refused.text
        depths = [(e.agent, e.depth) for e in seen if isinstance(e, ev.SubagentStarted)]
        assert depths == [("a", 1), ("b", 2)]
    finally:
        await runtime.aclose()


@pytest.mark.asyncio
async def test_the_depth_limit_is_three() -> None:
    agents = [AgentSettings(name=f"a{i}", agents=[f"a{i + 1}"]) for i in range(1, 5)] + [AgentSettings(name="a5")]
    script = [chat("1", "a1"), chat("2", "a2"), chat("3", "a3"), chat("4", "a4")]
    script += [answer("a3 done"), answer("a2 done"), answer("a1 done"), answer("done")]
    runtime, _provider, seen = build(agents, script)
    try:
        outcome = await runtime.run(runtime.new_conversation(), "start")
        assert outcome.status == "finished"
        refused = results(seen)[0]
        assert refused.is_error and "Agent depth limit reached (3): assistant → a1 → a2 → a3 → a4" in refused.text
        assert [e.agent for e in seen if isinstance(e, ev.SubagentStarted)] == ["a1", "a2", "a3"]
    finally:
        await runtime.aclose()


@pytest.mark.asyncio
async def test_approvals_inside_a_subagent_surface_and_are_answered_by_id() -> None:
    agents = [AgentSettings(name="helper", servers=["switchboard.t"], tools=["ping"])]
    runtime, _provider, seen = build(
        agents, [chat("1", "helper"), calls(("p", "ping", "{}")), answer("pinged"), answer("ok")], mode="ask"
    )
    asked: list[ev.ApprovalRequired] = []

    def approve(event: ev.Event) -> None:
        if isinstance(event, ev.ApprovalRequired):
            asked.append(event)
            runtime.answer(event.tool_call_id, approved=True)

    runtime.subscribe(approve)
    try:
        parent = runtime.new_conversation()
        assert (await runtime.run(parent, "start")).content == "ok"
        child = next(e for e in seen if isinstance(e, ev.SubagentStarted)).child_conversation_id
        assert [(a.conversation_id, a.tool) for a in asked] == [(parent, "chat-with-helper"), (child, "ping")]
        assert [(r.tool, r.text) for r in results(seen)] == [("ping", "pong"), ("chat-with-helper", "pinged")]
    finally:
        await runtime.aclose()


@pytest.mark.asyncio
async def test_subagent_hooks_fire_and_a_blocking_start_refuses_the_agent(tmp_path: Path) -> None:
    start, stop = tmp_path / "start.json", tmp_path / "stop.json"
    hooks = {"SubagentStart": [{"command": f"cat > {start}"}], "SubagentStop": [{"command": f"cat > {stop}"}]}
    agents = [AgentSettings(name="helper")]
    runtime, _provider, _seen = build(
        agents, [chat("1", "helper", "find it"), answer("found"), answer("ok")], hooks=hooks
    )
    try:
        await runtime.run(runtime.new_conversation(), "start")
        started, stopped = json.loads(start.read_text()), json.loads(stop.read_text())
        assert (started["subagent_role"], started["prompt"]) == ("helper", "find it")
        assert (stopped["subagent_role"], stopped["subagent_summary"]) == ("helper", "found")
    finally:
        await runtime.aclose()

    blocking = {"SubagentStart": [{"command": "echo not now >&2; exit 2"}]}
    runtime, provider, seen = build(agents, [chat("1", "helper"), answer("ok")], hooks=blocking)
    try:
        await runtime.run(runtime.new_conversation(), "start")
        refused = results(seen)[0]
        assert refused.is_error and "SubagentStart hook blocked agent 'helper'" in refused.text
        assert not any(isinstance(e, ev.SubagentStarted) for e in seen) and not provider.responses
    finally:
        await runtime.aclose()


@pytest.mark.asyncio
async def test_an_agent_conversation_sees_only_its_allowlist_even_when_it_names_other_tools() -> None:
    agents = [AgentSettings(name="narrow", instructions="Be narrow.", servers=["switchboard.t"], tools=["ping"])]
    runtime, provider, seen = build(agents, [calls(("s", "secret", "{}")), answer("no")])
    try:
        conversation = runtime.new_conversation(agent="narrow")
        assert runtime.conversation_agent(conversation) == "narrow"
        await runtime.run(conversation, "tell me the secret")
        assert [t.name for t in provider.requests[0].tools] == ["ping"]
        assert provider.requests[0].messages[0].content == "Be narrow."
        refused = results(seen)[0]
        assert refused.is_error and "the secret" not in refused.text
        scoped = ScopedToolHost(runtime.host, runtime.agents, "narrow")  # type: ignore[arg-type]
        direct = await scoped.call("switchboard.t", "secret", {})
        assert direct.is_error and "outside the agent's servers and tool allowlist" in direct.text
    finally:
        await runtime.aclose()


@pytest.mark.asyncio
async def test_the_default_agent_sees_the_other_agents_but_never_its_own_tool() -> None:
    runtime, provider, _seen = build([AgentSettings(name="helper")], [answer("hi")])
    catalog = runtime.agents
    assert catalog is not None
    problems = register_agents(runtime.host, AgentRunner(runtime, catalog), include_implicit_default=True)
    assert len(problems) == 1 and "helper" in problems[0]  # registered already; the default one is added
    try:
        await runtime.run(runtime.new_conversation(), "hello")
        names = [t.name for t in provider.requests[0].tools]
        assert "chat-with-helper" in names and "ping" in names and "chat-with-assistant" not in names
    finally:
        await runtime.aclose()
