"""Server→user requests as data keyed by request id: pending sampling and elicitation answers.

A server's ``sampling/createMessage`` or ``elicitation/create`` becomes one pending entry here; the host
publishes an event carrying the request id, and the UI (or the CLI) answers by that id. The runtime never
opens a dialog and never blocks a thread: a pending request is just a future. Answers for unknown or
already-answered ids raise :class:`~desktop_app.runtime.errors.UnknownServerRequestError`.
"""

from __future__ import annotations

import asyncio
import uuid
from dataclasses import dataclass
from typing import Any, Literal

from desktop_app.runtime.errors import UnknownServerRequestError

RequestKind = Literal["sampling", "elicitation"]
ElicitationAction = Literal["accept", "decline", "cancel"]


@dataclass(frozen=True)
class SamplingAnswer:
    """The user's decision on a sampling request."""

    approved: bool
    reason: str | None = None


@dataclass(frozen=True)
class ElicitationAnswer:
    """The user's answer to an elicitation request (``content`` only with ``accept`` in form mode)."""

    action: ElicitationAction
    content: dict[str, Any] | None = None


Answer = SamplingAnswer | ElicitationAnswer


@dataclass
class PendingRequest:
    """One open request: who asked, what kind, and the future its answer resolves."""

    request_id: str
    kind: RequestKind
    server: str
    future: asyncio.Future[Answer]
    details: Any = None
    """What the answer is checked against (for elicitation: the request parameters)."""


class RequestBroker:
    """Pending server→user requests by request id."""

    def __init__(self) -> None:
        self._pending: dict[str, PendingRequest] = {}

    def open(self, kind: RequestKind, server: str, details: Any = None) -> PendingRequest:
        """A new pending request with a fresh id; the caller awaits its ``future`` and ``close`` s it after."""
        request_id = uuid.uuid4().hex
        future: asyncio.Future[Answer] = asyncio.get_running_loop().create_future()
        pending = PendingRequest(request_id, kind, server, future, details)
        self._pending[request_id] = pending
        return pending

    def close(self, request_id: str) -> None:
        pending = self._pending.pop(request_id, None)
        if pending is not None and not pending.future.done():
            pending.future.cancel()

    def get(self, request_id: str, kind: RequestKind) -> PendingRequest:
        """The open request ``request_id`` of ``kind``; raises ``UnknownServerRequestError`` otherwise."""
        pending = self._pending.get(request_id)
        if pending is None or pending.future.done() or pending.kind != kind:
            raise UnknownServerRequestError(
                f"No {kind} request {request_id!r} is waiting for an answer "
                "(unknown id, already answered, or the server stopped waiting)."
            )
        return pending

    def answer(self, request_id: str, answer: Answer) -> None:
        kind: RequestKind = "sampling" if isinstance(answer, SamplingAnswer) else "elicitation"
        self.get(request_id, kind).future.set_result(answer)

    def pending(self, kind: RequestKind | None = None) -> list[str]:
        """Ids of the requests still waiting, oldest first."""
        return [
            request_id
            for request_id, p in self._pending.items()
            if not p.future.done() and (kind is None or p.kind == kind)
        ]


__all__ = [
    "Answer",
    "ElicitationAction",
    "ElicitationAnswer",
    "PendingRequest",
    "RequestBroker",
    "RequestKind",
    "SamplingAnswer",
]
