"""Compaction on the Runtime: a layer of :class:`~desktop_app.runtime.service.Runtime` (#16, Deliver 5).

:class:`RuntimeCompaction` adds "Compact now" (``compact``), ``undo_compaction``, the reopened
conversation's marks (``load_compactions``) and the small accessors :mod:`.compaction_runtime` needs
(the provider of a conversation, its key, holding the conversation like a run). The work itself is in
:mod:`.compaction_runtime`, :mod:`.compactor` and :mod:`.compaction`.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from desktop_app.runtime.service_routing import RuntimeRouting

if TYPE_CHECKING:
    from desktop_app.runtime.compaction import Compaction
    from desktop_app.runtime.conversation import RunOutcome
    from desktop_app.runtime.provider_pool import ProviderPool
    from desktop_app.runtime.providers.base import Provider
    from desktop_app.runtime.settings import ProviderSettings


class RuntimeCompaction(RuntimeRouting):
    """Compact a conversation now, undo it, restore its marks after a reopen."""

    _providers: ProviderPool
    _tasks: dict[str, asyncio.Task[RunOutcome]]

    async def compact(self, conversation_id: str) -> Compaction:
        """Summarise the conversation's older turns now (the latest ``compact_keep_turns`` stay verbatim).
        Raises ``CompactionError`` (conversation unchanged; ``CompactionFailed`` published) or
        ``ConversationBusyError``."""
        from desktop_app.runtime.compaction_runtime import compact

        return await compact(self, conversation_id)  # type: ignore[arg-type]

    def undo_compaction(self, conversation_id: str, compaction_id: str | None = None) -> Compaction:
        """Undo the compaction in force: the next request sends the full history again."""
        from desktop_app.runtime.compaction_runtime import undo_compaction

        return undo_compaction(self, conversation_id, compaction_id)  # type: ignore[arg-type]

    def compactions(self, conversation_id: str) -> list[Compaction]:
        """The conversation's compactions, oldest first (undone ones too)."""
        return list(self.conversation(conversation_id).compactions)

    def load_compactions(self, conversation_id: str, compactions: Sequence[Compaction]) -> None:
        """A reopened conversation's compactions, as the store kept them."""
        self.conversation(conversation_id).compactions = list(compactions)

    @property
    def learns_windows(self) -> bool:
        """Whether unknown context windows are asked of the endpoint (real providers, not a test factory)."""
        return self._providers.real

    def provider_for(self, settings: ProviderSettings) -> Provider:
        return self._providers.get(settings)

    def provider_key(self, settings: ProviderSettings) -> str | None:
        return self._providers.api_key(settings)

    def track_task(self, conversation_id: str, task: asyncio.Task[Any]) -> None:
        """Work that holds the conversation like a run (a compaction): ``cancel`` and ``aclose`` stop it."""
        self._tasks[conversation_id] = task

    def untrack_task(self, conversation_id: str, task: asyncio.Task[Any]) -> None:
        if self._tasks.get(conversation_id) is task:
            self._tasks.pop(conversation_id, None)
