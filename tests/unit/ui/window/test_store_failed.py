"""A store that fills up during a stream: the chat shows a persistent error with "Save a copy…", the status
bar keeps a warning, the answer stays whole on screen and in memory, and the copy holds all of it (real
Runtime, real Store capped with SQLite's ``max_page_count``, so writes fail with SQLITE_FULL)."""

from __future__ import annotations

import sqlite3

import pytest

from desktop_app.runtime.providers.base import Completion, ContentChunk
from desktop_app.runtime.service import Runtime
from desktop_app.runtime.settings import ProviderSettings, Settings
from desktop_app.runtime.store import Store, attach_store
from desktop_app.runtime.store.unwritable import StoreUnwritableError, report_unsaved
from desktop_app.ui.chat.blocks import AnswerBlock
from desktop_app.ui.chat.store_notice import StoreFailedNotice
from desktop_app.ui.window.main_window import MainWindow
from tests.support.fakes import FakeHost, FakeProvider

PIECES = [f"{i}: " + "lorem ipsum dolor sit amet " * 2000 for i in range(8)]  # ~430 KB


def _wait(qtbot, loop, coro) -> None:
    task = loop.create_task(coro)
    qtbot.waitUntil(task.done)
    task.result()


def test_a_full_store_shows_a_persistent_error_and_the_answer_can_still_be_saved(qtbot, qloop, tmp_path):
    content = "".join(PIECES)
    provider = FakeProvider([[*(ContentChunk(text=p) for p in PIECES), Completion(content=content)]])
    settings = Settings(provider=ProviderSettings(base_url="http://127.0.0.1:9/v1", model="m"))
    runtime = Runtime(
        settings=settings, host=FakeHost(), provider_factory=lambda _s, _k: provider, api_key_override="k"
    )
    store = Store.open(tmp_path / "switchboard.db")
    pages = store.connection.execute("PRAGMA page_count").fetchone()[0]
    store.connection.execute(f"PRAGMA max_page_count = {pages + 30}")  # ~120 KB more: the stream overflows it
    recorder = attach_store(runtime, store)
    win = MainWindow()
    qtbot.addWidget(win)
    win.attach_runtime(runtime)
    win.attach_store(store)
    win.show()
    qtbot.waitExposed(win)
    try:
        win.composer.edit.setPlainText("Write a lot.")
        win.composer.button.click()
        qtbot.waitUntil(lambda: not win.controller.busy)
        [notice] = [b for b in win.view.blocks() if isinstance(b, StoreFailedNotice)]
        assert notice.isVisible() and "could not be saved" in notice.line.text()
        assert str(tmp_path / "switchboard.db") in notice.line.text()
        assert win.store_warning is not None and win.store_warning.isVisible()
        assert [a.text for a in win.view.blocks() if isinstance(a, AnswerBlock)] == [content]
        # persistent: a later status message does not take it away
        win.set_status("Ready")
        assert notice.isVisible() and win.store_warning.isVisible()
        saved = notice.save_to(tmp_path / "copy.md")
        assert saved is not None and content in saved.read_text(encoding="utf-8")
        assert "Write a lot." in saved.read_text(encoding="utf-8")
        assert notice.result.text() == f"Saved to {tmp_path / 'copy.md'}"
    finally:
        _wait(qtbot, qloop, runtime.aclose())
        recorder.close()
        store.close()


def test_a_disk_full_at_start_shows_the_same_notice_naming_the_full_disk(qtbot, qloop, tmp_path, monkeypatch):
    connect = sqlite3.connect

    def full_disk(*args, **kwargs):
        conn = connect(*args, **kwargs)
        conn.execute("PRAGMA max_page_count = 1")  # the first table does not fit: SQLITE_FULL
        return conn

    monkeypatch.setattr(sqlite3, "connect", full_disk)
    provider = FakeProvider([[ContentChunk(text="Kept."), Completion(content="Kept.")]])
    settings = Settings(provider=ProviderSettings(base_url="http://127.0.0.1:9/v1", model="m"))
    runtime = Runtime(
        settings=settings, host=FakeHost(), provider_factory=lambda _s, _k: provider, api_key_override="k"
    )
    with pytest.raises(StoreUnwritableError) as caught:  # as assembly.assemble opens it
        Store.open(tmp_path / "switchboard.db")
    report_unsaved(runtime.subscribe, runtime.notify, caught.value)
    win = MainWindow()
    qtbot.addWidget(win)
    win.attach_runtime(runtime)
    win.show()
    qtbot.waitExposed(win)
    try:
        win.composer.edit.setPlainText("Answer.")
        win.composer.button.click()
        qtbot.waitUntil(lambda: not win.controller.busy)
        [notice] = [b for b in win.view.blocks() if isinstance(b, StoreFailedNotice)]
        assert notice.isVisible() and "the disk is full" in notice.line.text()
        assert win.store_warning is not None and win.store_warning.isVisible()
        assert [a.text for a in win.view.blocks() if isinstance(a, AnswerBlock)] == ["Kept."]
        saved = notice.save_to(tmp_path / "copy.md")
        assert saved is not None and "Kept." in saved.read_text(encoding="utf-8")
    finally:
        _wait(qtbot, qloop, runtime.aclose())
