"""A task's schedule: nanobot's five-field cron, restricted to daily, weekly, monthly or a single date.

Accepted shapes (``M`` minute 0-59, ``H`` hour 0-23, both single numbers)::

    M H * * *        every day                      "0 9 * * *"
    M H * * DOW      weekly on some days            "0 9 * * 1-5", "30 7 * * mon,thu"  (0 and 7 are Sunday)
    M H D * *        monthly on some days           "0 8 1 * *", "0 8 1,15 * *"
    M H D Mo *       once, on a single date         "0 18 24 12 *"  (the year: the first such date to come)

Anything else (steps, minute or hour lists, a day of the month together with days of the week …) is refused
with a :class:`ScheduleError` that says which shapes are accepted. A schedule also has a time zone (an IANA
name, read with :mod:`zoneinfo`) and an optional expiration date (inclusive, in that zone); a single date's
expiration is that date. ``None`` instead of a schedule is "run now / on request only".

Fire times are computed here with :mod:`zoneinfo` (no croniter: four shapes and the daylight-saving rules
below are fewer lines than adapting croniter's general rules to them). The rules at a daylight-saving change,
in the schedule's zone:

* a wall time that does not exist (02:30 on a spring-forward day) fires once, at the first valid time after
  the gap (03:00 when clocks jump from 02:00 to 03:00);
* a wall time that happens twice (01:30 on a fall-back day) fires once, at its first occurrence.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from typing import Literal
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

Kind = Literal["daily", "weekly", "monthly", "once"]

_DAY_NAMES = ("sun", "mon", "tue", "wed", "thu", "fri", "sat")
_WEEKDAY_WORDS = ("Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday")
_SEARCH_DAYS = 366 * 9  # a 29 February comes back within 8 years
SHAPES = (
    "use 'M H * * *' (every day), 'M H * * DAYS' (weekly, e.g. '0 9 * * 1-5'), 'M H D * *' (monthly, e.g. "
    "'0 8 1 * *') or 'M H D MONTH *' (once, on a single date, e.g. '0 18 24 12 *'), with M and H single numbers"
)


class ScheduleError(ValueError):
    """A schedule that cannot be used; the message says what is wrong and what to write instead."""


def _number(text: str, low: int, high: int, what: str) -> int:
    if not text.isdigit():
        raise ScheduleError(f"The {what} field '{text}' must be a single number from {low} to {high}; {SHAPES}.")
    value = int(text)
    if not low <= value <= high:
        raise ScheduleError(f"The {what} '{value}' is out of range ({low}-{high}).")
    return value


def _days_of_week(text: str) -> frozenset[int]:
    days: set[int] = set()
    for item in text.lower().split(","):
        bounds = item.split("-")
        if len(bounds) > 2 or not all(bounds):
            raise ScheduleError(f"The day-of-week field '{text}' is not a day, a list or a range (e.g. 1-5).")
        values = [_DAY_NAMES.index(b) if b in _DAY_NAMES else _number(b, 0, 7, "day of the week") for b in bounds]
        first, last = values[0], values[-1]
        if last < first and not (last == 0 and len(values) == 2):
            raise ScheduleError(f"The day-of-week range '{item}' goes backwards.")
        if len(values) == 2 and last == 0:
            last = 7  # "5-0": Friday to Sunday
        days.update(v % 7 for v in range(first, last + 1))
    return frozenset(days)


def _days_of_month(text: str) -> frozenset[int]:
    return frozenset(_number(item, 1, 31, "day of the month") for item in text.split(","))


def _ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def _and(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def zone_named(name: str) -> ZoneInfo:
    """The IANA zone ``name`` ("Europe/Paris", "UTC"), or a ScheduleError that says how to write one."""
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError) as exc:
        raise ScheduleError(f"Unknown time zone '{name}': use an IANA name such as 'Europe/Paris' or 'UTC'.") from exc


@dataclass(frozen=True)
class Schedule:
    """A parsed cron line in a zone; build with :meth:`parse`."""

    cron: str
    zone: str
    kind: Kind
    minute: int
    hour: int
    weekdays: frozenset[int] = frozenset()  # 0 = Sunday
    monthdays: frozenset[int] = frozenset()
    month: int = 0
    expires: date | None = None

    @classmethod
    def parse(cls, cron: str, zone: str = "UTC", *, expires: date | None = None) -> Schedule:
        fields = cron.split()
        if len(fields) != 5:
            raise ScheduleError(
                f"A schedule has five fields (minute hour day month weekday), not {len(fields)}; {SHAPES}."
            )
        zone_named(zone)
        minute_f, hour_f, dom, month_f, dow = fields
        minute = _number(minute_f, 0, 59, "minute")
        hour = _number(hour_f, 0, 23, "hour")
        cron = " ".join(fields)
        if dom == "*" and month_f == "*":
            if dow == "*":
                return cls(cron, zone, "daily", minute, hour, expires=expires)
            return cls(cron, zone, "weekly", minute, hour, weekdays=_days_of_week(dow), expires=expires)
        if dow != "*":
            raise ScheduleError(f"A day of the month and days of the week together are not supported; {SHAPES}.")
        if month_f == "*":
            return cls(cron, zone, "monthly", minute, hour, monthdays=_days_of_month(dom), expires=expires)
        day = _number(dom, 1, 31, "day of the month")
        month = _number(month_f, 1, 12, "month")
        if day > (29 if month == 2 else 30 if month in (4, 6, 9, 11) else 31):
            raise ScheduleError(f"There is no day {day} in month {month}.")
        return cls(cron, zone, "once", minute, hour, monthdays=frozenset({day}), month=month, expires=expires)

    @property
    def tz(self) -> ZoneInfo:
        return ZoneInfo(self.zone)

    def pinned(self, now: float) -> Schedule:
        """A single date gets its year: it expires on the first such date from ``now`` on (others unchanged)."""
        if self.kind != "once" or self.expires is not None:
            return self
        first = self.next_after(now)
        if first is None:
            raise ScheduleError("This date does not come again.")
        return Schedule(**{**self.__dict__, "expires": datetime.fromtimestamp(first, self.tz).date()})

    def matches(self, day: date) -> bool:
        if self.kind == "daily":
            return True
        if self.kind == "weekly":
            return (day.isoweekday() % 7) in self.weekdays
        if self.kind == "monthly":
            return day.day in self.monthdays
        return day.month == self.month and day.day in self.monthdays

    def fire_time(self, day: date) -> float:
        """The instant (epoch seconds) this schedule fires on local ``day`` (DST rules in the module doc)."""
        zone = self.tz
        wall = datetime.combine(day, time(self.hour, self.minute))
        first = wall.replace(tzinfo=zone, fold=0)
        if first.astimezone(UTC).astimezone(zone).replace(tzinfo=None) == wall:
            return first.timestamp()  # exists (in a repeated hour, fold=0 is its first occurrence)
        # In a gap: fold=1 reads the wall time with the offset after the change, fold=0 with the one before;
        # the change lies between them. Fire at the first minute whose local time is past the wall time.
        low = int(wall.replace(tzinfo=zone, fold=1).timestamp())
        high = int(first.timestamp())
        low, high = min(low, high), max(low, high)
        instant = low
        while instant < high and datetime.fromtimestamp(instant, zone).replace(tzinfo=None) < wall:
            instant += 60
        return float(instant)

    def next_after(self, after: float) -> float | None:
        """The first fire time strictly after ``after`` (epoch seconds), or ``None`` once expired."""
        day = datetime.fromtimestamp(after, self.tz).date()
        for _ in range(_SEARCH_DAYS):
            if self.expires is not None and day > self.expires:
                return None
            if self.matches(day):
                instant = self.fire_time(day)
                if instant > after:
                    return instant
            day += timedelta(days=1)
        return None

    def describe(self) -> str:
        """The schedule in words: "Every weekday at 09:00, Europe/Paris"."""
        at = f"at {self.hour:02d}:{self.minute:02d}, {self.zone}"
        if self.kind == "once":
            day = min(self.monthdays)
            year = f"{self.expires.year}-" if self.expires is not None else ""
            return f"Once on {year}{self.month:02d}-{day:02d} {at}"
        if self.kind == "daily":
            words = f"Every day {at}"
        elif self.kind == "weekly":
            days = sorted(self.weekdays, key=lambda d: (d + 6) % 7)  # Monday first
            if set(days) == {1, 2, 3, 4, 5}:
                words = f"Every weekday {at}"
            elif set(days) == {0, 6}:
                words = f"Every weekend day {at}"
            elif len(days) == 7:
                words = f"Every day {at}"
            else:
                words = f"Every {_and([_WEEKDAY_WORDS[d] for d in days])} {at}"
        else:
            days_words = _and([_ordinal(d) for d in sorted(self.monthdays)])
            words = f"Monthly on the {days_words} {at}"
            if max(self.monthdays) > 28:
                words += " (months without that day are skipped)"
        if self.expires is not None:
            words += f", until {self.expires.isoformat()}"
        return words


def describe(schedule: Schedule | None) -> str:
    """A task's schedule in words; ``None``: it runs only when asked."""
    return "On request only" if schedule is None else schedule.describe()


_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")


def parse_date(text: str) -> date:
    """An expiration date as ``YYYY-MM-DD``."""
    if not _DATE.match(text.strip()):
        raise ScheduleError(f"The expiration date '{text}' must be written YYYY-MM-DD.")
    try:
        return date.fromisoformat(text.strip())
    except ValueError as exc:
        raise ScheduleError(f"The expiration date '{text}' is not a real date.") from exc


def local_zone() -> str:
    """The computer's IANA zone name (the default for a new task), else ``UTC``."""
    from desktop_app.runtime.context import timezone_name

    name = timezone_name(datetime.now().astimezone().tzinfo, local=True)
    try:
        ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        return "UTC"
    return name
