"""``ui/main_thread_gc``: no collection starts in a worker thread (where it would free the UI thread's Qt objects:
a crash), and the UI thread collects that garbage when its event loop is about to wait, as much as the automatic
collector would have."""

from __future__ import annotations

import gc
import threading
import weakref
from collections.abc import Iterator
from typing import Any

import pytest

from desktop_app.ui.main_thread_gc import UiThreadCollector, collect_due


class Node:
    """Garbage only the cyclic collector frees (it points at itself)."""

    def __init__(self) -> None:
        self.me = self


@pytest.fixture
def passes() -> Iterator[list[int]]:
    """The thread idents of the collections started during the test."""
    seen: list[int] = []

    def note(phase: str, _info: dict[str, Any]) -> None:
        if phase == "start":
            seen.append(threading.get_ident())

    gc.callbacks.append(note)
    yield seen
    gc.callbacks.remove(note)


@pytest.fixture
def thresholds() -> Iterator[None]:
    saved = gc.get_threshold()
    yield
    gc.set_threshold(*saved)


def test_a_worker_thread_starts_no_collection_and_the_ui_thread_collects_its_garbage(qtbot, qapp, passes):
    gc.enable()  # as the app runs until ready
    collector = UiThreadCollector()
    try:
        assert not gc.isenabled()
        kept: list[weakref.ref[Node]] = []

        def work() -> None:  # far past the youngest generation's threshold
            for _ in range(20 * gc.get_threshold()[0]):
                kept.append(weakref.ref(Node()))

        worker = threading.Thread(target=work)
        worker.start()
        worker.join()
        assert worker.ident not in passes  # nothing collected there
        assert all(ref() is not None for ref in kept)  # so all of it is still here
        qtbot.waitUntil(lambda: all(ref() is None for ref in kept))  # the event loop waits: the UI thread collects
        assert set(passes) == {threading.get_ident()}  # this collector's pass, or the test session's own
    finally:
        collector.stop()
        collector.deleteLater()


def test_collect_due_collects_what_the_automatic_collector_would(thresholds, passes):
    gc.set_threshold(10**6, 10, 10)
    assert collect_due() is None and passes == []  # the youngest generation is not due
    gc.set_threshold(0, 10, 10)
    assert collect_due() is None  # 0: collection off, as for the automatic collector
    junk = [Node() for _ in range(5)]
    gc.set_threshold(1, 10**6, 10**6)
    assert collect_due() == 0
    junk = [Node() for _ in range(5)]
    gc.set_threshold(1, 0, 10**6)
    assert collect_due() == 1  # the young generation collected more often than the middle one's threshold
    junk = [Node() for _ in range(5)]
    gc.set_threshold(1, 10**6, 10**6)
    assert collect_due() == 0
    junk = [Node() for _ in range(5)]
    gc.set_threshold(1, 0, 0)
    assert collect_due() == 2 and len(passes) == 4  # and the middle one more often than the oldest one's
    del junk
