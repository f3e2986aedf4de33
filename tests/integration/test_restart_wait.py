"""A crashed stdio server is waited for, not forgotten: calls during its restart wait for it (bounded by the
call timeout) and then run, its tools stay on offer meanwhile, and a restart that fails says the server is
down and why. Real stdio servers (``tests/support/misbehaving_server.py``)."""

from __future__ import annotations

import asyncio
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


def _server(mode: str = "normal", **env: str) -> ServerConfig:
    return ServerConfig.model_validate({"command": sys.executable, "args": [str(SCRIPT), mode], "env": env})


async def _short(_delay: float) -> None:
    await asyncio.sleep(0.05)


@pytest.mark.asyncio
async def test_a_run_that_crashes_a_server_gets_the_next_rounds_real_result() -> None:
    host = Host({"bad": _server()}, call_timeout=20, startup_timeout=20, sleep=_short)
    provider = FakeProvider(
        [
            calls(("c1", "mcp__bad__crash", "{}")),
            calls(("c2", "mcp__bad__ok", "{}")),
            answer("It came back."),
        ]
    )
    settings = Settings(provider=ProviderSettings(base_url="http://127.0.0.1:9/v1", model="m"))
    runtime = Runtime(
        settings=settings,
        host=host,
        policy=ApprovalPolicy("always"),
        provider_factory=lambda _s, _k: provider,
        api_key_override="k",
    )
    events: list[ev.Event] = []
    runtime.subscribe(events.append)
    try:
        await host.start()
        outcome = await runtime.run(runtime.new_conversation(), "crash it, then use it")
        # the second request still offered the server's tools, though it was restarting when it was built
        offered = [t.name for t in provider.requests[1].tools]
    finally:
        await runtime.aclose()
    assert outcome.status == "finished" and outcome.content == "It came back."
    results = [e for e in events if isinstance(e, ev.ToolResult)]
    assert [(r.tool, r.is_error) for r in results] == [("crash", True), ("ok", False)]
    assert "stopped while running 'crash'" in results[0].text
    assert results[1].text == "fine"
    assert "mcp__bad__ok" in offered


@pytest.mark.asyncio
async def test_a_call_during_the_restart_waits_and_its_tools_stay_listed() -> None:
    host = Host({"bad": _server()}, call_timeout=20, startup_timeout=20, sleep=_short)
    try:
        await host.start()
        crashed = await host.call("bad", "crash", {})
        assert crashed.is_error
        assert host.states()["bad"].state in ("failed", "restarting")  # the restart is under way
        assert host.lookup("mcp__bad__ok") is not None  # not "Tool … not found" while it restarts
        assert "mcp__bad__ok" in [spec.name for spec in host.tool_specs()]
        again = await host.call("bad", "ok", {})  # at once: waits for the restart, then runs
        assert (again.is_error, again.text) == (False, "fine")
        assert host.states()["bad"].state == "ready"
    finally:
        await host.aclose()


@pytest.mark.asyncio
async def test_a_failed_restart_says_the_server_is_down_and_why(tmp_path: Path) -> None:
    marker = tmp_path / "crashed"
    host = Host(
        {"bad": _server("once", CRASHED_MARKER=str(marker))},
        call_timeout=20,
        startup_timeout=20,
        sleep=_short,
        max_restarts=1,
    )
    try:
        await host.start()
        assert (await host.call("bad", "crash", {})).is_error
        outcome = await host.call("bad", "ok", {})
    finally:
        await host.aclose()
    assert outcome.is_error
    assert "MCP server 'bad' is down" in outcome.text
    assert "refusing to start again" in outcome.text or "exit" in outcome.text
    assert "not found" not in outcome.text
