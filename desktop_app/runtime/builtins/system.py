"""``switchboard.system``: the current time and facts about this machine and this app (read-only tools).

Tools (bare names, all ``readOnlyHint``, so they never ask for approval):

* ``current_time(timezone=None)``: ISO 8601 time, the IANA zone name when known, the UTC offset and the
  zone abbreviation; in the local zone, or in the IANA zone the model names.
* ``system_info()``: the operating system, its release and version, the machine, Python, and the app's
  name, version and folders.

The local IANA zone name is not something Python knows by itself: it comes from ``TZ``, the
``/etc/localtime`` link or ``/etc/timezone``; elsewhere (Windows) it is reported as unknown and the
offset still says where the clock stands.
"""

from __future__ import annotations

import os
import platform
import sys
from collections.abc import Callable, Mapping
from datetime import datetime, timedelta, tzinfo
from pathlib import Path
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

import mcp_types as mtypes
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import BaseModel, Field

from desktop_app import __version__
from desktop_app.paths import APP_NAME, AppPaths
from desktop_app.runtime.in_process import in_process_server

SERVER_NAME = "switchboard.system"
READ_ONLY = mtypes.ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True)

Now = Callable[[], datetime]
"""Returns an aware ``datetime`` for "now" (tests inject a fixed one)."""
ZoneName = Callable[[], str | None]
"""Returns the local IANA zone name, or ``None`` when it is not known."""


class CurrentTime(BaseModel):
    """What ``current_time`` returns."""

    iso: str = Field(description="ISO 8601 date and time with UTC offset")
    timezone: str | None = Field(description="IANA zone name (e.g. Europe/Oslo); null when not known")
    utc_offset: str = Field(description="Offset from UTC, e.g. +01:00")
    abbreviation: str = Field(description="Zone abbreviation, e.g. CET")
    weekday: str
    unix_seconds: float


class PlatformFacts(BaseModel):
    os: str
    release: str
    version: str
    machine: str
    python: str
    python_implementation: str


class AppFacts(BaseModel):
    name: str
    version: str
    config_dir: str
    data_dir: str
    log_dir: str
    artifacts_dir: str


class SystemInfo(BaseModel):
    """What ``system_info`` returns."""

    platform: PlatformFacts
    app: AppFacts


def _valid_zone(name: str) -> str | None:
    name = name.strip().lstrip(":")
    if not name or name.startswith("/") or ".." in name:
        return None
    try:
        ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        return None
    return name


def local_zone_name(
    environ: Mapping[str, str] | None = None,
    localtime: Path = Path("/etc/localtime"),
    timezone_file: Path | None = None,
) -> str | None:
    """The local IANA zone name: ``$TZ``, else the ``/etc/localtime`` link target, else ``/etc/timezone``."""
    env = os.environ if environ is None else environ
    if env.get("TZ"):
        return _valid_zone(env["TZ"])
    try:
        target = os.readlink(localtime)
    except OSError:
        target = ""
    marker = "zoneinfo/"
    if marker in target:
        found = _valid_zone(target.split(marker, 1)[1])
        if found:
            return found
    path = timezone_file or localtime.with_name("timezone")
    try:
        return _valid_zone(path.read_text(encoding="utf-8").splitlines()[0])
    except (OSError, IndexError, UnicodeDecodeError):
        return None


def _offset(delta: timedelta | None) -> str:
    minutes = int((delta or timedelta()).total_seconds() // 60)
    sign = "-" if minutes < 0 else "+"
    hours, rest = divmod(abs(minutes), 60)
    return f"{sign}{hours:02d}:{rest:02d}"


def describe_time(moment: datetime, zone_name: str | None) -> CurrentTime:
    """``moment`` (aware) in ``zone_name`` when given, else in its own zone."""
    zone: tzinfo | None = ZoneInfo(zone_name) if zone_name else None
    local = moment.astimezone(zone) if zone is not None else moment.astimezone()
    return CurrentTime(
        iso=local.isoformat(timespec="seconds"),
        timezone=zone_name,
        utc_offset=_offset(local.utcoffset()),
        abbreviation=local.tzname() or _offset(local.utcoffset()),
        weekday=local.strftime("%A"),
        unix_seconds=round(local.timestamp(), 3),
    )


def system_facts(paths: AppPaths) -> SystemInfo:
    """This machine and this app, as ``system_info`` reports them."""
    uname = platform.uname()
    return SystemInfo(
        platform=PlatformFacts(
            os=uname.system or sys.platform,
            release=uname.release,
            version=uname.version,
            machine=uname.machine,
            python=platform.python_version(),
            python_implementation=platform.python_implementation(),
        ),
        app=AppFacts(
            name=APP_NAME,
            version=__version__,
            config_dir=str(paths.config_dir),
            data_dir=str(paths.data_dir),
            log_dir=str(paths.log_dir),
            artifacts_dir=str(paths.data_dir / "artifacts"),
        ),
    )


def _now() -> datetime:
    return datetime.now().astimezone()


def make_system_server(paths: AppPaths, *, now: Now = _now, zone_name: ZoneName = local_zone_name) -> MCPServer:
    """A new ``switchboard.system`` server (the factory the host calls on first use)."""
    server = in_process_server(SERVER_NAME, version=__version__, log_level="WARNING")

    @server.tool(
        description=(
            "The current date and time: ISO 8601 with UTC offset, the IANA time zone name when known, the "
            "abbreviation and the weekday. Pass an IANA zone name (e.g. 'America/New_York') for another zone."
        ),
        annotations=READ_ONLY,
        structured_output=False,
    )
    async def current_time(timezone: str | None = None) -> CurrentTime:
        if timezone:
            name = _valid_zone(timezone)
            if name is None:
                raise ToolError(f"Unknown time zone {timezone!r}; use an IANA name such as 'Europe/Berlin' or 'UTC'.")
        else:
            name = zone_name()
        return describe_time(now(), name)

    @server.tool(
        description=(
            "Facts about this computer and this app: operating system, release, machine, Python version, and "
            "Switchboard's version and folders (config, data, logs, artifacts)."
        ),
        annotations=READ_ONLY,
        structured_output=False,
    )
    async def system_info() -> SystemInfo:
        return system_facts(paths)

    return server
