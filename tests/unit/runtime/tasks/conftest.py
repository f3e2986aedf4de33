"""Fixtures for the tasks tests: a fake clock, a store on it, and a runtime whose runs end when the test says."""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Callable, Iterator
from datetime import datetime
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from desktop_app.runtime import events as ev
from desktop_app.runtime.conversation import RunOutcome
from desktop_app.runtime.store import Store


def at(text: str, zone: str = "UTC") -> float:
    """``"2026-03-29 03:00"`` in ``zone`` as epoch seconds."""
    return datetime.strptime(text, "%Y-%m-%d %H:%M").replace(tzinfo=ZoneInfo(zone)).timestamp()


def local(instant: float, zone: str) -> str:
    return datetime.fromtimestamp(instant, ZoneInfo(zone)).strftime("%Y-%m-%d %H:%M %Z")


class FakeClock:
    """Wall time the test moves; ``sleep`` returns once the time has been advanced past its deadline."""

    def __init__(self, now: float) -> None:
        self._now = now
        self.sleeps: list[float] = []
        self._waiters: list[tuple[float, asyncio.Future[None]]] = []
        self._asleep = asyncio.Event()

    def now(self) -> float:
        return self._now

    async def sleep(self, seconds: float) -> None:
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        entry = (self._now + seconds, future)
        self.sleeps.append(seconds)
        self._waiters.append(entry)
        self._asleep.set()
        try:
            await future
        finally:
            self._waiters.remove(entry)

    async def asleep(self) -> None:
        """Wait until someone sleeps on this clock (again)."""
        await self._asleep.wait()
        self._asleep.clear()

    def set(self, now: float) -> None:
        self._now = now
        for deadline, future in list(self._waiters):
            if deadline <= now and not future.done():
                future.set_result(None)

    def advance(self, seconds: float) -> None:
        self.set(self._now + seconds)


class GateRuntime:
    """A runtime whose runs end when the test opens their gate (``finish``); answers are ``answer <cid>``."""

    def __init__(self) -> None:
        self.ids = (f"c{n}" for n in itertools.count(1))
        self.gates: dict[str, asyncio.Event] = {}
        self.prompts: dict[str, str] = {}
        self.agents: dict[str, str | None] = {}
        self.started = asyncio.Event()
        self.listeners: list[Callable[[ev.Event], None]] = []

    def new_conversation(self, *, agent: str | None = None) -> str:
        cid = next(self.ids)
        self.agents[cid] = agent
        return cid

    async def run(self, conversation_id: str, prompt: str) -> RunOutcome:
        self.prompts[conversation_id] = prompt
        gate = self.gates.setdefault(conversation_id, asyncio.Event())
        self.started.set()
        await gate.wait()
        return RunOutcome("r-" + conversation_id, "finished", f"answer {conversation_id}\nmore")

    def finish(self, conversation_id: str) -> None:
        self.gates.setdefault(conversation_id, asyncio.Event()).set()

    def subscribe(self, listener: Callable[[ev.Event], None]) -> Callable[[], None]:
        self.listeners.append(listener)
        return lambda: self.listeners.remove(listener)


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock(at("2026-03-01 12:00"))


@pytest.fixture
def store(tmp_path: Path, clock: FakeClock) -> Iterator[Store]:
    with Store.open(tmp_path / "switchboard.db", clock=clock.now) as opened:
        yield opened
