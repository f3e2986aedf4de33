"""Grants are checked against the server's identity in every run, whatever view of the host the run gets: the
deferred-tool view (``ConversationTools``) and an agent's scoped view pass ``server_identity`` through. A grant
made for another definition of a server (an ``import-config --replace`` that swapped it) asks again.
Real Host with an in-process server, real Runtime, the deferral attached as the app attaches it."""

from __future__ import annotations

import json

import pytest
from mcp.server.mcpserver import MCPServer

from desktop_app.runtime import events as ev
from desktop_app.runtime.agents import AgentCatalog
from desktop_app.runtime.host import Host, ServerConfig
from desktop_app.runtime.run.approvals import ApprovalPolicy, Grant, GrantStore
from desktop_app.runtime.service import Runtime
from desktop_app.runtime.settings import AgentSettings, ProviderSettings, Settings
from desktop_app.runtime.tools.deferral import DeferralSettings, ToolDeferral
from tests.support.fakes import FakeProvider, answer, calls


def wiper() -> MCPServer:
    server = MCPServer("svc")

    @server.tool(description="Delete everything")
    def wipe() -> str:
        return "wiped"

    return server


async def stale_grant_run(*, agents: bool) -> tuple[list[ev.Event], Host]:
    host = Host({})
    host.add_in_process("svc", wiper, ServerConfig(command="swapped-in-server"))
    old_identity = json.dumps({"command": "the-server-the-user-approved", "args": []})
    grants = GrantStore()
    grants.add(Grant(scope="server", server="svc", identity=old_identity))
    provider = FakeProvider([calls(("c1", "mcp__svc__wipe", "{}")), answer("done")])
    settings = Settings(
        provider=ProviderSettings(base_url="http://127.0.0.1:9/v1", model="m"),
        agents=[AgentSettings(name="helper")] if agents else [],
    )
    runtime = Runtime(
        settings=settings,
        host=host,
        policy=ApprovalPolicy("ask"),
        grants=grants,
        provider_factory=lambda _s, _k: provider,
    )
    runtime.attach_deferral(ToolDeferral(host, lambda: DeferralSettings(mode="never")))
    if agents:
        runtime.attach_agents(AgentCatalog.build(settings))
    events: list[ev.Event] = []

    def on_event(event: ev.Event) -> None:
        events.append(event)
        if isinstance(event, ev.ApprovalRequired):
            runtime.answer(event.tool_call_id, approved=False, reason="not this one")

    runtime.subscribe(on_event)
    await host.start()
    try:
        conversation = runtime.new_conversation()
        if agents:
            runtime.set_conversation_agent(conversation, "helper")
        await runtime.run(conversation, "go")
    finally:
        await runtime.aclose()
    return events, host


@pytest.mark.asyncio
@pytest.mark.parametrize("agents", [False, True], ids=["deferral view", "agent's scoped view"])
async def test_a_grant_for_another_definition_of_the_server_asks_again_through_the_run_views(agents: bool) -> None:
    events, _host = await stale_grant_run(agents=agents)
    asked = [e for e in events if isinstance(e, ev.ApprovalRequired)]
    assert [(e.server, e.tool) for e in asked] == [("svc", "wipe")]  # the stale grant did not decide it
    [decided] = [e for e in events if isinstance(e, ev.ApprovalDecided)]
    assert decided.source == "user" and not decided.approved
    [result] = [e for e in events if isinstance(e, ev.ToolResult)]
    assert result.is_error and "wiped" not in result.text  # nothing ran unasked


def test_a_grant_without_a_recorded_identity_never_covers_a_server_that_has_one() -> None:
    legacy = Grant(scope="tool", server="svc", tool="wipe")
    assert not legacy.covers("c", "svc", "wipe", '{"command": "x"}')
    bound = Grant(scope="tool", server="svc", tool="wipe", identity='{"command": "x"}')
    assert bound.covers("c", "svc", "wipe", '{"command": "x"}')
    assert not bound.covers("c", "svc", "wipe", '{"command": "y"}')
    assert not bound.covers("c", "svc", "wipe", None)  # an unknown identity is not the one approved
