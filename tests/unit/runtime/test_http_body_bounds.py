"""The served host answers a JSON body nested 10,000 deep with 400 and a JSON-RPC parse error (-32700), from a
plain HTTP client with the right bearer token: no 500, no traceback in the log, and it keeps serving."""

from __future__ import annotations

import logging
from typing import Any

import httpx
import pytest

from desktop_app.runtime.credentials import Credentials
from desktop_app.runtime.host import Host
from desktop_app.runtime.serve.clients import ClientLog, RecordClients
from desktop_app.runtime.serve.service import HttpHostService
from desktop_app.runtime.service import Runtime
from desktop_app.runtime.settings import ProviderSettings, Settings

HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


@pytest.mark.asyncio
@pytest.mark.parametrize("deep", ['{"a":' * 10_000 + "1" + "}" * 10_000, "[" * 10_000 + "]" * 10_000])
async def test_a_deeply_nested_body_is_a_parse_error_not_a_crash(deep: str, caplog: pytest.LogCaptureFixture) -> None:
    host = Host({})
    settings = Settings(provider=ProviderSettings(base_url="http://127.0.0.1:9/v1", model="m"))
    runtime = Runtime(settings=settings, host=host)
    served = HttpHostService(runtime, host, Credentials(), ask=None)
    try:
        url = await served.start(0)
        headers = {**HEADERS, "Authorization": f"Bearer {served.token()}"}
        async with httpx.AsyncClient(timeout=30) as plain:
            with caplog.at_level(logging.WARNING):
                response = await plain.post(url, content=deep.encode(), headers=headers)
            ping = {"jsonrpc": "2.0", "id": 2, "method": "ping"}
            after = await plain.post(url, json=ping, headers=headers)
    finally:
        await served.stop()
        await runtime.aclose()
    assert response.status_code == 400, response.text
    body = response.json()
    assert body["jsonrpc"] == "2.0" and body["error"]["code"] == -32700
    assert body["error"]["message"].lower().startswith("parse error")
    assert "Traceback" not in response.text
    assert not [r for r in caplog.records if r.exc_info or "Traceback" in r.getMessage()]
    assert after.status_code != 500  # still serving


@pytest.mark.asyncio
async def test_record_clients_passes_a_body_too_deep_to_read_on_untouched() -> None:
    deep = b"[" * 10_000 + b"]" * 10_000
    seen: list[bytes] = []

    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        seen.append((await receive())["body"])

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": deep, "more_body": False}

    async def send(_message: dict[str, Any]) -> None:
        return None

    scope = {"type": "http", "method": "POST", "headers": []}
    await RecordClients(app, ClientLog())(scope, receive, send)
    assert seen == [deep]  # the SDK gets it and answers with its parse error
