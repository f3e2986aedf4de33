"""The work that holds a conversation: its run, or a manual compaction (one at a time per conversation).

:class:`ConversationTasks` keeps that task by conversation id, so that ``cancel`` and ``aclose`` stop it.
"""

from __future__ import annotations

import asyncio
from typing import Any


class ConversationTasks:
    """The task holding each conversation; cancelling one stops it, closing waits for all to unwind."""

    def __init__(self) -> None:
        self._by_conversation: dict[str, asyncio.Task[Any]] = {}

    def track(self, conversation_id: str, task: asyncio.Task[Any]) -> None:
        """Work that holds the conversation like a run (a compaction): ``cancel`` and ``aclose`` stop it."""
        self._by_conversation[conversation_id] = task

    def untrack(self, conversation_id: str, task: asyncio.Task[Any]) -> None:
        if self._by_conversation.get(conversation_id) is task:
            self._by_conversation.pop(conversation_id, None)

    def cancel(self, conversation_id: str) -> None:
        """Stop the conversation's task (a run closes its stream and drops its pending approvals)."""
        task = self._by_conversation.get(conversation_id)
        if task is not None and not task.done():
            task.cancel()

    async def aclose(self) -> None:
        """Cancel every task and wait until each has unwound."""
        for conversation_id in list(self._by_conversation):
            self.cancel(conversation_id)
        tasks = [t for t in self._by_conversation.values() if not t.done()]
        if tasks:
            await asyncio.gather(*tasks, return_exceptions=True)
