"""The crash-safe conversation store: SQLite (WAL) + FTS5, fed by a run-event recorder.

Wiring (the app and ``switchboard ask``)::

    store = Store.open(store_path(paths))
    store.mark_interrupted_runs()          # once, at start
    recorder = attach_store(runtime, store)
    ...
    recorder.close(); store.close()        # after runtime.aclose()
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol

from desktop_app.runtime import events as ev
from desktop_app.runtime.store.db import Store
from desktop_app.runtime.store.read import fts_query
from desktop_app.runtime.store.recorder import FLUSH_INTERVAL_S, Recorder
from desktop_app.runtime.store.records import (
    ConversationInfo,
    SearchHit,
    StoredMessage,
    StoredPart,
    StoredRun,
    make_title,
)
from desktop_app.runtime.store.schema import SCHEMA_VERSION, SchemaTooNewError, StoreError

if TYPE_CHECKING:
    from pathlib import Path

    from desktop_app.paths import AppPaths
    from desktop_app.runtime.settings import ProviderSettings

DB_FILENAME = "switchboard.db"


class RecordedRuntime(Protocol):
    """What the store needs of the runtime it records (the ``Runtime`` facade; the store never imports it)."""

    def conversation_provider(self, conversation_id: str) -> ProviderSettings: ...

    def notify(self, event: ev.Event) -> None: ...

    def subscribe(self, listener: Callable[[ev.Event], None]) -> Callable[[], None]: ...


__all__ = [
    "DB_FILENAME",
    "FLUSH_INTERVAL_S",
    "SCHEMA_VERSION",
    "ConversationInfo",
    "Recorder",
    "SchemaTooNewError",
    "SearchHit",
    "Store",
    "StoreError",
    "StoredMessage",
    "StoredPart",
    "StoredRun",
    "attach_store",
    "fts_query",
    "make_title",
    "store_path",
]


def store_path(paths: AppPaths) -> Path:
    """Where the conversation database lives: ``<data_dir>/switchboard.db``."""
    return paths.data_dir / DB_FILENAME


def attach_store(runtime: RecordedRuntime, store: Store) -> Recorder:
    """Subscribe a ``Recorder`` for ``store`` to every event of ``runtime`` and return it.

    Each conversation is stored with the endpoint it really talks to (its own provider, else the default).
    A failed write is published to the runtime's subscribers as a ``StoreFailed`` event.
    """
    recorder = Recorder(
        store,
        base_url=lambda cid: runtime.conversation_provider(cid).base_url,
        on_failure=runtime.notify,
        agent=getattr(runtime, "conversation_agent", None),  # test fakes have no agents
    )
    runtime.subscribe(recorder)
    from desktop_app.runtime.store.compactions import CompactionRecorder

    runtime.subscribe(CompactionRecorder(store, on_failure=runtime.notify))  # #16: compactions and undo
    return recorder
