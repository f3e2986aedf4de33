"""A disk that takes no writes is named as such: a store that cannot be created on a full disk says "the disk
is full" (not "not a usable conversation database"), and every run of that session is told it is not saved
(``StoreFailed``), so nothing is lost quietly."""

from __future__ import annotations

import errno
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from desktop_app.runtime import events as ev
from desktop_app.runtime.service import Runtime
from desktop_app.runtime.settings import ProviderSettings, Settings
from desktop_app.runtime.store import Store, StoreError
from desktop_app.runtime.store.unwritable import StoreUnwritableError, disk_problem, report_unsaved
from tests.support.fakes import FakeHost, FakeProvider, answer

_connect = sqlite3.connect


def _full_disk_connect(*args: Any, **kwargs: Any) -> sqlite3.Connection:
    """A real connection on a "disk" with room for one page: the first table does not fit (SQLITE_FULL)."""
    conn = _connect(*args, **kwargs)
    conn.execute("PRAGMA max_page_count = 1")
    return conn


def test_a_store_that_cannot_be_created_on_a_full_disk_says_the_disk_is_full(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sqlite3, "connect", _full_disk_connect)
    with pytest.raises(StoreUnwritableError) as caught:
        Store.open(tmp_path / "switchboard.db")
    message = str(caught.value)
    assert "the disk is full" in message and "free disk space" in message
    assert "not a usable conversation database" not in message
    assert caught.value.path == tmp_path / "switchboard.db"


def test_a_broken_file_is_still_called_not_a_usable_database(tmp_path: Path) -> None:
    path = tmp_path / "switchboard.db"
    path.write_bytes(b"this is not sqlite" * 100)
    with pytest.raises(StoreError) as caught:
        Store.open(path)
    assert not isinstance(caught.value, StoreUnwritableError)
    assert "not a usable conversation database" in str(caught.value)


def test_disk_problems_are_recognised_from_sqlite_and_os_errors(tmp_path: Path) -> None:
    conn = _full_disk_connect(tmp_path / "x.db")
    with pytest.raises(sqlite3.Error) as full:
        conn.execute("CREATE TABLE t (x)")
    conn.close()
    assert disk_problem(full.value) == "the disk is full"
    assert disk_problem(OSError(errno.ENOSPC, "No space left on device")) == "the disk is full"
    assert disk_problem(OSError(errno.EROFS, "Read-only file system")) == "the disk is mounted read-only"
    io_error = sqlite3.OperationalError("disk I/O error")
    io_error.sqlite_errorcode = sqlite3.SQLITE_IOERR_WRITE  # type: ignore[attr-defined]
    assert disk_problem(io_error) == "the disk reported an I/O error"
    assert disk_problem(sqlite3.DatabaseError("file is not a database")) is None
    assert disk_problem(OSError(errno.ENOENT, "No such file")) is None


@pytest.mark.asyncio
async def test_every_run_is_told_it_is_not_saved_when_the_disk_was_full_at_start(tmp_path: Path) -> None:
    provider = FakeProvider([answer("First."), answer("Second.")])
    settings = Settings(provider=ProviderSettings(base_url="http://127.0.0.1:9/v1", model="m"))
    runtime = Runtime(settings=settings, host=FakeHost(), provider_factory=lambda _s, _k: provider)
    error = StoreUnwritableError(tmp_path / "switchboard.db", "the disk is full", "database or disk is full")
    report_unsaved(runtime.subscribe, runtime.notify, error)
    seen: list[ev.Event] = []
    runtime.subscribe(seen.append)
    try:
        conversation = runtime.new_conversation()
        first = await runtime.run(conversation, "One.")
        second = await runtime.run(conversation, "Two.")
    finally:
        await runtime.aclose()
    failed = [e for e in seen if isinstance(e, ev.StoreFailed)]
    assert [e.run_id for e in failed] == [first.run_id, second.run_id]
    assert all("the disk is full" in e.message and "Save a copy" in e.message for e in failed)
    assert failed[0].path == str(tmp_path / "switchboard.db")
    finished = next(i for i, e in enumerate(seen) if isinstance(e, ev.RunFinished))
    assert seen.index(failed[0]) < finished  # said while the run is on, not after it
    assert (first.content, second.content) == ("First.", "Second.")
