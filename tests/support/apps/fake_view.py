"""A fake MCP App view for bridge tests: the test drives its side of the JSON-RPC by hand."""

from __future__ import annotations

import asyncio
import itertools
from typing import Any

from desktop_app.runtime.apps.bridge import AppBridge


class FakeView:
    """Receives what the bridge sends (``inbox``) and sends requests/notifications as a view would."""

    def __init__(self) -> None:
        self.inbox: list[dict[str, Any]] = []
        self.bridge: AppBridge | None = None
        self._ids = itertools.count(100)
        self._arrived = asyncio.Event()
        self.answer_teardown = True

    def send(self, message: dict[str, Any]) -> None:  # the bridge's transport
        self.inbox.append(message)
        self._arrived.set()
        if message.get("method") == "ui/resource-teardown" and self.answer_teardown and self.bridge is not None:
            self.bridge.receive({"jsonrpc": "2.0", "id": message["id"], "result": {}})

    def methods(self) -> list[str]:
        return [m["method"] for m in self.inbox if "method" in m]

    def notifications(self, method: str) -> list[dict[str, Any]]:
        return [m["params"] for m in self.inbox if m.get("method") == method]

    async def request(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        """Send a request and wait for its answer (the whole response: ``result`` or ``error``)."""
        assert self.bridge is not None
        request_id = next(self._ids)
        self.bridge.receive({"jsonrpc": "2.0", "id": request_id, "method": method, "params": params or {}})
        while True:
            for message in self.inbox:
                if message.get("id") == request_id and "method" not in message:
                    return message
            self._arrived.clear()
            await self._arrived.wait()

    def notify(self, method: str, params: dict[str, Any] | None = None) -> None:
        assert self.bridge is not None
        self.bridge.receive({"jsonrpc": "2.0", "method": method, "params": params or {}})

    async def initialize(self, modes: list[str] | None = None) -> dict[str, Any]:
        answer = await self.request(
            "ui/initialize",
            {
                "protocolVersion": "2026-01-26",
                "appInfo": {"name": "fake", "version": "1"},
                "appCapabilities": {"availableDisplayModes": modes or ["inline", "fullscreen"]},
            },
        )
        self.notify("ui/notifications/initialized")
        return answer
