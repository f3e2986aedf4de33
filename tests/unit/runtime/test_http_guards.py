"""Guards of the served host, each against the real ``HttpHostService`` on a real Runtime and Host:

* an exposed tool that calls itself read-only (``readOnlyHint``, the server's own claim) still asks while
  "auto-approve read-only tools" is off, and runs by itself only when it is on;
* "Allow for this session" covers the client that was asked, not every client calling that tool;
* the Host/Origin check (DNS rebinding) of the app that is served: a request naming another host or coming
  from another origin is refused, with the right bearer token, from a plain HTTP client."""

from __future__ import annotations

import asyncio

import httpx
import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.server.mcpserver import MCPServer
from mcp.types import Implementation, ToolAnnotations

from desktop_app.runtime.credentials import Credentials
from desktop_app.runtime.host import Host
from desktop_app.runtime.run.approvals import ApprovalPolicy
from desktop_app.runtime.serve.approvals import HttpApproval
from desktop_app.runtime.serve.service import HttpHostService
from desktop_app.runtime.service import Runtime
from desktop_app.runtime.settings import ProviderSettings, Settings
from tests.unit.runtime.test_http_service import sdk_client

ran: list[str] = []


def notes() -> MCPServer:
    server = MCPServer("notes")

    @server.tool(description="Read a note", annotations=ToolAnnotations(read_only_hint=True))
    def read_note(title: str) -> str:
        ran.append(title)
        return f"note {title}"

    return server


def named_client(url: str, token: str, name: str) -> tuple[httpx2.AsyncClient, Client]:
    http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=30)
    info = Implementation(name=name, version="1.0")
    return http, Client(streamable_http_client(url, http_client=http), client_info=info)


async def service(*, auto_read_only: bool = False, ask_ui: bool = True) -> HttpHostService:
    ran.clear()
    host = Host({})
    host.add_in_process("notes", notes)
    settings = Settings(provider=ProviderSettings(base_url="http://127.0.0.1:9/v1", model="m"))
    runtime = Runtime(settings=settings, host=host, policy=ApprovalPolicy("ask", auto_approve_read_only=auto_read_only))
    await host.start()
    return HttpHostService(runtime, host, Credentials(), ask="ui" if ask_ui else None)


@pytest.mark.asyncio
@pytest.mark.parametrize("auto_read_only", [False, True])
async def test_a_read_only_hinted_exposed_tool_asks_unless_read_only_tools_are_auto_approved(
    auto_read_only: bool,
) -> None:
    served = await service(auto_read_only=auto_read_only, ask_ui=False)  # nobody to ask: a question is a denial
    try:
        url = await served.start(0, ["notes"])
        http, client = sdk_client(url, served.token())
        async with http, client:
            tools = {t.name: t for t in (await client.list_tools()).tools}
            assert tools["mcp__notes__read_note"].annotations.read_only_hint  # type: ignore[union-attr]
            result = await asyncio.wait_for(client.call_tool("mcp__notes__read_note", {"title": "diary"}), 30)
    finally:
        await served.stop()
        await served.runtime.aclose()
    text = result.content[0].text  # type: ignore[union-attr]
    if auto_read_only:
        assert not result.is_error and text == "note diary" and ran == ["diary"]
    else:
        assert result.is_error and "nobody can approve it here" in text and ran == []


@pytest.mark.asyncio
async def test_allow_for_this_session_covers_only_the_client_that_was_asked() -> None:
    served = await service()
    try:
        url = await served.start(0, ["notes"])
        opened: asyncio.Queue[HttpApproval] = asyncio.Queue()
        served.approvals.subscribe(lambda what, approval: opened.put_nowait(approval) if what == "opened" else None)
        http_a, first = named_client(url, served.token(), "claude-desktop")
        http_b, second = named_client(url, served.token(), "cursor")
        async with http_a, first, http_b, second:
            call = asyncio.ensure_future(first.call_tool("mcp__notes__read_note", {"title": "a1"}))
            question = await asyncio.wait_for(opened.get(), 30)
            served.approvals.answer(question.id, True, for_session=True)
            await asyncio.wait_for(call, 30)
            await asyncio.wait_for(first.call_tool("mcp__notes__read_note", {"title": "a2"}), 30)
            assert opened.empty()  # the same client: allowed for its session

            call = asyncio.ensure_future(second.call_tool("mcp__notes__read_note", {"title": "b1"}))
            other = await asyncio.wait_for(opened.get(), 30)  # another client: asked again
            assert (question.client, other.client) == ("claude-desktop 1.0", "cursor 1.0")
            served.approvals.answer(other.id, False, "not you")
            denied = await asyncio.wait_for(call, 30)
    finally:
        await served.stop()
        await served.runtime.aclose()
    assert denied.is_error and "not you" in denied.content[0].text  # type: ignore[union-attr]
    assert ran == ["a1", "a2"]


@pytest.mark.asyncio
async def test_the_served_app_refuses_another_host_or_origin_with_the_right_token() -> None:
    served = await service()
    try:
        url = await served.start(0, ["notes"])
        port = served.port
        body = {"jsonrpc": "2.0", "id": 1, "method": "ping"}
        bearer = {"Authorization": f"Bearer {served.token()}", "Accept": "application/json, text/event-stream"}
        async with httpx.AsyncClient(timeout=10) as plain:
            rebound = await plain.post(url, json=body, headers={**bearer, "Host": f"evil.example:{port}"})
            foreign = await plain.post(url, json=body, headers={**bearer, "Origin": "http://evil.example"})
            own = await plain.post(url, json=body, headers={**bearer, "Origin": f"http://127.0.0.1:{port}"})
    finally:
        await served.stop()
        await served.runtime.aclose()
    assert rebound.status_code == 421 and foreign.status_code == 403
    assert own.status_code != 421 and own.status_code != 403 and own.status_code < 500
