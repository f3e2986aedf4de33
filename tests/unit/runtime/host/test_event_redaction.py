"""A server's log messages and state errors never reach a listener with a known secret in them: the host's event
bus publishes through ``redact_event``, and the log buffer ``Host.server_log`` keeps the redacted messages.
Issue 21, guard 4."""

from __future__ import annotations

import asyncio
import warnings
from collections.abc import AsyncIterator

import pytest
import pytest_asyncio
from mcp import MCPDeprecationWarning
from mcp.server.mcpserver import Context, MCPServer

from desktop_app.runtime import events as ev
from desktop_app.runtime.host import Host
from desktop_app.runtime.host.lifecycle import EventBus
from desktop_app.runtime.redaction import MASK, remember

SECRET = "correct-horse-battery-staple-42"
"""A known secret that is not key-shaped: only remembering it masks it."""


def test_the_event_bus_masks_a_known_secret_in_server_logs_and_errors() -> None:
    remember(SECRET)
    bus = EventBus()
    seen: list[ev.HostEvent] = []
    bus.subscribe(seen.append)
    bus.publish(ev.ServerLog(server="svc", level="error", data=f"login failed with {SECRET}"))
    bus.publish(ev.ServerLog(server="svc", level="info", data={"request": {"password": SECRET}}))
    bus.publish(ev.ServerStateChanged(server="svc", state="failed", error=f"exited (last stderr line: {SECRET})"))
    log, structured, state = seen
    assert isinstance(log, ev.ServerLog) and log.data == f"login failed with {MASK}"
    assert isinstance(structured, ev.ServerLog) and structured.data == {"request": {"password": MASK}}
    assert isinstance(state, ev.ServerStateChanged) and state.error == f"exited (last stderr line: {MASK})"
    assert all(SECRET not in repr(event) for event in seen)


def leaky_server() -> MCPServer:
    server = MCPServer("leaky")

    @server.tool()
    async def leak(ctx: Context) -> str:
        with warnings.catch_warnings():  # the server side of the (deprecated) logging feature
            warnings.simplefilter("ignore", MCPDeprecationWarning)
            await ctx.warning(f"using the token {SECRET} for the upstream API")
        return "ok"

    return server


@pytest_asyncio.fixture
async def host() -> AsyncIterator[Host]:
    host = Host(call_timeout=10)
    host.register_builtin("leaky", leaky_server)
    yield host
    await host.aclose()


@pytest.mark.asyncio
async def test_a_servers_log_message_reaches_listeners_and_the_log_buffer_masked(host: Host) -> None:
    remember(SECRET)  # as Credentials does for a keyring value the server's env was given
    logged = asyncio.Event()
    seen: list[ev.ServerLog] = []

    def listener(event: ev.HostEvent) -> None:
        if isinstance(event, ev.ServerLog):
            seen.append(event)
            logged.set()

    host.subscribe(listener)
    assert (await host.call("leaky", "leak", {})).text == "ok"
    async with asyncio.timeout(10):
        await logged.wait()
    assert [(e.server, e.level, e.data) for e in seen] == [
        ("leaky", "warning", f"using the token {MASK} for the upstream API")
    ]
    assert [e.data for e in host.server_log("leaky")] == [f"using the token {MASK} for the upstream API"]
