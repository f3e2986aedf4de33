"""Resource subscriptions of one connection, in both protocol eras.

* **2026-07-28** connections follow each URI with ``Client.listen(resource_subscriptions=[uri])``: one
  ``subscriptions/listen`` stream per URI, run as a task inside the connection's task group (anyio cancel
  scopes must stay in the task that entered them), cancelled by :meth:`ResourceWatch.unsubscribe`.
* **Handshake-era** servers that declare ``resources.subscribe`` get a ``resources/subscribe`` request. The
  SDK's ``Client.subscribe_resource`` is deprecated (it warns) because the method is gone in 2026-07-28, so
  the request is sent with the session's typed ``send_request`` — the same wire message, for the era that
  still has it. Their ``notifications/resources/updated`` arrive through the connection's message handler.

Either way an update is reported through ``on_update(uri)``; the host publishes it as ``ResourceUpdated``.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Iterable

import anyio
import anyio.abc
import mcp_types as mtypes
from mcp import Client
from mcp.client.subscriptions import ResourceUpdated
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from desktop_app.runtime.errors import ServerRequestError

logger = logging.getLogger(__name__)


class ResourceWatch:
    """The URIs one connection follows. ``run(client)`` lives in the connection task until it stops."""

    def __init__(self, server: str, on_update: Callable[[str], None], initial: Iterable[str] = ()) -> None:
        self.server = server
        self._on_update = on_update
        self._initial = sorted(initial)
        self._client: Client | None = None
        self._group: anyio.abc.TaskGroup | None = None
        self._scopes: dict[str, anyio.CancelScope] = {}
        self._running = asyncio.Event()

    async def run(self, client: Client) -> None:
        """Hold the task group the listen streams run in; re-subscribe the initial URIs (after a restart)."""
        try:
            async with anyio.create_task_group() as group:
                self._client, self._group = client, group
                self._running.set()
                for uri in self._initial:
                    try:
                        await self.subscribe(uri)
                    except ServerRequestError as exc:
                        logger.info("MCP server '%s': could not re-subscribe to %s: %s", self.server, uri, exc)
                await anyio.Event().wait()  # not sleep_forever(): qasync cannot schedule an infinite timer
        finally:
            self._running.clear()
            self._client, self._group = None, None

    async def subscribe(self, uri: str) -> None:
        """Follow ``uri``; raises :class:`ServerRequestError` when the server cannot.

        Call it on a ready connection (``server_request`` checks that and bounds the wait): the watch starts
        with the connection's follow-up tasks, just after the connection became ready."""
        await self._running.wait()
        client, group = self._client, self._group
        if client is None or group is None:  # pragma: no cover - stopped between the wait and now
            raise ServerRequestError(f"MCP server '{self.server}' is not running; start it to follow {uri}.")
        if uri in self._scopes:
            return
        if client.protocol_version in MODERN_PROTOCOL_VERSIONS:
            honored = await group.start(self._follow, client, uri)
            if not honored:
                raise ServerRequestError(f"MCP server '{self.server}' does not offer updates for {uri}.")
            return
        capability = client.server_capabilities.resources
        if not (capability and capability.subscribe):
            raise ServerRequestError(f"MCP server '{self.server}' does not support resource subscriptions.")
        request = mtypes.SubscribeRequest(params=mtypes.SubscribeRequestParams(uri=uri))
        await client.session.send_request(request, mtypes.EmptyResult)
        self._scopes[uri] = anyio.CancelScope()  # a marker: legacy updates come through the message handler

    async def unsubscribe(self, uri: str) -> None:
        scope = self._scopes.pop(uri, None)
        client = self._client
        if scope is None or client is None:
            return
        if client.protocol_version in MODERN_PROTOCOL_VERSIONS:
            scope.cancel()
            return
        request = mtypes.UnsubscribeRequest(params=mtypes.UnsubscribeRequestParams(uri=uri))
        await client.session.send_request(request, mtypes.EmptyResult)

    async def _follow(self, client: Client, uri: str, *, task_status: anyio.abc.TaskStatus[bool]) -> None:
        with anyio.CancelScope() as scope:
            started = False
            try:
                async with client.listen(resource_subscriptions=[uri]) as subscription:
                    honored = subscription.honored
                    if honored is None or uri not in (honored.resource_subscriptions or ()):
                        task_status.started(False)
                        return
                    self._scopes[uri] = scope
                    started = True
                    task_status.started(True)
                    async for event in subscription:
                        if isinstance(event, ResourceUpdated):
                            self._on_update(event.uri)
            except Exception as exc:
                if not started:
                    raise ServerRequestError(
                        f"MCP server '{self.server}' refused to send updates for {uri}: {exc}"
                    ) from exc
                logger.info("MCP server '%s': stopped following %s: %s", self.server, uri, exc)
            finally:
                if self._scopes.get(uri) is scope:
                    del self._scopes[uri]


__all__ = ["ResourceWatch"]
