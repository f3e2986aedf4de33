"""Fixtures for the store tests: a fresh store in a temp folder, closed after the test."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from desktop_app.runtime.store import Store


class FakeClock:
    """A manual clock: ``advance`` moves it; the recorder and the store read it."""

    def __init__(self, start: float = 1000.0) -> None:
        self.now = start

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def store(tmp_path: Path, clock: FakeClock) -> Iterator[Store]:
    with Store.open(tmp_path / "data" / "switchboard.db", clock=clock) as s:
        yield s
