"""The served host as the app runs it (``HttpHostService``), on a real Runtime and a real Host, with an mcp SDK
client over streamable HTTP: the token is required (401 without, a regenerated token replaces the old one at
once), the socket is loopback only and closes on stop, a busy port is a sentence saying what to do, the
clients and their calls are recorded, the exposed servers' tools are served through ``Host.call`` (hooks run),
and calls that need approval wait for an answer given to ``HttpApprovals`` under the runtime's own id."""

from __future__ import annotations

import asyncio
import json
import socket
import warnings
from typing import Any

import httpx
import httpx2
import pytest
from mcp import Client, MCPDeprecationWarning
from mcp import types as mtypes
from mcp.client.streamable_http import streamable_http_client
from mcp.server.mcpserver import MCPServer

from desktop_app.runtime.agents import AgentCatalog, AgentRunner, register_agents
from desktop_app.runtime.credentials import Credentials
from desktop_app.runtime.hooks.config import parse_hooks
from desktop_app.runtime.hooks.model import HookSource
from desktop_app.runtime.hooks.runner import HookRunner
from desktop_app.runtime.host import Host
from desktop_app.runtime.run.approvals import ApprovalMode, ApprovalPolicy
from desktop_app.runtime.serve.approvals import HttpApproval
from desktop_app.runtime.serve.clients import MAX_CLIENTS, ClientLog
from desktop_app.runtime.serve.host import resource_uri
from desktop_app.runtime.serve.service import HttpHostError, HttpHostService, connection_configs
from desktop_app.runtime.service import Runtime
from desktop_app.runtime.settings import AgentSettings, HttpHostSettings, ProviderSettings, Settings
from tests.support.fakes import FakeProvider, answer, calls


def notes_server() -> MCPServer:
    server = MCPServer("notes")

    @server.tool(description="Read a note")
    def read_note(title: str) -> str:
        return f"note {title}: buy milk"

    return server


async def service(
    mode: ApprovalMode = "always", hooks: dict[str, Any] | None = None, responses: list[Any] | None = None
) -> HttpHostService:
    host = Host({})
    host.add_in_process("notes", notes_server)
    if hooks:
        runner = HookRunner()
        runner.add_hooks(parse_hooks(hooks, HookSource("user")))
        host.set_hooks(runner)
    settings = Settings(
        provider=ProviderSettings(base_url="http://127.0.0.1:9/v1", model="m"), agents=[AgentSettings(name="helper")]
    )
    provider = FakeProvider(responses or [answer("helped"), answer("helped")])
    runtime = Runtime(
        settings=settings, host=host, policy=ApprovalPolicy(mode), provider_factory=lambda _s, _k: provider
    )
    catalog = AgentCatalog.build(settings)
    runtime.attach_agents(catalog)
    register_agents(host, AgentRunner(runtime, catalog))  # as in the app: the default agent is left out
    await host.start()
    return HttpHostService(runtime, host, Credentials())


def sdk_client(url: str, token: str) -> tuple[httpx2.AsyncClient, Client]:
    http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=30)
    return http, Client(streamable_http_client(url, http_client=http), client_info=None)


async def refused(url: str, token: str | None) -> int:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    async with httpx.AsyncClient() as plain:
        body = {"jsonrpc": "2.0", "id": 1, "method": "ping"}
        return (await plain.post(url, json=body, headers=headers)).status_code


