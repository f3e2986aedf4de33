"""Compactions in the store (the ``compactions`` table, schema v5): written from the runtime's events, read back
when a conversation reopens.

``CompactionRecorder`` is the event subscriber (``attach_store`` adds it next to the run ``Recorder``):
``ConversationCompacted`` adds a row (and the summary request's usage), ``CompactionUndone`` sets its
``undone_at``. The messages a compaction covers are never touched. ``load`` gives the runtime's
:class:`~desktop_app.runtime.compaction.plan.Compaction` marks (undone ones too, oldest first), and
``restore`` hands them to a runtime that has just loaded the conversation. ``boundary`` is the store
position of the first message kept verbatim, for the chat's divider (``divider_position``).
"""

from __future__ import annotations

import json
import logging
import sqlite3
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from desktop_app.runtime import events as ev
from desktop_app.runtime.store.db import Store

if TYPE_CHECKING:  # the compaction's plan loads when a compaction is read or written, not with the store
    from desktop_app.runtime.compaction.plan import Compaction

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class StoredCompaction:
    """A compaction row: the mark, and where in the stored conversation its verbatim tail starts."""

    compaction: Compaction
    boundary: int


def add(store: Store, conversation_id: str, compaction: Compaction) -> int:
    """Insert ``compaction``; returns the boundary position it was stored with."""
    positions = store.user_positions(conversation_id)
    if compaction.turns < len(positions):
        boundary = positions[compaction.turns]
    else:
        row = store.connection.execute(
            "SELECT COALESCE(MAX(position), -1) + 1 FROM messages WHERE conversation_id = ?", (conversation_id,)
        ).fetchone()
        boundary = int(row[0])
    payload = {
        "messages_before": compaction.messages_before,
        "messages_after": compaction.messages_after,
        "summarised": compaction.summarised,
        "model": compaction.model,
        "reason": compaction.reason,
    }
    with store.transaction() as c:
        store.ensure_conversation(conversation_id)
        c.execute(
            "INSERT OR REPLACE INTO compactions (id, conversation_id, turns, boundary, summary, payload, created_at) "
            "VALUES (?, ?, ?, ?, ?, ?, ?)",
            (
                compaction.id,
                conversation_id,
                compaction.turns,
                boundary,
                compaction.summary,
                json.dumps(payload, ensure_ascii=False),
                compaction.created_at or store.now(),
            ),
        )
    return boundary


def set_undone(store: Store, compaction_id: str) -> None:
    with store.transaction() as c:
        c.execute("UPDATE compactions SET undone_at = ? WHERE id = ?", (store.now(), compaction_id))


def load(store: Store, conversation_id: str) -> list[StoredCompaction]:
    """The conversation's compactions, oldest first."""
    from desktop_app.runtime.compaction.plan import Compaction

    rows = store.connection.execute(
        "SELECT id, turns, boundary, summary, payload, created_at, undone_at FROM compactions "
        "WHERE conversation_id = ? ORDER BY created_at, rowid",
        (conversation_id,),
    ).fetchall()
    out = []
    for cid, turns, boundary, summary, payload, created, undone in rows:
        try:
            extra: dict[str, Any] = json.loads(payload or "{}")
        except ValueError:
            extra = {}
        mark = Compaction(
            id=cid,
            turns=int(turns),
            summary=summary,
            messages_before=int(extra.get("messages_before") or 0),
            messages_after=int(extra.get("messages_after") or 0),
            summarised=int(extra.get("summarised") or 0),
            created_at=float(created),
            model=str(extra.get("model") or ""),
            reason=str(extra.get("reason") or "manual"),
            undone=undone is not None,
        )
        out.append(StoredCompaction(mark, int(boundary)))
    return out


@runtime_checkable
class CompactionHolder(Protocol):
    """What :func:`restore` needs of the runtime (the ``Runtime`` facade; the store never imports it)."""

    def load_compactions(self, conversation_id: str, compactions: Sequence[Compaction]) -> None: ...


def restore(runtime: CompactionHolder, store: Store, conversation_id: str) -> None:
    """Give a conversation the runtime has just loaded its stored compactions."""
    runtime.load_compactions(conversation_id, [row.compaction for row in load(store, conversation_id)])


class CompactionRecorder:
    """Persists compaction events; a failed write is reported through ``on_failure`` (a ``StoreFailed``)."""

    def __init__(self, store: Store, on_failure: Callable[[ev.StoreFailed], None] | None = None) -> None:
        self.store = store
        self._on_failure = on_failure

    def __call__(self, event: ev.Event) -> None:
        if not isinstance(event, ev.ConversationCompacted | ev.CompactionUndone):
            return
        try:
            if isinstance(event, ev.CompactionUndone):
                set_undone(self.store, event.compaction_id)
                return
            from desktop_app.runtime.compaction.plan import Compaction

            mark = Compaction(
                id=event.compaction_id,
                turns=event.turns,
                summary=event.summary,
                messages_before=event.messages_before,
                messages_after=event.messages_after,
                summarised=event.summarised,
                model=event.model,
                reason=event.reason,
                created_at=self.store.now(),
            )
            with self.store.transaction():
                add(self.store, event.conversation_id, mark)
                if event.usage is not None:
                    self.store.add_usage(event.run_id, event.conversation_id, event.usage.model_dump())
        except (sqlite3.Error, OSError) as exc:
            log.error("store: writing a compaction to %s failed: %s", self.store.path, exc)
            if self._on_failure is not None:
                self._on_failure(
                    ev.StoreFailed(
                        conversation_id=event.conversation_id,
                        run_id=event.run_id,
                        message=f"The compaction could not be saved to {self.store.path} ({exc}); it holds for "
                        "this session only. Free disk space or check that the folder is writable.",
                        path=str(self.store.path),
                    )
                )
