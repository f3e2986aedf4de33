"""Approvals as data keyed by tool-call id: the policy that says who decides, and the broker of pending answers.

The run loop asks the broker for a decision and awaits it; the UI (or the CLI) answers by tool-call id.
The runtime never opens a dialog and never blocks a thread: a pending approval is just a future.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Literal

from desktop_app.runtime.errors import UnknownToolCallError

ApprovalMode = Literal["ask", "always", "never"]


@dataclass(frozen=True)
class Decision:
    approved: bool
    reason: str | None = None
    source: Literal["user", "policy"] = "user"


@dataclass(frozen=True)
class ApprovalPolicy:
    """``ask``: every external tool call waits for an answer; ``always``/``never`` decide by themselves."""

    mode: ApprovalMode = "ask"

    def decide_without_asking(self) -> Decision | None:
        if self.mode == "always":
            return Decision(True, "approved by policy (--approve always)", "policy")
        if self.mode == "never":
            return Decision(False, "denied by policy (--approve never)", "policy")
        return None


class ApprovalBroker:
    """Pending approvals by tool-call id. ``answer`` for an unknown or answered id raises loudly."""

    def __init__(self) -> None:
        self._pending: dict[str, asyncio.Future[Decision]] = {}

    def open(self, tool_call_id: str) -> asyncio.Future[Decision]:
        if tool_call_id in self._pending:
            raise UnknownToolCallError(f"Tool call {tool_call_id!r} is already waiting for an answer.")
        future: asyncio.Future[Decision] = asyncio.get_running_loop().create_future()
        self._pending[tool_call_id] = future
        return future

    def close(self, tool_call_id: str) -> None:
        future = self._pending.pop(tool_call_id, None)
        if future is not None and not future.done():
            future.cancel()

    def pending(self) -> list[str]:
        return [k for k, f in self._pending.items() if not f.done()]

    def answer(self, tool_call_id: str, decision: Decision) -> None:
        future = self._pending.get(tool_call_id)
        if future is None or future.done():
            raise UnknownToolCallError(
                f"No tool call {tool_call_id!r} is waiting for approval (unknown id, or already answered)."
            )
        future.set_result(decision)
