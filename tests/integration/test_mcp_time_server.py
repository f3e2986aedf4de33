"""Real stdio MCP servers through the Host: mcp-server-time from PyPI, a missing command, a crashing server."""

from __future__ import annotations

import asyncio
import json
import sys
import textwrap
from collections.abc import AsyncIterator
from pathlib import Path

import anyio
import pytest
import pytest_asyncio

from desktop_app.runtime.host import Host, ServerConfig, load_mcp_config

pytestmark = pytest.mark.integration

CRASHING_SERVER = textwrap.dedent(
    """
    import os
    import sys

    from mcp.server.mcpserver import MCPServer

    server = MCPServer("crashy", log_level="WARNING")

    @server.tool()
    def ok() -> str:
        return "fine"

    @server.tool()
    def crash() -> str:
        print("crashy: about to exit", file=sys.stderr, flush=True)
        os._exit(1)

    print("crashy: started", file=sys.stderr, flush=True)
    server.run()
    """
)


@pytest_asyncio.fixture
async def host(tmp_path: Path) -> AsyncIterator[Host]:
    script = tmp_path / "crashy.py"
    script.write_text(CRASHING_SERVER, encoding="utf-8")
    config = {
        "mcpServers": {
            "time": {"command": sys.executable, "args": ["-m", "mcp_server_time"]},
            "missing": {"command": str(tmp_path / "no-such-server")},
            "crashy": {"command": sys.executable, "args": [str(script)]},
        }
    }
    path = tmp_path / "mcp.json"
    path.write_text(json.dumps(config), encoding="utf-8")
    host = Host(load_mcp_config(path), call_timeout=30, startup_timeout=30)
    await host.start()
    yield host
    await host.aclose()


@pytest.mark.asyncio
async def test_time_server_tools_are_listed_with_qualified_names(host: Host) -> None:
    names = [tool.name for tool in host.tools() if tool.server == "time"]
    assert names == ["mcp__time__convert_time", "mcp__time__get_current_time"]
    tool = host.lookup("mcp__time__get_current_time")
    assert tool is not None
    assert (tool.server, tool.tool) == ("time", "get_current_time")
    assert "timezone" in tool.input_schema["properties"]
    spec = next(spec for spec in host.tool_specs() if spec.name == "mcp__time__get_current_time")
    assert spec.description.endswith("(MCP server: time, tool: get_current_time)")
    assert host.states()["time"].state == "ready"
    assert host.states()["time"].tool_count == 2


@pytest.mark.asyncio
async def test_time_server_call_returns_real_data(host: Host) -> None:
    outcome = await host.call("time", "get_current_time", {"timezone": "UTC"})
    assert not outcome.is_error, outcome.text
    data = outcome.structured if outcome.structured is not None else json.loads(outcome.text)
    assert data["timezone"] == "UTC"
    assert "datetime" in data


@pytest.mark.asyncio
async def test_missing_command_fails_clearly_and_others_still_work(host: Host) -> None:
    status = host.states()["missing"]
    assert status.state == "failed"
    assert status.error is not None
    assert "command not found" in status.error and "no-such-server" in status.error
    outcome = await host.call("missing", "anything", {})
    assert outcome.is_error and "not running" in outcome.text
    assert not (await host.call("time", "get_current_time", {"timezone": "UTC"})).is_error


@pytest.mark.asyncio
async def test_server_crashing_mid_call_gives_an_error_outcome(host: Host) -> None:
    assert (await host.call("crashy", "ok", {})).text == "fine"

    outcome = await host.call("crashy", "crash", {})

    assert outcome.is_error
    assert "stopped while running 'crash'" in outcome.text
    status = host.states()["crashy"]
    assert status.state in ("failed", "stopped")
    assert status.error is not None and "exited unexpectedly" in status.error
    assert "crashy: about to exit" in host.stderr_tail("crashy")
    again = await host.call("crashy", "ok", {})  # waits for the automatic restart, then runs
    assert not again.is_error and again.text == "fine"
    assert not (await host.call("time", "get_current_time", {"timezone": "UTC"})).is_error

    assert (await host.restart("crashy")).state == "ready"
    assert (await host.call("crashy", "ok", {})).text == "fine"


