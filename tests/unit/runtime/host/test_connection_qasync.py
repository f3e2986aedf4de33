"""A connection under the app's qasync loop: no timer the Qt event loop cannot schedule.

qasync runs every ``call_later``/``call_at`` as a ``QTimer`` with 32-bit milliseconds, so an infinite or
huge timer raises ``OverflowError`` (and a shiboken ``RuntimeWarning``, an error under pytest). The
connection lifts its start-up deadline to ``math.inf`` once ready and takes timeouts from ``mcp.json``.
"""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import Any, TypeVar

import qasync
from mcp.server.mcpserver import MCPServer
from PySide6.QtWidgets import QApplication

from desktop_app.runtime.host.connection import MAX_TIMEOUT, ServerConnection
from desktop_app.runtime.host.outcomes import CallOutcome

_T = TypeVar("_T")


def _run_on_qasync(qapp: QApplication, coro: Coroutine[Any, Any, _T]) -> _T:
    loop = qasync.QEventLoop(qapp)
    asyncio.set_event_loop(loop)
    try:
        return loop.run_until_complete(coro)
    finally:
        loop.close()
        asyncio.set_event_loop(None)


def _echo_server() -> MCPServer:
    server = MCPServer("echo", log_level="WARNING")

    @server.tool()
    async def echo(text: str) -> str:
        return text

    return server


def test_ready_connection_lifts_its_start_deadline_and_calls_under_qasync(qapp: QApplication) -> None:
    async def scenario() -> tuple[str, CallOutcome, CallOutcome]:
        connection = ServerConnection("echo", _echo_server(), startup_timeout=5, call_timeout=5)
        try:
            await connection.start()
            first = await connection.call_tool("echo", {"text": "one"})
            second = await connection.call_tool("echo", {"text": "two"})
            return connection.state, first, second
        finally:
            await connection.close()

    state, first, second = _run_on_qasync(qapp, scenario())
    assert state == "ready"
    assert (first.is_error, first.text) == (False, "one")
    assert (second.is_error, second.text) == (False, "two")


def test_huge_timeouts_are_capped_so_qasync_can_schedule_them(qapp: QApplication) -> None:
    async def scenario() -> tuple[str, str | None, CallOutcome, CallOutcome]:
        connection = ServerConnection("echo", _echo_server(), startup_timeout=1e9, call_timeout=1e12)
        try:
            await connection.start()
            configured = await connection.call_tool("echo", {"text": "configured"})
            given = await connection.call_tool("echo", {"text": "given"}, timeout=1e15)
            return connection.state, connection.error, configured, given
        finally:
            await connection.close()

    state, error, configured, given = _run_on_qasync(qapp, scenario())
    assert (state, error) == ("ready", None)
    assert (configured.is_error, configured.text) == (False, "configured")
    assert (given.is_error, given.text) == (False, "given")


def test_timeouts_are_capped_below_what_a_qtimer_can_hold() -> None:
    connection = ServerConnection("echo", None, startup_timeout=1e9, call_timeout=float("inf"))
    assert connection.startup_timeout == connection.call_timeout == MAX_TIMEOUT
    assert MAX_TIMEOUT * 1000 < 2**31 - 1
