"""Resource subscriptions for handshake-era clients of the served host (``resources/subscribe`` and
``resources/unsubscribe``, protocol 2025-11-25), which the SDK's ``MCPServer`` does not serve itself.

2026-07-28 clients follow updates through ``subscriptions/listen`` (the SDK's subscription bus); older ones
subscribe to a URI on their session. :class:`LegacySubscriptions` keeps, per URI, the sessions that
subscribed, and :meth:`LegacySubscriptions.updated` sends them ``notifications/resources/updated`` (a
session that is gone is dropped). A URI may name a resource that does not exist yet: a conversation's
``chat-progress`` can be subscribed to before its run starts (the spec leaves the URI's meaning to the
server), and a URI nothing updates simply never notifies.
"""

from __future__ import annotations

import logging
from typing import Any

from mcp import types as mtypes

log = logging.getLogger(__name__)


class LegacySubscriptions:
    """``resources/subscribe``/``unsubscribe`` handlers on ``server`` and the updates they ask for."""

    def __init__(self, server: Any) -> None:
        self._by_uri: dict[str, dict[Any, Any]] = {}  # uri -> {client connection: a session to send with}
        lowlevel = server._lowlevel_server  # the SDK keeps its request table there; add_request_handler is public
        lowlevel.add_request_handler("resources/subscribe", mtypes.SubscribeRequestParams, self._subscribe)
        lowlevel.add_request_handler("resources/unsubscribe", mtypes.UnsubscribeRequestParams, self._unsubscribe)

    async def _subscribe(self, ctx: Any, params: mtypes.SubscribeRequestParams) -> mtypes.EmptyResult:
        self._by_uri.setdefault(str(params.uri), {})[connection_of(ctx.session)] = ctx.session
        return mtypes.EmptyResult()

    async def _unsubscribe(self, ctx: Any, params: mtypes.UnsubscribeRequestParams) -> mtypes.EmptyResult:
        uri = str(params.uri)
        sessions = self._by_uri.get(uri, {})
        sessions.pop(connection_of(ctx.session), None)
        if not sessions:
            self._by_uri.pop(uri, None)
        return mtypes.EmptyResult()

    def subscribers(self, uri: str) -> int:
        return len(self._by_uri.get(uri, {}))

    async def updated(self, uri: str) -> None:
        """Tell every client subscribed to ``uri`` that it changed; forget the ones that are gone."""
        for key, session in list(self._by_uri.get(uri, {}).items()):
            try:
                await session.send_resource_updated(uri)  # on the client's standalone stream
            except Exception as exc:  # the client went away: it no longer listens
                log.debug("dropping a subscriber of %s: %s", uri, exc)
                sessions = self._by_uri.get(uri, {})
                sessions.pop(key, None)
                if not sessions:
                    self._by_uri.pop(uri, None)


def connection_of(session: Any) -> Any:
    """The client connection behind the SDK's per-request ``ServerSession`` proxy (one per request)."""
    return getattr(session, "_connection", session)
