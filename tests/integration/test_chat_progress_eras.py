"""``chat-progress`` subscriptions work for MCP clients of both spec eras: an mcp SDK client on 2025-11-25
(``resources/subscribe`` and ``notifications/resources/updated``) and one on 2026-07-28
(``subscriptions/listen``) call ``chat-with-researcher`` on the served host (``HttpHostService`` over a real
Runtime, Host and agents file, the loopback SSE server as the model), subscribe to the run's ``chat-progress``
and are told of each change while the answer streams (it is held half-way at a gate): they read the half
answer while it runs, then the whole one when it ends."""

from __future__ import annotations

import asyncio
import json
import warnings
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import httpx2
import pytest
from mcp import Client, types
from mcp.client.streamable_http import streamable_http_client

from desktop_app.assembly import assemble
from desktop_app.paths import app_paths
from desktop_app.runtime.run.approvals import ApprovalPolicy
from desktop_app.runtime.serve.service import HttpHostService
from desktop_app.runtime.settings import ProviderSettings, Settings, save_settings
from tests.support.llm_server import DONE, Gate, Reply, ScriptedLLMServer, chunk

TOKEN = "t0ken-for-the-test"
RESEARCHER = "---\ndescription: Looks things up\nservers: [switchboard.history]\n---\nYou are the researcher.\n"


@asynccontextmanager
async def updates(client: Client, era: str, uri: str, queue: asyncio.Queue[str]) -> AsyncIterator[None]:
    """Subscribe to ``uri`` the way ``era``'s clients do; each update notice goes to ``queue``."""
    if era == "2025-11-25":
        with warnings.catch_warnings():  # the SDK marks resources/subscribe deprecated for 2026-07-28 clients
            warnings.simplefilter("ignore")
            await client.subscribe_resource(uri)
        yield
        return
    async with client.listen(resource_subscriptions=[uri]) as subscription:
        assert uri in subscription.honored.resource_subscriptions  # type: ignore[operator]

        async def pump() -> None:
            async for event in subscription:
                queue.put_nowait(str(getattr(event, "uri", "")))

        task = asyncio.ensure_future(pump())
        try:
            yield
        finally:
            task.cancel()


@pytest.mark.integration
@pytest.mark.asyncio
@pytest.mark.parametrize("era", ["2025-11-25", "2026-07-28"])
async def test_a_client_of_either_era_follows_chat_progress_while_the_answer_streams(
    era: str, llm_server: ScriptedLLMServer, tmp_path: Path
) -> None:
    paths = app_paths(tmp_path / "home")
    (paths.config_dir / "agents").mkdir(parents=True)
    (paths.config_dir / "agents" / "researcher.md").write_text(RESEARCHER, encoding="utf-8")
    save_settings(paths.settings_file, Settings(provider=ProviderSettings(base_url=llm_server.url, model="m")))
    first, second = Gate(), Gate()  # the answer streams in three parts, each held until the test says so
    llm_server.enqueue(
        Reply(
            steps=[
                chunk(content="Half "), first, chunk(content="and "), second, chunk(content="whole."),
                chunk(finish_reason="stop"), DONE,
            ]
        )
    )  # fmt: skip
    assembly = assemble(paths, strict=True, policy=ApprovalPolicy("always"), persist=False)
    service = HttpHostService(assembly.runtime, assembly.host, assembly.runtime.credentials, ask=None)
    queue: asyncio.Queue[str] = asyncio.Queue()

    async def on_message(message: Any) -> None:  # 2025-11-25: the updates arrive as notifications
        if isinstance(message, types.ResourceUpdatedNotification):
            queue.put_nowait(str(message.params.uri))

    try:
        url = await service.start(bearer=TOKEN)
        async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {TOKEN}"}, timeout=30) as http:
            mode: Any = "legacy" if era == "2025-11-25" else era
            transport = streamable_http_client(url, http_client=http)
            async with Client(transport, mode=mode, message_handler=on_message) as client:
                assert client.protocol_version == era
                announced: asyncio.Future[str] = asyncio.get_running_loop().create_future()

                async def on_progress(_p: float, _t: float | None, message: str | None) -> None:
                    if message and message.startswith("chat-progress: ") and not announced.done():
                        announced.set_result(message.removeprefix("chat-progress: "))

                call = asyncio.ensure_future(
                    client.call_tool("chat-with-researcher", {"prompt": "Stream it"}, progress_callback=on_progress)
                )
                uri = await asyncio.wait_for(announced, 30)

                async def read() -> dict[str, Any]:
                    contents = (await client.read_resource(uri)).contents
                    return dict(json.loads(contents[0].text))  # type: ignore[union-attr]

                async def told(done: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
                    """Wait for an update notice, read, until ``done``: never polled, so no notice fails it."""
                    while True:
                        assert await asyncio.wait_for(queue.get(), 30) == uri
                        state = await read()
                        if done(state):
                            return state

                async with updates(client, era, uri, queue):
                    start = await read()
                    if start["content"] != "Half ":  # it had not streamed yet when we subscribed
                        start = await told(lambda s: s["content"] == "Half ")
                    assert start["status"] == "running"
                    first.open()
                    middle = await told(lambda s: s["content"] == "Half and ")
                    assert middle["status"] == "running" and not call.done()
                    second.open()
                    whole = await told(lambda s: s["status"] != "running")
                result = await asyncio.wait_for(call, 30)
        assert not result.is_error and result.content[0].text == "Half and whole."  # type: ignore[union-attr]
        assert (whole["status"], whole["content"]) == ("end_turn", "Half and whole.")
    finally:
        await service.stop()
        await assembly.aclose()