@pytest.mark.asyncio
async def test_serves_the_agents_and_chosen_servers_with_the_token_records_clients_and_closes_on_stop() -> None:
    served = await service()
    try:
        url = await served.start(0, ["notes"])
        assert served.state == "serving" and url.startswith("http://127.0.0.1:") and url.endswith("/mcp")
        assert await refused(url, None) == 401 and await refused(url, "wrong") == 401
        http, client = sdk_client(url, served.token())
        async with http, client:
            tools = {t.name for t in (await client.list_tools()).tools}
            assert tools == {"chat-with-assistant", "chat-with-helper", "mcp__notes__read_note"}
            agent = await client.call_tool("chat-with-helper", {"prompt": "help"})
            note = await client.call_tool("mcp__notes__read_note", {"title": "shopping"})
        assert not agent.is_error and agent.content[0].text == "helped"  # type: ignore[union-attr]
        assert not note.is_error and note.content[0].text == "note shopping: buy milk"  # type: ignore[union-attr]

        (client_row,) = served.clients.clients.values()
        assert client_row.name == "mcp" and client_row.calls == 2 and client_row.protocol
        calls = [(c.tool, c.status) for c in served.clients.calls]
        assert calls == [("chat-with-helper", "ok"), ("mcp__notes__read_note", "ok")]
        assert all(c.duration_s is not None and c.client_label == client_row.label for c in served.clients.calls)
        port = served.port
    finally:
        await served.stop()
        await served.runtime.aclose()
    assert served.state == "off" and not any(c.open for c in served.clients.clients.values())
    with pytest.raises(ConnectionRefusedError), socket.create_connection(("127.0.0.1", port), timeout=2):
        pass  # the port is closed


@pytest.mark.asyncio
async def test_a_busy_port_is_a_sentence_and_a_regenerated_token_replaces_the_old_one() -> None:
    served = await service()
    busy = socket.socket()
    busy.bind(("127.0.0.1", 0))
    busy.listen()
    try:
        with pytest.raises(HttpHostError, match=r"already in use by another program\. Choose another port"):
            await served.start(busy.getsockname()[1])
        assert served.state == "failed" and "Settings → MCP over HTTP" in served.error
        url = await served.start(0)
        old = served.token()
        assert await refused(url, old) != 401  # past the bearer check (the SDK then wants a session)
        new = served.regenerate_token()
        assert new != old and served.token() == new
        assert await refused(url, old) == 401 and await refused(url, new) != 401
    finally:
        busy.close()
        await served.stop()
        await served.runtime.aclose()


@pytest.mark.asyncio
async def test_apply_follows_the_settings_restarting_on_a_new_port_serving_new_agents_and_stopping_when_off() -> None:
    served = await service()
    try:
        await served.apply(HttpHostSettings(enabled=False))
        assert served.state == "off"
        await served.apply(HttpHostSettings(enabled=True))
        first = served.url
        await served.apply(HttpHostSettings(enabled=True))
        assert served.url == first  # nothing changed: no restart
        free = socket.socket()
        free.bind(("127.0.0.1", 0))
        port = free.getsockname()[1]
        free.close()
        await served.apply(HttpHostSettings(enabled=True, port=port))
        assert served.url == f"http://127.0.0.1:{port}/mcp"
        before = served._mcp
        await served.apply(HttpHostSettings(enabled=True, port=port))
        assert served._mcp is before  # the same host
        fresh = AgentCatalog.build(Settings(agents=[AgentSettings(name="helper"), AgentSettings(name="writer")]))
        served.runtime.agents.agents = fresh.agents  # an agent added (Settings → Agents reloads them in place)
        await served.apply(HttpHostSettings(enabled=True, port=port))
        assert served._mcp is before  # served in place: no restart (test_http_agents_follow: the clients told)
        http, client = sdk_client(served.url, served.token())
        async with http, client:
            assert "chat-with-writer" in {t.name for t in (await client.list_tools()).tools}
        await served.apply(HttpHostSettings(enabled=False))
        assert served.state == "off" and served.url == ""
    finally:
        await served.stop()
        await served.runtime.aclose()


