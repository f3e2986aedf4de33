"""Issue 21 item 17: a served conversation's resources (chat-history, chat-progress, pending-elicitation) answer
only the client whose call started it; another client, or a conversation the app itself runs, is "no such
conversation" (nothing about it is revealed)."""

from __future__ import annotations

import json

import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError
from mcp_types import Implementation

from .test_http_host import served


@pytest.mark.asyncio
async def test_only_the_client_that_started_a_conversation_can_read_it() -> None:
    runtime, server = await served("always")
    uris: list[str] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        uris.append((message or "").removeprefix("chat-progress: "))

    alpha, beta = Implementation(name="alpha", version="1"), Implementation(name="beta", version="1")
    try:
        async with Client(server, client_info=alpha) as client:
            result = await client.call_tool("chat-with-helper", {"prompt": "help"}, progress_callback=on_progress)
            assert not result.is_error
            history_uri = uris[0].removesuffix("chat-progress") + "chat-history"
            own = json.loads((await client.read_resource(history_uri)).contents[0].text)  # type: ignore[union-attr]
            assert [m["content"] for m in own["messages"]] == ["help", "helped"]
        app_conversation = runtime.new_conversation(agent="helper")  # one the window runs, not a client
        async with Client(server, client_info=beta) as other:
            for uri in (history_uri, uris[0], history_uri.replace(history_uri.split("/")[-2], app_conversation)):
                with pytest.raises(MCPError, match="There is no conversation") as refused:
                    await other.read_resource(uri)
                assert "helped" not in str(refused.value)
    finally:
        await runtime.aclose()
