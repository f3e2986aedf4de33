"""The served host's tool calls that wait for the user: :class:`HttpApprovals` holds each question under an id
this runtime owns (never one from the wire) until the UI answers it, remembers "Allow for this session" per
client, and denies whatever still waits when the host stops. ``serve/service.py`` asks through it when no
terminal does.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from desktop_app.runtime.serve.clients import current_client, current_client_key


@dataclass
class HttpApproval:
    """One tool call from an MCP client waiting for the user's answer."""

    id: str
    client: str
    tool: str
    arguments: dict[str, Any]
    future: asyncio.Future[tuple[bool, str]] = field(repr=False)
    client_key: str = ""
    """Which client it is (its session id): "Allow for this session" applies to this client only."""


class HttpApprovals:
    """The calls over HTTP that wait for the user, by an id this runtime owns (never one from the wire).

    Listeners get ``("opened" | "closed", approval)``; the UI shows the question and calls :meth:`answer`."""

    def __init__(self) -> None:
        self._pending: dict[str, HttpApproval] = {}
        self._listeners: list[Callable[[str, HttpApproval], None]] = []
        self._allowed: set[tuple[str, str]] = set()  # (client, tool) allowed until the host stops

    def subscribe(self, listener: Callable[[str, HttpApproval], None]) -> Callable[[], None]:
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener) if listener in self._listeners else None

    def _emit(self, what: str, approval: HttpApproval) -> None:
        for listener in list(self._listeners):
            listener(what, approval)

    def pending(self) -> list[HttpApproval]:
        return list(self._pending.values())

    async def ask(self, tool: str, arguments: dict[str, Any]) -> tuple[bool, str]:
        """Wait for the user's answer: ``(approved, reason)``. A client that hangs up cancels the question."""
        client, key = current_client.get(), current_client_key.get() or current_client.get()
        if (key, tool) in self._allowed:
            return True, ""
        future = asyncio.get_running_loop().create_future()
        approval = HttpApproval(uuid.uuid4().hex, client, tool, arguments, future, client_key=key)
        self._pending[approval.id] = approval
        self._emit("opened", approval)
        try:
            return await approval.future
        finally:
            self._pending.pop(approval.id, None)
            self._emit("closed", approval)

    def answer(self, approval_id: str, approved: bool, reason: str = "", *, for_session: bool = False) -> None:
        """``for_session``: this client's later calls of this tool run without asking, until the host stops."""
        approval = self._pending.get(approval_id)
        if approval is None or approval.future.done():
            raise KeyError(f"No call over HTTP {approval_id!r} is waiting for an answer (unknown, or answered).")
        if approved and for_session:
            self._allowed.add((approval.client_key or approval.client, approval.tool))
        approval.future.set_result((approved, reason or ("" if approved else "the user said no")))

    def forget(self) -> None:
        """The host stopped: what was allowed for the session asks again."""
        self._allowed.clear()

    def deny_all(self, reason: str) -> None:
        for approval in list(self._pending.values()):
            if not approval.future.done():
                approval.future.set_result((False, reason))