@pytest.mark.asyncio
async def test_stderr_is_captured_not_printed(host: Host, capfd: pytest.CaptureFixture[str]) -> None:
    await host.aclose()  # closing drains each server's stderr pipe
    assert host.states()["crashy"].state == "stopped"
    assert "crashy: started" in host.stderr_tail("crashy")
    assert "crashy: started" not in capfd.readouterr().err


@pytest.mark.asyncio
async def test_server_exiting_at_start_and_silent_server_fail_with_reasons(tmp_path: Path) -> None:
    exits = tmp_path / "exits.py"
    exits.write_text("import sys\nprint('bad api key', file=sys.stderr)\nsys.exit(3)\n", encoding="utf-8")
    silent = tmp_path / "silent.py"
    silent.write_text("import sys\nsys.stdin.read()\n", encoding="utf-8")  # never answers, exits on EOF
    config = {
        "mcpServers": {
            "exits": {"command": sys.executable, "args": [str(exits)]},
            "silent": {"command": sys.executable, "args": [str(silent)], "startupTimeout": 0.5},
        }
    }
    path = tmp_path / "mcp.json"
    path.write_text(json.dumps(config), encoding="utf-8")
    host = Host(load_mcp_config(path), startup_timeout=30)
    try:
        await host.start()
        exits_status, silent_status = host.states()["exits"], host.states()["silent"]
    finally:
        await host.aclose()
    assert exits_status.state == "failed"
    assert exits_status.error is not None and "bad api key" in exits_status.error
    assert silent_status.state == "failed"
    assert silent_status.error is not None and "within 0.5 s" in silent_status.error


@pytest.mark.asyncio
async def test_aclose_right_after_start_does_not_wait_for_the_startup_timeout(tmp_path: Path) -> None:
    silent = tmp_path / "silent.py"
    silent.write_text("import sys\nsys.stdin.read()\n", encoding="utf-8")
    host = Host({"silent": ServerConfig(command=sys.executable, args=[str(silent)])}, startup_timeout=600)
    starting = asyncio.create_task(host.start())
    await asyncio.sleep(0)  # one hand-over: start() creates the connection, nothing is timed
    with anyio.fail_after(30):
        await host.aclose()
        await starting
    assert host.states()["silent"].state == "stopped"


@pytest.mark.asyncio
async def test_excluded_tools_are_not_offered_and_cannot_be_called(tmp_path: Path) -> None:
    config = tmp_path / "mcp.json"
    config.write_text(
        json.dumps(
            {
                "mcpServers": {
                    "time": {
                        "command": sys.executable,
                        "args": ["-m", "mcp_server_time"],
                        "excludedTools": ["convert_time"],
                    }
                }
            }
        )
    )
    host = Host(load_mcp_config(config))
    try:
        await host.start()
        assert [t.name for t in host.tools()] == ["mcp__time__get_current_time"]
        outcome = await host.call("time", "convert_time", {})
    finally:
        await host.aclose()
    assert outcome.is_error and "excludedTools" in outcome.text


@pytest.mark.asyncio
async def test_servers_added_while_running_start_and_changes_restart() -> None:
    config = ServerConfig(command=sys.executable, args=["-m", "mcp_server_time"])
    host = Host({})
    try:
        await host.start()
        assert host.tools() == []
        assert await host.apply_servers({"time": config}) == ["time"]
        assert host.states()["time"].state == "ready"
        assert "mcp__time__get_current_time" in [t.name for t in host.tools()]
        assert await host.apply_servers({"time": config}) == []  # unchanged: left alone
        narrowed = config.model_copy(update={"excluded_tools": ["convert_time"]})
        assert await host.apply_servers({"time": narrowed}) == []  # only a tool preference: no restart
        assert [t.name for t in host.tools()] == ["mcp__time__get_current_time"]
        moved = config.model_copy(update={"args": ["-m", "mcp_server_time", "--local-timezone", "UTC"]})
        assert await host.apply_servers({"time": moved}) == ["time"]  # a new command line restarts it
        assert host.states()["time"].state == "ready"
        outcome = await host.call("time", "get_current_time", {"timezone": "UTC"})
    finally:
        await host.aclose()
    assert not outcome.is_error and json.loads(outcome.text)["timezone"] == "UTC"