@pytest.mark.asyncio
async def test_calls_needing_approval_wait_for_the_answer_and_hooks_run_on_exposed_tools() -> None:
    block = {"PreToolUse": [{"command": "echo 'notes are private' >&2; exit 2", "match": "mcp__notes__.*"}]}
    served = await service("ask", hooks=block)
    try:
        url = await served.start(0, ["notes"])
        opened: asyncio.Queue[HttpApproval] = asyncio.Queue()
        served.approvals.subscribe(lambda what, approval: opened.put_nowait(approval) if what == "opened" else None)
        http, client = sdk_client(url, served.token())
        async with http, client:
            call = asyncio.ensure_future(client.call_tool("chat-with-helper", {"prompt": "help"}))
            question = await asyncio.wait_for(opened.get(), 30)
            assert served.approvals.pending() == [question]
            assert (question.tool, question.arguments) == ("chat-with-helper", {"prompt": "help"})
            assert question.client.startswith("mcp")  # the client named in the question
            served.approvals.answer(question.id, True)
            approved = await asyncio.wait_for(call, 30)

            call = asyncio.ensure_future(client.call_tool("chat-with-helper", {"prompt": "again"}))
            served.approvals.answer((await asyncio.wait_for(opened.get(), 30)).id, False, "not now")
            denied = await asyncio.wait_for(call, 30)

            call = asyncio.ensure_future(client.call_tool("mcp__notes__read_note", {"title": "x"}))
            served.approvals.answer((await asyncio.wait_for(opened.get(), 30)).id, True)
            hooked = await asyncio.wait_for(call, 30)

            call = asyncio.ensure_future(client.call_tool("mcp__notes__read_note", {"title": "y"}))
            served.approvals.answer((await asyncio.wait_for(opened.get(), 30)).id, True, for_session=True)
            await asyncio.wait_for(call, 30)
            again = await asyncio.wait_for(client.call_tool("mcp__notes__read_note", {"title": "z"}), 30)
            assert opened.empty()  # allowed for the session: the second call did not ask
        assert not approved.is_error and approved.content[0].text == "helped"  # type: ignore[union-attr]
        assert denied.is_error and "Switchboard denied 'chat-with-helper': not now" in denied.content[0].text  # type: ignore[union-attr]
        assert hooked.is_error and "notes are private" in hooked.content[0].text  # type: ignore[union-attr]
        assert again.is_error and "notes are private" in again.content[0].text  # type: ignore[union-attr]  # hooks run
        assert [c.status for c in served.clients.calls] == ["ok", "denied", "error", "error", "error"]
        with pytest.raises(KeyError):
            served.approvals.answer(question.id, True)  # answered ids are refused loudly
        await served.stop()
        assert not served.approvals._allowed  # a stopped host forgets what was allowed for its session
    finally:
        await served.stop()
        await served.runtime.aclose()


@pytest.mark.asyncio
async def test_a_2025_11_25_client_subscribes_to_chat_progress_and_hears_each_update() -> None:
    served = await service()
    updates: asyncio.Queue[str] = asyncio.Queue()

    async def on_message(message: Any) -> None:
        if isinstance(message, mtypes.ResourceUpdatedNotification):
            updates.put_nowait(str(message.params.uri))

    try:
        url = await served.start(0)
        conversation = served.runtime.new_conversation(agent="helper")
        uri = resource_uri(conversation, "chat-progress")
        http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {served.token()}"}, timeout=30)
        client = Client(streamable_http_client(url, http_client=http), mode="legacy", message_handler=on_message)
        async with http, client:
            assert client.protocol_version == "2025-11-25"
            [key] = served.clients.clients  # its session: the conversation is this client's, as its chat call makes it
            served._mcp.owners[conversation] = key
            with warnings.catch_warnings():  # resources/subscribe is the 2025-11-25 way (deprecated at 2026-07-28)
                warnings.simplefilter("ignore", MCPDeprecationWarning)
                await client.subscribe_resource(uri)
            assert served._mcp.legacy_subscriptions.subscribers(uri) == 1
            await served.runtime.run(conversation, "help")  # the run, as the app would start it
            assert await asyncio.wait_for(updates.get(), 30) == uri
            progress = json.loads((await client.read_resource(uri)).contents[0].text)  # type: ignore[union-attr]
            assert (progress["status"], progress["content"]) == ("end_turn", "helped")
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", MCPDeprecationWarning)
                await client.unsubscribe_resource(uri)
            assert served._mcp.legacy_subscriptions.subscribers(uri) == 0
    finally:
        await served.stop()
        await served.runtime.aclose()


