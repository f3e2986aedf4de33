"""The served host's client list is honest about clients without a session: a 2026-07-28 client (no
``Mcp-Session-Id``, nothing ends it) is "active" while it makes requests and "idle" after ``IDLE_AFTER_S``
without one, while a 2025-11-25 client's session stays "connected" until it ends it (real host, mcp SDK
clients over streamable HTTP, a fake clock)."""

from __future__ import annotations

import httpx2
import pytest
from mcp import Client
from mcp import types as mtypes
from mcp.client.streamable_http import streamable_http_client

from desktop_app.runtime.serve.clients import IDLE_AFTER_S, activity
from tests.unit.runtime.test_http_service import service


def test_activity_reads_as_a_person_says_it() -> None:
    assert [activity(s) for s in (0, 59, 60, 150, 3599, 3600, 7300, 90000)] == [
        "active just now",
        "active just now",
        "active 1 min ago",
        "active 2 min ago",
        "active 59 min ago",
        "active 1 h ago",
        "active 2 h ago",
        "active 1 d ago",
    ]


@pytest.mark.asyncio
async def test_a_client_without_a_session_goes_idle_after_its_last_request_and_a_session_stays_connected() -> None:
    served = await service()
    now = [1000.0]
    served.clients.clock = lambda: now[0]
    try:
        url = await served.start(0)
        headers = {"Authorization": f"Bearer {served.token()}"}
        async with (
            httpx2.AsyncClient(headers=headers, timeout=30) as modern_http,
            httpx2.AsyncClient(headers=headers, timeout=30) as legacy_http,
            Client(
                streamable_http_client(url, http_client=modern_http),
                client_info=mtypes.Implementation(name="editor", version="2"),
            ) as modern,
            Client(
                streamable_http_client(url, http_client=legacy_http),
                mode="legacy",
                client_info=mtypes.Implementation(name="old-cli", version="1"),
            ) as legacy,
        ):
            assert legacy.protocol_version == "2025-11-25"
            await modern.list_tools()
            await legacy.list_tools()
            by_name = {c.name: c for c in served.clients.clients.values()}
            editor, old = by_name["editor"], by_name["old-cli"]
            assert editor.sessionless and not old.sessionless
            assert (served.clients.state(editor), served.clients.state(old)) == ("active", "connected")

            now[0] += IDLE_AFTER_S + 1  # nothing from either for over five minutes
            assert (served.clients.state(editor), served.clients.state(old)) == ("idle", "connected")
            assert activity(now[0] - editor.last_seen) == "active 5 min ago"

            await modern.list_tools()  # a request: active again
            assert served.clients.state(editor) == "active" and len(served.clients.clients) == 2
        assert served.clients.state(old) == "gone"  # its session ended (DELETE)
    finally:
        await served.stop()
        await served.runtime.aclose()
    assert {served.clients.state(c) for c in served.clients.clients.values()} == {"gone"}
