"""The scheduler with a fake clock: DST in two zones, missed fires, overlap, expiration, single date, one timer."""

from __future__ import annotations

from typing import Any

import pytest

from desktop_app.runtime.store import Store
from desktop_app.runtime.tasks import Tasks
from tests.unit.runtime.tasks.conftest import FakeClock, GateRuntime, at, local


def make(store: Store, clock: FakeClock, runtime: GateRuntime | None = None) -> Tasks:
    return Tasks(runtime or GateRuntime(), store, clock=clock)


def run_days(tasks: Tasks, clock: FakeClock, start: float, hours: int) -> list[str]:
    """Tick every 10 minutes over ``hours``; the local times of the fires (finishing each run at once)."""
    fired: list[str] = []
    clock.set(start)
    for _ in range(hours * 6):
        clock.advance(600)
        for run in tasks.scheduler.tick():
            assert run.scheduled_for is not None
            zone = tasks.find(run.task_id).schedule.zone  # type: ignore[union-attr]
            fired.append(f"{run.trigger} {local(run.scheduled_for, zone)}")
            tasks.runner.runtime.finish(run.conversation_id)  # type: ignore[attr-defined]
    return fired


@pytest.mark.asyncio
async def test_fall_back_runs_once_not_twice(store: Store, clock: FakeClock) -> None:
    for zone, day, hour in (("Europe/Paris", "2026-10-25", 2), ("America/New_York", "2026-11-01", 1)):
        tasks = make(store, clock)
        clock.set(at(f"{day} 00:00", zone))
        task = tasks.create(name=f"fold {zone}", prompt="p", schedule=f"30 {hour} * * *", zone=zone)
        fired = run_days(tasks, clock, clock.now(), 5)  # covers both occurrences of the repeated hour
        assert fired == [f"schedule {day} {hour:02d}:30 {'CEST' if zone == 'Europe/Paris' else 'EDT'}"]
        tasks.delete(task.id)
        await tasks.aclose()


@pytest.mark.asyncio
async def test_spring_forward_runs_once_after_the_gap(store: Store, clock: FakeClock) -> None:
    for zone, day in (("Europe/Paris", "2026-03-29"), ("America/New_York", "2026-03-08")):
        tasks = make(store, clock)
        clock.set(at(f"{day} 00:00", zone))
        task = tasks.create(name=f"gap {zone}", prompt="p", schedule="30 2 * * *", zone=zone)
        fired = run_days(tasks, clock, clock.now(), 5)
        assert fired == [f"schedule {day} 03:00 {'CEST' if zone == 'Europe/Paris' else 'EDT'}"]
        tasks.delete(task.id)
        await tasks.aclose()


@pytest.mark.asyncio
async def test_missed_while_closed_runs_once_not_n_times(store: Store, clock: FakeClock) -> None:
    runtime = GateRuntime()
    tasks = make(store, clock, runtime)
    tasks.create(name="hourly-ish", prompt="p", schedule="0 9 * * *")
    await tasks.aclose()  # "the app closes" for three days and comes back at 10:00, within the window
    clock.set(at("2026-03-04 10:00"))
    reopened = make(store, clock, runtime)
    made = reopened.scheduler.tick()
    assert [(r.trigger, r.status) for r in made] == [("catch_up", "running")]
    assert made[0].scheduled_for == at("2026-03-04 09:00")
    assert "2 earlier fire time(s) missed" in made[0].note and "catch-up run" in made[0].note
    runtime.finish(made[0].conversation_id or "")
    assert reopened.scheduler.tick() == []  # nothing more is due today: no burst
    await reopened.aclose()


@pytest.mark.asyncio
async def test_missed_beyond_the_window_is_recorded_not_run(store: Store, clock: FakeClock) -> None:
    tasks = make(store, clock)
    task = tasks.create(name="morning", prompt="p", schedule="0 9 * * *")
    told: list[str] = []
    tasks.runner.add_listener(lambda run: told.append(run.status))  # the window and serve say it too
    clock.set(at("2026-03-02 23:00"))  # 14 hours after the 09:00 fire: beyond the 12-hour window
    made = tasks.scheduler.tick()
    assert told == ["missed"]
    assert [(r.trigger, r.status) for r in made] == [("schedule", "missed")]
    assert "more than 12 hours ago, so none was run" in made[0].note
    assert tasks.history(task.id)[0].status == "missed"
    assert tasks.find(task.id).next_run() == at("2026-03-03 09:00")
    await tasks.aclose()


