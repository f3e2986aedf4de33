"""Log notifications of the served host for handshake-era clients (``logging/setLevel``, 2025-11-25).

A client that sets a level is sent, while one of its ``chat-with-<agent>`` calls runs, what the agent does
as ``notifications/message`` (logger ``switchboard``): each tool call it makes (``info``), each approval it
waits for in Switchboard (``notice``) and how it was decided (``info``), failed tool calls (``warning``)
and a failed run (``error``), at that level or above. A client that sets no level gets none (2026-07-28
clients opt in per request instead, and the SDK marks the capability deprecated there). Every text passes
the redaction step first.
"""

from __future__ import annotations

import asyncio
import logging
import warnings
import weakref
from collections.abc import Callable
from typing import Any

from mcp import MCPDeprecationWarning
from mcp import types as mtypes

from desktop_app.runtime import events as ev
from desktop_app.runtime.redaction import redact
from desktop_app.runtime.serve.subscriptions import connection_of

log = logging.getLogger(__name__)
LEVELS = ("debug", "info", "notice", "warning", "error", "critical", "alert", "emergency")


class SessionLogLevels:
    """The level each session asked for (``logging/setLevel``), and the agent activity sent at it."""

    def __init__(self, server: Any) -> None:
        self._levels: weakref.WeakKeyDictionary[Any, str] = weakref.WeakKeyDictionary()  # by client connection
        self._sending: set[asyncio.Task[None]] = set()
        server._lowlevel_server.add_request_handler("logging/setLevel", mtypes.SetLevelRequestParams, self._set_level)

    async def _set_level(self, ctx: Any, params: mtypes.SetLevelRequestParams) -> mtypes.EmptyResult:
        self._levels[connection_of(ctx.session)] = params.level
        return mtypes.EmptyResult()

    def level(self, session: Any) -> str | None:
        try:
            return self._levels.get(connection_of(session))
        except TypeError:  # not weak-referenceable: it never set a level here
            return None

    def follow(self, runtime: Any, conversation_id: str, agent: str, request_context: Any) -> Callable[[], None]:
        """Send the session behind ``request_context`` the agent's activity in ``conversation_id``, at its
        level; returns the function that stops it (call it when the tool call ends)."""
        session = request_context.session
        wanted = self.level(session)
        if wanted is None:
            return lambda: None
        floor = LEVELS.index(wanted) if wanted in LEVELS else 0

        def on_event(event: ev.Event) -> None:
            if event.conversation_id != conversation_id:
                return
            entry = describe(agent, event)
            if entry is not None and LEVELS.index(entry[0]) >= floor:
                task = asyncio.ensure_future(self._send(session, *entry, request_context.request_id))
                self._sending.add(task)
                task.add_done_callback(self._sending.discard)

        unsubscribe: Callable[[], None] = runtime.subscribe(on_event)
        return unsubscribe

    async def _send(self, session: Any, level: str, text: str, request_id: Any) -> None:
        try:
            with warnings.catch_warnings():  # deprecated at 2026-07-28; this is a 2025-11-25 session's
                warnings.simplefilter("ignore", MCPDeprecationWarning)
                await session.send_log_message(level, redact(text), logger="switchboard", related_request_id=request_id)
        except Exception as exc:  # the client went away mid-call: nothing to tell
            log.debug("a log notification was not sent: %s", exc)


def describe(agent: str, event: ev.Event) -> tuple[str, str] | None:
    """``(level, text)`` of an agent's event worth a log line, or ``None``."""
    if isinstance(event, ev.ToolCall):
        return "info", f"{agent} calls {event.name}"
    if isinstance(event, ev.ApprovalRequired):
        return "notice", f"{agent} waits for your approval of {event.tool} (server {event.server}) in Switchboard"
    if isinstance(event, ev.ApprovalDecided):
        verdict = "approved" if event.approved else "denied"
        return "info", f"{agent}: the call was {verdict}" + (f" ({event.reason})" if event.reason else "")
    if isinstance(event, ev.ToolResult) and event.is_error:
        return "warning", f"{agent}: {event.tool} failed: {event.text[:300]}"
    if isinstance(event, ev.Error):
        return "error", f"{agent} failed: {event.message}"
    return None
