"""Compaction on the Runtime: the user's "Compact now" and Undo, and the automatic check before each request.

The ``Runtime`` methods ``compact``, ``undo_compaction``, ``compactions`` and ``load_compactions`` delegate
here, so that the facade stays small. A manual compaction holds the conversation like a run does (one at a
time; a run cannot start meanwhile, and ``cancel`` stops it); it is refused while a run is active or tool
calls wait for an answer. The conversation's own provider and model write the summary.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from desktop_app.runtime import events as ev
from desktop_app.runtime.compaction import Compaction, active, undo
from desktop_app.runtime.compactor import CompactionError, Compactor
from desktop_app.runtime.conversation import Conversation, ToolHost, pending_tool_calls
from desktop_app.runtime.errors import ConversationBusyError
from desktop_app.runtime.providers.base import Provider
from desktop_app.runtime.settings import ProviderSettings

if TYPE_CHECKING:
    from desktop_app.runtime.service import Runtime


def compactor(
    runtime: Runtime,
    conv: Conversation,
    chosen: ProviderSettings,
    provider: Provider,
    host: ToolHost | None = None,
) -> Compactor:
    """A compactor for ``conv`` on ``chosen``'s model, with the tools and system note ``host`` offers."""
    if host is None:
        deferral = runtime.deferral
        host = deferral.view(conv.id) if deferral is not None else runtime.host
    system_note = getattr(host, "system_note", None)
    runner = getattr(runtime.host, "hooks", None)
    settings = runtime.settings
    return Compactor(
        conversation=conv,
        provider=provider,
        model=chosen.model,
        emit=runtime.notify,
        tools=host.tool_specs,
        note=system_note if callable(system_note) else str,
        window=runtime.windows.window(chosen.base_url, chosen.model),
        keep_turns=settings.compact_keep_turns,
        threshold_percent=settings.compact_threshold_percent,
        hooks=runner,
    )


def auto_compaction(
    runtime: Runtime,
    conv: Conversation,
    chosen: ProviderSettings,
    provider: Provider,
    host: ToolHost,
    api_key: str | None,
) -> Callable[[str], Awaitable[object]]:
    """What the run loop calls before each request: learn the model's window once, then compact the
    conversation when the request would pass the threshold."""
    learned: list[bool] = []

    async def check(run_id: str) -> object:
        if not learned:
            learned.append(True)
            if runtime.learns_windows:
                await runtime.windows.learn(chosen, api_key)
        if runtime.settings.compact_threshold_percent <= 0:
            return None
        return await compactor(runtime, conv, chosen, provider, host).maybe_compact(run_id)

    return check


def _refuse_if_busy(conv: Conversation) -> None:
    if conv.active_run is not None:
        raise ConversationBusyError(
            "Stop the run first: a conversation cannot be compacted (or its compaction undone) while it runs."
        )


async def compact(runtime: Runtime, conversation_id: str) -> Compaction:
    """The user's "Compact now": summarise all but the latest turns. Raises ``CompactionError`` (the
    conversation unchanged, a ``CompactionFailed`` event published) or ``ConversationBusyError``."""
    conv = runtime.conversation(conversation_id)
    _refuse_if_busy(conv)
    if pending_tool_calls(conv.messages):
        raise ConversationBusyError("Answer the tool calls that wait for approval first, then compact.")
    chosen = runtime.conversation_provider(conversation_id)
    provider = runtime.provider_for(chosen)
    run_id = f"compaction-{uuid.uuid4().hex}"
    if runtime.learns_windows:
        await runtime.windows.learn(chosen, runtime.provider_key(chosen))
    work = compactor(runtime, conv, chosen, provider)
    conv.active_run = run_id
    task = asyncio.ensure_future(work.compact(run_id))
    runtime.track_task(conversation_id, task)
    try:
        return await asyncio.shield(task)
    except asyncio.CancelledError:
        if not task.done():
            task.cancel()
            await asyncio.wait({task})
        if task.cancelled():
            # Stopped by the user: nothing was changed (the mark is added only once the summary is in).
            runtime.notify(
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
        runtime.untrack_task(conversation_id, task)


def undo_compaction(runtime: Runtime, conversation_id: str, compaction_id: str | None = None) -> Compaction:
    """Undo the compaction in force (or the one named): the next request sends the history it replaced."""
    conv = runtime.conversation(conversation_id)
    _refuse_if_busy(conv)
    done = undo(conv.compactions, compaction_id)
    if done is None:
        raise CompactionError("There is no compaction to undo in this conversation.", "nothing_to_undo")
    runtime.notify(ev.CompactionUndone(conversation_id=conv.id, run_id=f"compaction-{done.id}", compaction_id=done.id))
    return done


def current(runtime: Runtime, conversation_id: str) -> Compaction | None:
    return active(runtime.conversation(conversation_id).compactions)