@pytest.mark.asyncio
async def test_overlap_is_skipped_and_recorded(store: Store, clock: FakeClock) -> None:
    runtime = GateRuntime()
    tasks = make(store, clock, runtime)
    task = tasks.create(name="slow", prompt="p", schedule="0 9 * * *")
    clock.set(at("2026-03-02 09:00"))
    first = tasks.scheduler.tick()
    assert [r.status for r in first] == ["running"]
    clock.set(at("2026-03-03 09:00"))  # still running a day later
    second = tasks.scheduler.tick()
    assert [(r.status, r.note) for r in second] == [("skipped", "skipped: still running")]
    runtime.finish(first[0].conversation_id or "")
    done = await tasks.runner.wait(task.id)
    assert done is not None and (done.status, done.first_line) == ("finished", "answer c1")
    assert [r.status for r in tasks.history(task.id)] == ["skipped", "finished"]
    await tasks.aclose()


@pytest.mark.asyncio
async def test_expiration_stops_the_task(store: Store, clock: FakeClock) -> None:
    tasks = make(store, clock)
    task = tasks.create(name="short", prompt="p", schedule="0 9 * * *", expires="2026-03-02")
    fired = run_days(tasks, clock, clock.now(), 24 * 4)
    assert fired == ["schedule 2026-03-02 09:00 UTC"]
    assert tasks.find(task.id).next_run() is None
    assert tasks.scheduler.next_due() is None
    await tasks.aclose()


@pytest.mark.asyncio
async def test_single_date_is_disabled_after_firing(store: Store, clock: FakeClock) -> None:
    tasks = make(store, clock)
    task = tasks.create(name="eve", prompt="p", schedule="0 18 3 3 *", zone="Europe/Berlin")
    assert task.when() == "Once on 2026-03-03 at 18:00, Europe/Berlin"
    fired = run_days(tasks, clock, clock.now(), 24 * 3)
    assert fired == ["schedule 2026-03-03 18:00 CET"]
    assert not tasks.find(task.id).enabled
    await tasks.aclose()


@pytest.mark.asyncio
async def test_one_timer_sleeps_until_the_next_due_task(store: Store, clock: FakeClock) -> None:
    runtime = GateRuntime()
    tasks = make(store, clock, runtime)
    for n in range(20):
        tasks.create(name=f"t{n}", prompt="p", schedule=f"{n} 9 * * *")
    tasks.start()
    await clock.asleep()
    assert clock.sleeps == [tasks.scheduler.max_sleep]  # 21 hours away: one sleep, capped, not a poll
    assert tasks.scheduler.wakeups == 0
    clock.set(at("2026-03-02 08:59"))  # the capped sleep ends: it looks again and sleeps to 09:00 exactly
    await clock.asleep()
    assert clock.sleeps[-1] == 60
    clock.set(at("2026-03-02 09:00"))
    await runtime.started.wait()
    await clock.asleep()
    assert clock.sleeps[-1] == 60  # t1 at 09:01
    assert [r.task_id for r in tasks.runner.active()] == [tasks.find("t0").id]
    tasks.create(name="soon", prompt="p", schedule="0 9 * * *")  # a change wakes it at once
    await clock.asleep()
    assert tasks.scheduler.wakeups == 3
    await tasks.aclose()


@pytest.mark.asyncio
async def test_a_failing_look_is_logged_and_the_timer_goes_on(
    store: Store, clock: FakeClock, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    import sqlite3

    tasks = make(store, clock)
    real = tasks.records.all
    failures = [sqlite3.OperationalError("database or disk is full")]

    def flaky() -> list[Any]:
        if failures:
            raise failures.pop()
        return real()

    monkeypatch.setattr(tasks.records, "all", flaky)
    tasks.start()
    await clock.asleep()
    assert clock.sleeps == [tasks.scheduler.max_sleep]
    assert "the task scheduler could not fire or read the tasks" in caplog.text
    tasks.create(name="t", prompt="p", schedule="10 12 * * *")  # a change wakes it: 12:10 is 10 minutes away
    await clock.asleep()
    assert clock.sleeps[-1] == 600
    await tasks.aclose()
