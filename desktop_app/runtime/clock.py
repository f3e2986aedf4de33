"""The retry sleeper: waits that the user can cut short ("retry now") per conversation, and tests can fake.

Providers take a ``sleep`` callable; the Runtime gives them ``RetrySleeper.sleep``. A run marks its task
with its conversation id (a context variable), so ``wake(conversation_id)`` ends just that
conversation's pending retry waits.
"""

from __future__ import annotations

import asyncio
import contextvars
from collections import defaultdict

current_conversation: contextvars.ContextVar[str | None] = contextvars.ContextVar(
    "switchboard_current_conversation", default=None
)


class RetrySleeper:
    """``await sleep(delay)`` returns after ``delay`` seconds or as soon as its conversation is woken."""

    def __init__(self) -> None:
        self._waiters: defaultdict[str | None, set[asyncio.Event]] = defaultdict(set)

    async def sleep(self, delay: float) -> None:
        if delay <= 0:
            return  # nothing to wait for: no waiter is registered, so "retry now" has nothing to wake
        key = current_conversation.get()
        event = asyncio.Event()
        self._waiters[key].add(event)
        try:
            await asyncio.wait_for(event.wait(), timeout=max(0.0, delay))
        except TimeoutError:
            pass
        finally:
            self._waiters[key].discard(event)
            if not self._waiters[key]:
                del self._waiters[key]

    def wake(self, conversation_id: str | None) -> bool:
        """End the pending waits of one conversation. Returns whether there were any."""
        events = self._waiters.get(conversation_id, set())
        for event in events:
            event.set()
        return bool(events)

    def waiting(self, conversation_id: str | None) -> bool:
        return bool(self._waiters.get(conversation_id))
