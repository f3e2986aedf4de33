"""The restricted cron: accepted shapes, refusals, words, and fire times across daylight-saving changes."""

from __future__ import annotations

from datetime import date

import pytest

from desktop_app.runtime.tasks.schedule import Schedule, ScheduleError
from tests.unit.runtime.tasks.conftest import at, local


def fires(schedule: Schedule, start: float, n: int) -> list[str]:
    out, t = [], start
    for _ in range(n):
        nxt = schedule.next_after(t)
        assert nxt is not None
        out.append(local(nxt, schedule.zone))
        t = nxt
    return out


@pytest.mark.parametrize(
    ("cron", "kind"),
    [
        ("0 9 * * *", "daily"),
        ("0 9 * * 1-5", "weekly"),
        ("30 7 * * mon,thu", "weekly"),
        ("0 8 1 * *", "monthly"),
        ("0 8 1,15 * *", "monthly"),
        ("0 18 24 12 *", "once"),
    ],
)
def test_accepted_shapes(cron: str, kind: str) -> None:
    assert Schedule.parse(cron, "Europe/Paris").kind == kind


@pytest.mark.parametrize(
    ("cron", "says"),
    [
        ("*/5 * * * *", "single number"),
        ("0 9,17 * * *", "single number"),
        ("0 9 1 * 1", "together are not supported"),
        ("0 9 * *", "five fields"),
        ("0 25 * * *", "out of range"),
        ("0 9 31 4 *", "no day 31 in month 4"),
        ("0 9 * * 5-1", "goes backwards"),
        ("0 9 * 3 *", "single number"),
    ],
)
def test_other_shapes_are_refused_with_what_to_write(cron: str, says: str) -> None:
    with pytest.raises(ScheduleError) as info:
        Schedule.parse(cron)
    assert says in str(info.value)


def test_unknown_zone_is_named() -> None:
    with pytest.raises(ScheduleError, match="Unknown time zone 'Mars/Olympus'"):
        Schedule.parse("0 9 * * *", "Mars/Olympus")


def test_words() -> None:
    assert Schedule.parse("0 9 * * 1-5", "Europe/Paris").describe() == "Every weekday at 09:00, Europe/Paris"
    assert Schedule.parse("0 8 1 * *").describe() == "Monthly on the 1st at 08:00, UTC"
    assert Schedule.parse("0 8 2,23 * *").describe() == "Monthly on the 2nd and 23rd at 08:00, UTC"
    assert Schedule.parse("5 7 * * 1,3,5").describe() == "Every Monday, Wednesday and Friday at 07:05, UTC"
    assert Schedule.parse("0 10 * * 6,0").describe() == "Every weekend day at 10:00, UTC"
    assert (
        Schedule.parse("0 7 * * *", expires=date(2027, 1, 31)).describe() == "Every day at 07:00, UTC, until 2027-01-31"
    )
    once = Schedule.parse("0 18 24 12 *", "Europe/Berlin").pinned(at("2026-03-01 12:00"))
    assert once.describe() == "Once on 2026-12-24 at 18:00, Europe/Berlin"
    assert "skipped" in Schedule.parse("0 8 31 * *").describe()


def test_weekly_and_monthly_fire_times() -> None:
    weekdays = Schedule.parse("0 9 * * 1-5", "Europe/Paris")
    # 2026-03-06 is a Friday: the next ones are Monday and Tuesday
    assert fires(weekdays, at("2026-03-06 10:00", "Europe/Paris"), 2) == [
        "2026-03-09 09:00 CET",
        "2026-03-10 09:00 CET",
    ]
    month_end = Schedule.parse("0 8 31 * *")
    assert fires(month_end, at("2026-03-01 00:00"), 2) == ["2026-03-31 08:00 UTC", "2026-05-31 08:00 UTC"]


@pytest.mark.parametrize(
    ("zone", "day", "expected"),
    [
        ("Europe/Paris", "2026-03-29", "2026-03-29 03:00 CEST"),
        ("America/New_York", "2026-03-08", "2026-03-08 03:00 EDT"),
    ],
)
def test_spring_forward_fires_once_at_the_end_of_the_gap(zone: str, day: str, expected: str) -> None:
    schedule = Schedule.parse("30 2 * * *", zone)
    got = fires(schedule, at(f"{day} 00:00", zone) - 86400, 3)
    assert got[1] == expected  # 02:30 does not exist: the first valid time after the gap
    assert got[0].endswith("02:30 " + ("CET" if zone == "Europe/Paris" else "EST"))
    assert got[2].endswith("02:30 " + ("CEST" if zone == "Europe/Paris" else "EDT"))  # once, then normal again


@pytest.mark.parametrize(("zone", "day"), [("Europe/Paris", "2026-10-25"), ("America/New_York", "2026-11-01")])
def test_fall_back_fires_once_at_the_first_occurrence(zone: str, day: str) -> None:
    hour = "02" if zone == "Europe/Paris" else "01"
    schedule = Schedule.parse(f"30 {int(hour)} * * *", zone)
    start = at(f"{day} 00:00", zone)
    first = schedule.next_after(start)
    assert first is not None
    second = schedule.next_after(first)
    assert second is not None
    assert local(first, zone).startswith(f"{day} {hour}:30")
    assert second - first == 25 * 3600  # the repeated hour is not a second fire: next is the next day
    assert local(second, zone).startswith(f"{day[:-2]}{int(day[-2:]) + 1:02d} {hour}:30")


def test_expiration_ends_the_schedule() -> None:
    schedule = Schedule.parse("0 9 * * *", expires=date(2026, 3, 3))
    assert fires(schedule, at("2026-03-01 12:00"), 2) == ["2026-03-02 09:00 UTC", "2026-03-03 09:00 UTC"]
    assert schedule.next_after(at("2026-03-03 09:00")) is None


def test_single_date_is_pinned_to_its_next_occurrence() -> None:
    once = Schedule.parse("0 9 1 3 *").pinned(at("2026-03-01 12:00"))  # today's 09:00 has passed: next year
    assert once.expires == date(2027, 3, 1)
    first = once.next_after(at("2026-03-01 12:00"))
    assert first == at("2027-03-01 09:00")
    assert once.next_after(first) is None