@pytest.mark.asyncio
async def test_a_2025_11_25_client_that_sets_a_log_level_hears_what_the_agent_does_at_that_level() -> None:
    script = [
        answer("quiet"),
        calls(("c1", "mcp__notes__read_note", '{"title": "x"}')),
        answer("read"),
        calls(("c2", "mcp__notes__nope", "{}")),
        answer("failed"),
    ]
    served = await service(responses=script)
    logged: asyncio.Queue[tuple[str, Any]] = asyncio.Queue()

    async def on_log(params: mtypes.LoggingMessageNotificationParams) -> None:
        logged.put_nowait((params.level, params.data))

    async def set_level(client: Client, level: Any) -> None:
        with warnings.catch_warnings():  # logging/setLevel is the 2025-11-25 way (deprecated at 2026-07-28)
            warnings.simplefilter("ignore", MCPDeprecationWarning)
            await client.set_logging_level(level)

    try:
        url = await served.start(0, ["notes"])
        http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {served.token()}"}, timeout=30)
        client = Client(streamable_http_client(url, http_client=http), mode="legacy", logging_callback=on_log)
        async with http, client:
            assert (await client.call_tool("chat-with-helper", {"prompt": "a"})).content[0].text == "quiet"  # type: ignore[union-attr]
            assert logged.empty()  # no level set: no log notifications
            await set_level(client, "info")
            assert (await client.call_tool("chat-with-helper", {"prompt": "b"})).content[0].text == "read"  # type: ignore[union-attr]
            assert await asyncio.wait_for(logged.get(), 30) == ("info", "helper calls mcp__notes__read_note")
            while not logged.empty():
                logged.get_nowait()
            await set_level(client, "warning")
            assert (await client.call_tool("chat-with-helper", {"prompt": "c"})).content[0].text == "failed"  # type: ignore[union-attr]
            level, text = await asyncio.wait_for(logged.get(), 30)  # the info line "calls" came first, if at all
        assert level == "warning" and text.startswith("helper: mcp__notes__nope failed")
    finally:
        await served.stop()
        await served.runtime.aclose()


def test_the_client_list_forgets_the_oldest_ended_sessions_past_its_cap() -> None:
    ticks = iter(range(1000))
    log = ClientLog(clock=lambda: float(next(ticks)))
    log.seen("live", {"name": "editor", "version": "1"})
    for n in range(MAX_CLIENTS + 5):
        log.seen(f"s{n}", {"name": "cli"})
        log.ended(f"s{n}")
    assert len(log.clients) == MAX_CLIENTS and "live" in log.clients and "s0" not in log.clients
    assert log.clients["live"].label == "editor 1" and f"s{MAX_CLIENTS + 4}" in log.clients


def test_connection_configs_are_each_clients_documented_shape() -> None:
    url, token = "http://127.0.0.1:8123/mcp", "tok"
    configs = json.loads(json.dumps(connection_configs(url, token)))
    assert configs["VS Code"] == {
        "servers": {"switchboard": {"type": "http", "url": url, "headers": {"Authorization": "Bearer tok"}}}
    }
    assert configs["Cursor"] == {
        "mcpServers": {"switchboard": {"url": url, "headers": {"Authorization": "Bearer tok"}}}
    }
    claude = configs["Claude Desktop"]["mcpServers"]["switchboard"]
    assert claude["command"] == "npx" and claude["args"][:3] == ["-y", "mcp-remote", url]
    assert claude["args"][-2:] == ["--header", "Authorization:${AUTH_HEADER}"]  # no space inside an argument
    assert claude["env"] == {"AUTH_HEADER": "Bearer tok"}
