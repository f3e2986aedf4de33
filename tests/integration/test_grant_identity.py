"""Grants are bound to the server's identity (its command and arguments, or its URL): after the definition
changes (here ``Host.apply_servers`` with new arguments, the path of an mcp.json edit, an import with
``--replace`` and the servers panel), the grant no longer applies and the call asks again, until the user
confirms it. A user server named like a built-in is refused. Real stdio servers."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from desktop_app.runtime import events as ev
from desktop_app.runtime.host import Host, ServerConfig
from desktop_app.runtime.run.approvals import ApprovalPolicy
from desktop_app.runtime.service import Runtime
from desktop_app.runtime.settings import ProviderSettings, Settings
from tests.support.fakes import FakeProvider, answer, calls

pytestmark = pytest.mark.integration

SCRIPT = Path(__file__).resolve().parents[1] / "support" / "misbehaving_server.py"


def _server(*args: str) -> ServerConfig:
    return ServerConfig(command=sys.executable, args=[*args, str(SCRIPT)])


@pytest.mark.asyncio
async def test_a_grant_stops_applying_when_the_server_definition_changes_until_confirmed() -> None:
    host = Host({"svc": _server()}, call_timeout=20, startup_timeout=20)
    rounds = [[calls((i, "mcp__svc__ok", "{}")), answer(f"answer {i}")] for i in "abc"]
    provider = FakeProvider([response for pair in rounds for response in pair])
    settings = Settings(provider=ProviderSettings(base_url="http://127.0.0.1:9/v1", model="m"))
    runtime = Runtime(
        settings=settings, host=host, policy=ApprovalPolicy("ask"), provider_factory=lambda _s, _k: provider
    )
    asked: list[str] = []

    def on_event(event: ev.Event) -> None:
        if isinstance(event, ev.ApprovalRequired):
            asked.append(event.tool_call_id)
            runtime.answer(event.tool_call_id, approved=True, scope="server")

    runtime.subscribe(on_event)
    decided: list[ev.ApprovalDecided] = []
    runtime.subscribe(lambda e: decided.append(e) if isinstance(e, ev.ApprovalDecided) else None)
    try:
        await host.start()
        conversation = runtime.new_conversation()
        await runtime.run(conversation, "first")
        [grant] = runtime.grants.list()
        assert grant.identity == host.server_identity("svc") and not runtime.grant_is_stale(grant)

        await host.apply_servers({"svc": _server("-u")})  # the same name, another command line
        assert runtime.grant_is_stale(grant)
        await runtime.run(conversation, "second")  # asked again: the old grant does not cover the new server
        assert len(asked) == 2
        assert [d.source for d in decided] == ["user", "user"]
        [renewed] = runtime.grants.list()  # approving again rebinds the grant to the new definition
        assert not runtime.grant_is_stale(renewed)

        await host.apply_servers({"svc": _server()})
        assert runtime.grant_is_stale(renewed)
        runtime.confirm_grant(renewed)  # Settings -> Approvals -> Confirm
        await runtime.run(conversation, "third")
        assert len(asked) == 2 and decided[-1].source == "grant"
    finally:
        await runtime.aclose()


def test_a_user_server_named_like_a_builtin_is_refused() -> None:
    host = Host({"switchboard.system": _server(), "fine": _server()})
    assert "switchboard.system" not in host.states() or host.states()["switchboard.system"].builtin
    assert list(host.refused) == ["switchboard.system"]
    assert "belong to Switchboard's built-in servers" in host.refused["switchboard.system"]
    assert host.config("switchboard.system") is None and host.config("fine") is not None
