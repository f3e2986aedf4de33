"""The store never loses an answer quietly: a failed write is published at once as ``StoreFailed`` (once per
run), the run goes on with everything in memory, and a later run is stored again once writes work."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from desktop_app.runtime import events as ev
from desktop_app.runtime.messages import AssistantMessage
from desktop_app.runtime.providers.base import Completion, ContentChunk
from desktop_app.runtime.service import Runtime
from desktop_app.runtime.settings import ProviderSettings, Settings
from desktop_app.runtime.store import Store, attach_store
from tests.support.fakes import FakeHost, FakeProvider, answer

PIECES = [f"{i}: " + "lorem ipsum dolor sit amet " * 2000 for i in range(8)]  # ~430 KB


@pytest.mark.asyncio
async def test_a_failed_write_is_published_at_once_and_the_answer_stays_in_memory(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    content = "".join(PIECES)
    provider = FakeProvider([[*(ContentChunk(text=p) for p in PIECES), Completion(content=content)], answer("Short.")])
    settings = Settings(provider=ProviderSettings(base_url="http://127.0.0.1:9/v1", model="m"))
    runtime = Runtime(settings=settings, host=FakeHost(), provider_factory=lambda _s, _k: provider)
    store = Store.open(tmp_path / "switchboard.db")
    pages = store.connection.execute("PRAGMA page_count").fetchone()[0]
    store.connection.execute(f"PRAGMA max_page_count = {pages + 30}")
    recorder = attach_store(runtime, store)
    events: list[ev.Event] = []
    runtime.subscribe(events.append)
    try:
        conversation = runtime.new_conversation()
        with caplog.at_level(logging.ERROR):
            outcome = await runtime.run(conversation, "Write a lot.")
        failed = [e for e in events if isinstance(e, ev.StoreFailed)]
        assert len(failed) == 1 and failed[0].run_id == outcome.run_id
        assert failed[0].path == str(tmp_path / "switchboard.db") and "could not be saved" in failed[0].message
        first_delta = next(i for i, e in enumerate(events) if isinstance(e, ev.ContentDelta))
        assert events.index(failed[0]) < len(events) - 1  # before the run's end, not after it
        assert events.index(failed[0]) > first_delta
        assert outcome.status == "finished" and outcome.content == content
        last = runtime.conversation(conversation).messages[-1]
        assert isinstance(last, AssistantMessage) and last.content == content  # kept in memory, whole
        assert outcome.run_id in recorder.unsaved
        assert not [r for r in caplog.records if r.exc_info]  # said plainly, not as a logged traceback

        # space again: the next run is stored as usual
        store.connection.execute("PRAGMA max_page_count = 1073741823")
        again = await runtime.run(conversation, "And now briefly.")
        assert again.content == "Short."
        assert [e for e in events if isinstance(e, ev.StoreFailed)] == failed
        assert store.runs(conversation)[again.run_id].status == "finished"
    finally:
        await runtime.aclose()
        recorder.close()
        store.close()
