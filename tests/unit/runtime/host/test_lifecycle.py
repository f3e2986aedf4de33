"""Host lifecycle with in-process servers: state events, restart backoff, manual restart, truncation, list_changed."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import anyio
import mcp_types as mtypes
import pytest
from mcp import MCPError
from mcp.server.mcpserver import Context, MCPServer

from desktop_app.runtime.events import HOST_EVENT_ADAPTER, HostEvent, ServerStateChanged, ToolsChanged
from desktop_app.runtime.host import CallOutcome, Host
from desktop_app.runtime.host.lifecycle import backoff_delay
from desktop_app.runtime.host.outcomes import truncate_outcome


def crashy_server() -> MCPServer:
    server = MCPServer("crashy", log_level="WARNING")

    @server.tool()
    async def ok() -> str:
        return "fine"

    @server.tool()
    async def die() -> str:  # what a client sees when the server process is gone
        raise MCPError(code=mtypes.CONNECTION_CLOSED, message="Connection closed")

    @server.tool()
    async def big(chars: int) -> str:
        return "z" * chars

    return server


class Factory:
    """Builds the server; ``fail`` makes the next N builds raise (a restart that fails to start)."""

    def __init__(self) -> None:
        self.builds = 0
        self.fail = 0

    def __call__(self) -> MCPServer:
        self.builds += 1
        if self.fail > 0:
            self.fail -= 1
            raise RuntimeError("still broken")
        return crashy_server()


class Events:
    def __init__(self, host: Host) -> None:
        self.items: list[HostEvent] = []
        self._changed = asyncio.Event()
        self.unsubscribe = host.subscribe(self._on)

    def _on(self, event: HostEvent) -> None:
        self.items.append(event)
        self._changed.set()

    def states(self) -> list[tuple[str, float | None, int]]:
        return [(e.state, e.restart_in_s, e.attempt) for e in self.items if isinstance(e, ServerStateChanged)]

    async def wait(self, predicate: Callable[[HostEvent], bool]) -> None:
        with anyio.fail_after(10):
            while not any(predicate(event) for event in self.items):
                self._changed.clear()
                await self._changed.wait()


def is_ready(event: HostEvent) -> bool:
    return isinstance(event, ServerStateChanged) and event.state == "ready"


class Sleeps:
    def __init__(self) -> None:
        self.delays: list[float] = []

    async def __call__(self, delay: float) -> None:
        self.delays.append(delay)


def test_backoff_schedule() -> None:
    assert [backoff_delay(n) for n in range(1, 8)] == [1, 2, 4, 8, 16, 30, 30]


def test_host_events_round_trip_as_json() -> None:
    event = ServerStateChanged(server="s", state="failed", error="x", restart_in_s=2.0, attempt=2)
    assert HOST_EVENT_ADAPTER.validate_json(event.model_dump_json()) == event
    assert HOST_EVENT_ADAPTER.validate_python({"kind": "tools_changed", "server": "s", "tool_count": 3}) == (
        ToolsChanged(server="s", tool_count=3)
    )


@pytest.mark.asyncio
async def test_crash_restarts_with_backoff_until_it_works() -> None:
    sleeps, factory = Sleeps(), Factory()
    host = Host(sleep=sleeps, max_restarts=None)
    host.register_builtin("crashy", factory)
    events = Events(host)
    try:
        assert (await host.ensure_connected("crashy")).state == "ready"
        factory.fail = 6
        outcome = await host.call("crashy", "die", {})
        assert outcome.is_error and "stopped while running 'die'" in outcome.text
        await events.wait(lambda e: is_ready(e) and isinstance(e, ServerStateChanged) and e.attempt > 0)
        assert sleeps.delays == [1, 2, 4, 8, 16, 30, 30]
        assert events.states() == [
            ("ready", None, 0),
            *[
                step
                for attempt, delay in enumerate(sleeps.delays, start=1)
                for step in (("failed", delay, attempt), ("restarting", None, attempt))
            ],
            ("ready", None, 7),
        ]
        assert factory.builds == 8
        assert (await host.call("crashy", "ok", {})).text == "fine"
    finally:
        await host.aclose()


@pytest.mark.asyncio
async def test_gives_up_after_max_restarts() -> None:
    sleeps, factory = Sleeps(), Factory()
    host = Host(sleep=sleeps, max_restarts=2)
    host.register_builtin("crashy", factory)
    events = Events(host)
    try:
        await host.ensure_connected("crashy")
        factory.fail = 100
        await host.call("crashy", "die", {})
        await events.wait(lambda e: isinstance(e, ServerStateChanged) and e.error is not None and "gave up" in e.error)
        assert sleeps.delays == [1, 2]
        status = host.states()["crashy"]
        assert status.state == "failed"
    finally:
        await host.aclose()


@pytest.mark.asyncio
async def test_manual_restart_cancels_the_pending_restart_and_resets_the_backoff() -> None:
    gate = asyncio.Event()
    delays: list[float] = []

    async def blocking_sleep(delay: float) -> None:
        delays.append(delay)
        if len(delays) == 2:  # the first wait passes, the second is still pending when the user restarts
            await gate.wait()

    factory = Factory()
    host = Host(sleep=blocking_sleep, max_restarts=None, call_timeout=0.2)
    host.register_builtin("crashy", factory)
    events = Events(host)
    try:
        await host.ensure_connected("crashy")
        factory.fail = 1
        await host.call("crashy", "die", {})
        await events.wait(lambda e: isinstance(e, ServerStateChanged) and e.state == "restarting")
        await events.wait(lambda e: isinstance(e, ServerStateChanged) and e.restart_in_s == 2)  # attempt 2 waits
        waiting = host.states()["crashy"]
        assert (waiting.state, waiting.restart_in_s, waiting.attempt) == ("failed", 2, 2)
        pending = await host.call("crashy", "ok", {})  # waits for the restart at most the call timeout
        assert pending.is_error and "is down" in pending.text and "tries again in 2 s" in pending.text

        status = await host.restart("crashy")
        assert (status.state, status.attempt) == ("ready", 0)
        await host.call("crashy", "die", {})
        await events.wait(lambda e: isinstance(e, ServerStateChanged) and e.restart_in_s == 1 and e.attempt == 1)
        assert delays == [1, 2, 1]
    finally:
        gate.set()
        await host.aclose()


@pytest.mark.asyncio
async def test_output_over_the_limit_is_truncated_with_a_marker() -> None:
    host = Host(max_output_chars=100)
    host.register_builtin("crashy", crashy_server)
    try:
        short = await host.call("crashy", "big", {"chars": 100})
        assert short.text == "z" * 100
        cut = await host.call("crashy", "big", {"chars": 1_234_667})
    finally:
        await host.aclose()
    marker = '…[truncated 1,234,567 characters: raise the "tool_output_limit" setting to see more]'
    assert cut.text == "z" * 100 + "\n" + marker
    assert cut.content == [{"type": "text", "text": cut.text}]
    assert truncate_outcome(CallOutcome(text="abc"), None).text == "abc"


def changing_server() -> MCPServer:
    server = MCPServer("changing", log_level="WARNING")

    @server.tool()
    async def grow(ctx: Context) -> str:
        async def extra() -> str:
            return "new"

        server.add_tool(extra, name="extra")
        await ctx.notify_tools_changed()
        return "grown"

    return server


@pytest.mark.asyncio
async def test_list_changed_relists_tools_and_publishes_tools_changed() -> None:
    host = Host()
    host.register_builtin("changing", changing_server)
    events = Events(host)
    try:
        await host.ensure_connected("changing")
        assert [tool.name for tool in host.tools()] == ["grow"]
        assert (await host.call("changing", "grow", {})).text == "grown"
        await events.wait(lambda e: isinstance(e, ToolsChanged))
        assert [tool.name for tool in host.tools()] == ["extra", "grow"]
        assert ToolsChanged(server="changing", tool_count=2) in events.items
        assert (await host.call("changing", "extra", {})).text == "new"
    finally:
        await host.aclose()


@pytest.mark.asyncio
async def test_legacy_push_notification_triggers_a_relist() -> None:
    host = Host()
    host.register_builtin("changing", changing_server)
    events = Events(host)
    try:
        await host.ensure_connected("changing")
        connection = host._connections["changing"]
        await connection._on_message(mtypes.ToolListChangedNotification())  # as the legacy message_handler sees it
        await events.wait(lambda e: isinstance(e, ToolsChanged))
    finally:
        await host.aclose()


@pytest.mark.asyncio
async def test_disabled_servers_are_announced_and_unsubscribe_works() -> None:
    from desktop_app.runtime.host import ServerConfig

    host = Host({"off": ServerConfig(command="x", disabled=True)})
    seen: list[HostEvent] = []
    unsubscribe = host.subscribe(seen.append)
    await host.start()
    unsubscribe()
    await host.start()
    await host.aclose()
    assert seen == [ServerStateChanged(server="off", state="disabled")]
