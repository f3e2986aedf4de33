"""Issue 21 item 17: a 10,000-deep JSON body sent to the served host is a 400 with a JSON-RPC parse error,
not a 500 and a traceback; the host goes on answering."""

from __future__ import annotations

import logging

import httpx2
import pytest

from .test_http_service import service

DEEP = b'{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": ' + b"[" * 10_000 + b"]" * 10_000 + b"}"


@pytest.mark.asyncio
async def test_a_deep_body_is_a_400_parse_error_and_the_host_keeps_serving(caplog: pytest.LogCaptureFixture) -> None:
    served = await service()
    headers = {
        "Authorization": f"Bearer {served.token()}",
        "Content-Type": "application/json",
        "Accept": "application/json, text/event-stream",
    }
    try:
        url = await served.start(0)
        async with httpx2.AsyncClient(timeout=30) as http:
            with caplog.at_level(logging.ERROR):
                deep = await http.post(url, content=DEEP, headers=headers)
            assert deep.status_code == 400, deep.text
            assert deep.json()["error"]["code"] == -32700
            assert "Traceback" not in caplog.text and "RecursionError" not in caplog.text
            hello = b'{"jsonrpc": "2.0", "id": 2, "method": "ping"}'
            after = await http.post(url, content=hello, headers=headers)
            assert after.status_code != 500
    finally:
        await served.stop()
        await served.runtime.aclose()
