"""Compaction on the Runtime (#16, Deliver 5): the user's "Compact now" and Undo, the reopened conversation's
marks, and the automatic check before each request.

:class:`CompactionControl` is a collaborator of the :class:`~desktop_app.runtime.service.Runtime` facade. A
manual compaction holds the conversation like a run does (one at a time; a run cannot start meanwhile, and
``cancel`` stops it); it is refused while a run is active or tool calls wait for an answer. The
conversation's own provider and model write the summary. The work itself is in :mod:`.compactor` and
:mod:`.compaction`.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING

from desktop_app.runtime import events as ev
from desktop_app.runtime.conversation import Conversation, ToolHost, pending_tool_calls
from desktop_app.runtime.errors import ConversationBusyError
from desktop_app.runtime.service.conversations import ConversationTable
from desktop_app.runtime.service.routing import Routing
from desktop_app.runtime.service.settings_control import SettingsControl
from desktop_app.runtime.service.tasks import ConversationTasks

if TYPE_CHECKING:  # the compactor, its plan and the hooks' runner load with the first run or compaction (issue 27)
    from desktop_app.runtime.compaction.compactor import Compactor
    from desktop_app.runtime.compaction.plan import Compaction
    from desktop_app.runtime.providers.base import Provider
    from desktop_app.runtime.settings import ProviderSettings


class CompactionControl:
    """Compact a conversation now, undo it, restore its marks after a reopen; the check before each request."""

    def __init__(
        self,
        *,
        settings: SettingsControl,
        conversations: ConversationTable,
        routing: Routing,
        host: ToolHost,
        tasks: ConversationTasks,
        notify: Callable[[ev.Event], None],
    ) -> None:
        self._settings = settings
        self._conversations = conversations
        self._routing = routing
        self._host = host
        self._tasks = tasks
        self._notify = notify

    @property
    def learns_windows(self) -> bool:
        """Whether unknown context windows are asked of the endpoint (real providers, not a test factory)."""
        return self._settings.providers.real

    def compactor(
        self, conv: Conversation, chosen: ProviderSettings, provider: Provider, host: ToolHost | None = None
    ) -> Compactor:
        """A compactor for ``conv`` on ``chosen``'s model, with the tools and system note ``host`` offers."""
        from desktop_app.runtime.compaction.compactor import Compactor

        if host is None:
            deferral = self._routing.deferral
            host = deferral.view(conv.id) if deferral is not None else self._host
        system_note = getattr(host, "system_note", None)
        settings = self._settings.settings
        return Compactor(
            conversation=conv,
            provider=provider,
            model=chosen.model,
            emit=self._notify,
            tools=host.tool_specs,
            note=system_note if callable(system_note) else str,
            window=self._routing.windows.window(chosen.base_url, chosen.model),
            keep_turns=settings.compact_keep_turns,
            threshold_percent=settings.compact_threshold_percent,
            hooks=getattr(self._host, "hooks", None),
        )

    def auto_compaction(
        self, conv: Conversation, chosen: ProviderSettings, provider: Provider, host: ToolHost
    ) -> Callable[[str], Awaitable[object]]:
        """What the run loop calls before each request: learn the model's window once, then compact the
        conversation when the request would pass the threshold."""
        learned: list[bool] = []
        api_key = self._settings.providers.api_key(chosen)

        async def check(run_id: str) -> object:
            if not learned:
                learned.append(True)
                if self.learns_windows:
                    await self._routing.windows.learn(chosen, api_key)
            if self._settings.settings.compact_threshold_percent <= 0:
                return None
            return await self.compactor(conv, chosen, provider, host).maybe_compact(run_id)

        return check

    async def compact(self, conversation_id: str) -> Compaction:
        """The user's "Compact now": summarise all but the latest ``compact_keep_turns`` turns. Raises
        ``CompactionError`` (the conversation unchanged, a ``CompactionFailed`` event published) or
        ``ConversationBusyError``."""
        from desktop_app.runtime.compaction.compactor import CompactionError

        conv = self._conversations.conversation(conversation_id)
        _refuse_if_busy(conv)
        if pending_tool_calls(conv.messages):
            raise ConversationBusyError("Answer the tool calls that wait for approval first, then compact.")
        chosen = self._routing.conversation_provider(conversation_id)
        provider = self._settings.providers.get(chosen)
        run_id = f"compaction-{uuid.uuid4().hex}"
        if self.learns_windows:
            await self._routing.windows.learn(chosen, self._settings.providers.api_key(chosen))
        work = self.compactor(conv, chosen, provider)
        conv.active_run = run_id
        task = asyncio.ensure_future(work.compact(run_id))
        self._tasks.track(conversation_id, task)
        try:
            return await asyncio.shield(task)
        except asyncio.CancelledError:
            if not task.done():
                task.cancel()
                await asyncio.wait({task})
            if task.cancelled():
                # Stopped by the user: nothing was changed (the mark is added only once the summary is in).
                self._notify(
                    ev.CompactionFailed(
                        conversation_id=conv.id,
                        run_id=run_id,
                        compaction_id="",
                        code="cancelled",
                        message="Compaction stopped; the conversation was left as it was.",
                    )
                )
                raise CompactionError("Compaction stopped; the conversation was left as it was.", "cancelled") from None
            raise
        finally:
            conv.active_run = None
            self._tasks.untrack(conversation_id, task)

    def undo_compaction(self, conversation_id: str, compaction_id: str | None = None) -> Compaction:
        """Undo the compaction in force (or the one named): the next request sends the history it replaced."""
        from desktop_app.runtime.compaction.compactor import CompactionError
        from desktop_app.runtime.compaction.plan import undo

        conv = self._conversations.conversation(conversation_id)
        _refuse_if_busy(conv)
        done = undo(conv.compactions, compaction_id)
        if done is None:
            raise CompactionError("There is no compaction to undo in this conversation.", "nothing_to_undo")
        self._notify(
            ev.CompactionUndone(conversation_id=conv.id, run_id=f"compaction-{done.id}", compaction_id=done.id)
        )
        return done

    def compactions(self, conversation_id: str) -> list[Compaction]:
        """The conversation's compactions, oldest first (undone ones too)."""
        return list(self._conversations.conversation(conversation_id).compactions)

    def load_compactions(self, conversation_id: str, compactions: Sequence[Compaction]) -> None:
        """A reopened conversation's compactions, as the store kept them."""
        self._conversations.conversation(conversation_id).compactions = list(compactions)


def _refuse_if_busy(conv: Conversation) -> None:
    if conv.active_run is not None:
        raise ConversationBusyError(
            "Stop the run first: a conversation cannot be compacted (or its compaction undone) while it runs."
        )
