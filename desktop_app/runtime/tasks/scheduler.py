"""The scheduler: one timer for the next due task, never a polling loop.

:class:`Scheduler` sleeps (on an injected :class:`Clock`) until the earliest next fire time of the enabled
tasks, or until a task changes (:meth:`Scheduler.wake`), then fires what is due. A sleep is cut at
``max_sleep`` (15 minutes) so a changed wall clock or a computer that slept is noticed within that time; an
idle app with tasks therefore wakes as rarely as one without them.

What "due" means (:meth:`Scheduler.tick`; the same rule at start and after a late wake):

* the fire times passed since the task's ``anchor`` are counted; only the latest can run, once: when it is
  within ``catch_up_window`` (12 hours) of now it runs (a ``catch_up`` run when it is late by more than a
  minute, its note says how many fire times were missed), otherwise one ``missed`` record says so, never a
  burst of runs;
* a task whose previous run is still going when it is due is not started: the fire is recorded
  ``skipped: still running``;
* a single-date task is disabled after its date; a task past its expiration date has no next run.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable
from datetime import datetime
from typing import Protocol

from desktop_app.runtime.tasks.model import Task, TaskRun, Trigger
from desktop_app.runtime.tasks.records import TaskRecords

log = logging.getLogger(__name__)
CATCH_UP_WINDOW = 12 * 3600.0
"""A fire time missed while the app was closed (or the computer asleep) runs at the next start if it is
at most this old; an older one is recorded as missed."""
LATE_GRACE = 60.0
"""A fire this late (a busy loop, a short sleep) still counts as on time."""
MAX_SLEEP = 15 * 60.0
MAX_COUNT = 100_000


class Clock(Protocol):
    """Wall time and a sleep the scheduler waits on (tests use a fake one)."""

    def now(self) -> float: ...

    async def sleep(self, seconds: float) -> None: ...


class SystemClock:
    """The computer's clock; ``shift`` seconds ahead (``SWITCHBOARD_TASKS_CLOCK_SHIFT``: the real-process tests
    put a minute boundary two seconds away, as cron times are whole minutes)."""

    def __init__(self, shift: float = 0.0) -> None:
        self.shift = shift

    def now(self) -> float:
        return time.time() + self.shift

    async def sleep(self, seconds: float) -> None:
        await asyncio.sleep(seconds)


class Starter(Protocol):
    """What the scheduler needs of the :class:`~.runner.TaskRunner`."""

    def is_running(self, task_id: str) -> bool: ...

    def start(self, task: Task, trigger: Trigger, *, scheduled_for: float | None = None, note: str = "") -> TaskRun: ...


def _at(instant: float, task: Task) -> str:
    zone = task.schedule.tz if task.schedule is not None else None
    return datetime.fromtimestamp(instant, zone).strftime("%Y-%m-%d %H:%M")


class Scheduler:
    """Fires the tasks of ``records`` through ``starter`` at their times."""

    def __init__(
        self,
        records: TaskRecords,
        starter: Starter,
        clock: Clock | None = None,
        *,
        catch_up_window: float = CATCH_UP_WINDOW,
        max_sleep: float = MAX_SLEEP,
        on_missed: Callable[[TaskRun], object] | None = None,
    ) -> None:
        self.records = records
        self.starter = starter
        self.clock = clock or SystemClock()
        self.catch_up_window = catch_up_window
        self.max_sleep = max_sleep
        self.on_missed = on_missed
        self.wakeups = 0
        """How many times the loop woke (the bench counts them)."""
        self._changed = asyncio.Event()
        self._loop_task: asyncio.Task[None] | None = None

    def start(self) -> None:
        """Fire what was missed while closed (once each, see the module doc) and start the timer loop."""
        if self._loop_task is None:
            self._loop_task = asyncio.get_running_loop().create_task(self._loop(), name="switchboard-task-scheduler")

    def wake(self) -> None:
        """A task was added, changed or removed: look again at what is due next."""
        self._changed.set()

    async def aclose(self) -> None:
        if self._loop_task is not None:
            self._loop_task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._loop_task
            self._loop_task = None

    def next_due(self) -> float | None:
        times = [t for t in (task.next_run() for task in self.records.all()) if t is not None]
        return min(times) if times else None

    async def _loop(self) -> None:
        while True:
            self._changed.clear()
            try:
                self.tick()
                due = self.next_due()
            except Exception:  # a store that fails (a full disk): said in the log, tried again at the next look
                log.exception("the task scheduler could not fire or read the tasks")
                due = None
            delay = self.max_sleep if due is None else min(max(0.0, due - self.clock.now()), self.max_sleep)
            sleeper = asyncio.ensure_future(self.clock.sleep(delay))
            changed = asyncio.ensure_future(self._changed.wait())
            try:
                await asyncio.wait({sleeper, changed}, return_when=asyncio.FIRST_COMPLETED)
            finally:
                sleeper.cancel()
                changed.cancel()
            self.wakeups += 1

    def tick(self) -> list[TaskRun]:
        """Fire every task due at the clock's now; the runs (and skipped/missed records) made."""
        now = self.clock.now()
        made: list[TaskRun] = []
        for task in self.records.all():
            run = self._fire(task, now)
            if run is not None:
                made.append(run)
        return made

    def _fire(self, task: Task, now: float) -> TaskRun | None:
        schedule = task.schedule
        if not task.enabled or schedule is None:
            return None
        first = schedule.next_after(task.anchor)
        if first is None or first > now:
            return None
        latest, count = first, 1
        while count < MAX_COUNT:
            following = schedule.next_after(latest)
            if following is None or following > now:
                break
            latest, count = following, count + 1
        done_once = schedule.kind == "once"
        earlier = f"{count - 1} earlier fire time(s) missed; " if count > 1 else ""
        if now - latest > self.catch_up_window:
            hours = self.catch_up_window / 3600
            note = (
                f"missed: {count} fire time(s) passed while Switchboard was not running (the last at "
                f"{_at(latest, task)}), more than {hours:g} hours ago, so none was run"
            )
            run = self.records.add_run(task.id, "schedule", "missed", scheduled_for=latest, note=note, ended=True)
            self.records.set_anchor(task.id, now, enabled=False if done_once else None)
            if self.on_missed is not None:
                self.on_missed(run)
            return run
        late = now - latest > LATE_GRACE or count > 1
        trigger: Trigger = "catch_up" if late else "schedule"
        note = (
            f"{earlier}catch-up run for {_at(latest, task)}, missed while Switchboard was not running" if late else ""
        )
        self.records.set_anchor(task.id, latest, enabled=False if done_once else None)
        return self.starter.start(task, trigger, scheduled_for=latest, note=note)
