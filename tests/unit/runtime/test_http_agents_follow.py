"""The served host's agent tools follow the agents while it runs (real host, mcp SDK clients over streamable
HTTP): an ``agents/*.md`` file added, edited and removed, put in force by ``reload_agents`` as Settings →
Agents does, changes the listed ``chat-with-`` tools on the same URL with no restart; a 2025-11-25 client
(which listed the tools) gets ``notifications/tools/list_changed`` on its session, a 2026-07-28 client the
``ToolsListChanged`` event of its ``subscriptions/listen`` stream, and both stay connected."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import httpx2
import pytest
from mcp import Client
from mcp import types as mtypes
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.subscriptions import ToolsListChanged

from desktop_app.runtime.agents.files import reload_agents
from tests.support.fakes import answer
from tests.unit.runtime.test_http_service import service


async def tools(client: Client) -> dict[str, str]:
    return {t.name: t.description or "" for t in (await client.list_tools()).tools}


@pytest.mark.asyncio
async def test_agents_added_edited_and_removed_change_the_served_tools_and_clients_are_told(tmp_path: Path) -> None:
    served = await service(responses=[answer("written up")])
    folder = tmp_path / "agents"
    folder.mkdir()
    told: asyncio.Queue[str] = asyncio.Queue()

    async def on_message(message: Any) -> None:
        if isinstance(message, mtypes.ToolListChangedNotification):
            told.put_nowait("legacy")

    def reload(text: str | None) -> None:
        path = folder / "writer.md"
        if text is None:
            path.unlink()
        else:
            path.write_text(text)
        reload_agents(served.runtime, served.host, tmp_path)  # what Settings → Agents does after a save

    try:
        url = await served.start(0)
        headers = {"Authorization": f"Bearer {served.token()}"}
        async with (
            httpx2.AsyncClient(headers=headers, timeout=30) as legacy_http,
            httpx2.AsyncClient(headers=headers, timeout=30) as modern_http,
            Client(
                streamable_http_client(url, http_client=legacy_http), mode="legacy", message_handler=on_message
            ) as legacy,
            Client(streamable_http_client(url, http_client=modern_http)) as modern,
            modern.listen(tools_list_changed=True) as listening,
        ):
            assert legacy.protocol_version == "2025-11-25"
            assert legacy.server_capabilities.tools is not None and legacy.server_capabilities.tools.list_changed
            assert listening.honored.tools_list_changed
            events = aiter(listening)
            assert set(await tools(legacy)) == set(await tools(modern)) == {"chat-with-assistant", "chat-with-helper"}

            reload("---\ndescription: Writes things up\n---\nYou write.\n")  # added
            assert await asyncio.wait_for(told.get(), 10) == "legacy"
            assert isinstance(await asyncio.wait_for(anext(events), 10), ToolsListChanged)
            listed = await tools(modern)
            assert set(listed) == {"chat-with-assistant", "chat-with-helper", "chat-with-writer"}
            assert "Writes things up" in listed["chat-with-writer"]
            assert "chat-with-writer" in await tools(legacy)
            result = await legacy.call_tool("chat-with-writer", {"prompt": "write it up"})
            assert not result.is_error and result.content[0].text == "written up"  # type: ignore[union-attr]

            reload("---\ndescription: Edits prose\n---\nYou edit.\n")  # edited: its description
            assert await asyncio.wait_for(told.get(), 10) == "legacy"
            assert isinstance(await asyncio.wait_for(anext(events), 10), ToolsListChanged)
            assert "Edits prose" in (await tools(modern))["chat-with-writer"]

            reload(None)  # removed
            assert await asyncio.wait_for(told.get(), 10) == "legacy"
            assert isinstance(await asyncio.wait_for(anext(events), 10), ToolsListChanged)
            assert set(await tools(legacy)) == {"chat-with-assistant", "chat-with-helper"}

            assert served.url == url and served.state == "serving"  # the same host all along: no restart
            assert [c.open for c in served.clients.clients.values()] == [True, True]
    finally:
        await served.stop()
        await served.runtime.aclose()
