"""``switchboard.system``: the current time with its zone, and facts about the machine and the app."""

from __future__ import annotations

import os
import platform
from datetime import UTC, datetime
from pathlib import Path

import pytest

from desktop_app import __version__
from desktop_app.paths import AppPaths
from desktop_app.runtime.builtins.system import describe_time, local_zone_name, make_system_server
from desktop_app.runtime.host import Host

WINTER = datetime(2026, 1, 15, 11, 30, 0, tzinfo=UTC)
SUMMER = datetime(2026, 7, 1, 22, 15, 0, tzinfo=UTC)


def test_zone_from_tz_variable(tmp_path: Path) -> None:
    assert local_zone_name({"TZ": "Europe/Oslo"}, tmp_path / "localtime") == "Europe/Oslo"
    assert local_zone_name({"TZ": ":America/New_York"}, tmp_path / "localtime") == "America/New_York"
    assert local_zone_name({"TZ": "Not/AZone"}, tmp_path / "localtime") is None
    assert local_zone_name({"TZ": "../../etc/passwd"}, tmp_path / "localtime") is None


@pytest.mark.skipif(not hasattr(os, "symlink") or os.name == "nt", reason="needs symlinks")
def test_zone_from_localtime_link_then_timezone_file(tmp_path: Path) -> None:
    link = tmp_path / "localtime"
    link.symlink_to("/usr/share/zoneinfo/Asia/Tokyo")
    assert local_zone_name({}, link) == "Asia/Tokyo"

    plain = tmp_path / "etc" / "localtime"
    plain.parent.mkdir()
    plain.write_bytes(b"TZif")  # a copied file, not a link: fall back to /etc/timezone
    (tmp_path / "etc" / "timezone").write_text("Europe/Berlin\n")
    assert local_zone_name({}, plain) == "Europe/Berlin"
    assert local_zone_name({}, tmp_path / "nowhere" / "localtime") is None


def test_describe_time_in_an_iana_zone_with_dst() -> None:
    winter = describe_time(WINTER, "Europe/Oslo")
    assert winter.iso == "2026-01-15T12:30:00+01:00"
    assert (winter.timezone, winter.utc_offset, winter.abbreviation) == ("Europe/Oslo", "+01:00", "CET")
    assert winter.weekday == "Thursday"
    assert winter.unix_seconds == WINTER.timestamp()
    summer = describe_time(SUMMER, "America/St_Johns")  # a half-hour zone, negative offset
    assert (summer.iso, summer.utc_offset, summer.abbreviation) == ("2026-07-01T19:45:00-02:30", "-02:30", "NDT")


@pytest.mark.asyncio
async def test_current_time_tool_local_and_named_zone(host: Host, paths: AppPaths) -> None:
    host.register_builtin(
        "switchboard.system", lambda: make_system_server(paths, now=lambda: WINTER, zone_name=lambda: "UTC")
    )

    local = await host.call("switchboard.system", "current_time", {})
    assert not local.is_error, local.text
    assert local.structured == {
        "iso": "2026-01-15T11:30:00+00:00",
        "timezone": "UTC",
        "utc_offset": "+00:00",
        "abbreviation": "UTC",
        "weekday": "Thursday",
        "unix_seconds": WINTER.timestamp(),
    }
    tokyo = await host.call("switchboard.system", "current_time", {"timezone": "Asia/Tokyo"})
    assert tokyo.structured is not None and tokyo.structured["iso"] == "2026-01-15T20:30:00+09:00"

    bad = await host.call("switchboard.system", "current_time", {"timezone": "Mars/Olympus"})
    assert bad.is_error
    assert bad.text == (
        "Error executing tool current_time: "
        "Unknown time zone 'Mars/Olympus'; use an IANA name such as 'Europe/Berlin' or 'UTC'."
    )


@pytest.mark.asyncio
async def test_current_time_without_a_known_zone_still_has_the_offset(host: Host, paths: AppPaths) -> None:
    host.register_builtin("switchboard.system", lambda: make_system_server(paths, zone_name=lambda: None))
    outcome = await host.call("switchboard.system", "current_time", {})
    assert outcome.structured is not None
    assert outcome.structured["timezone"] is None
    assert outcome.structured["utc_offset"][0] in "+-" and len(outcome.structured["utc_offset"]) == 6
    parsed = datetime.fromisoformat(outcome.structured["iso"])
    assert parsed.tzinfo is not None


@pytest.mark.asyncio
async def test_system_info_reports_platform_and_app(host: Host, paths: AppPaths) -> None:
    host.register_builtin("switchboard.system", lambda: make_system_server(paths))
    outcome = await host.call("switchboard.system", "system_info", {})
    assert not outcome.is_error, outcome.text
    assert outcome.structured is not None
    facts, app = outcome.structured["platform"], outcome.structured["app"]
    assert facts["os"] == platform.system() and facts["machine"] == platform.machine()
    assert facts["release"] == platform.release() and facts["python"] == platform.python_version()
    assert app == {
        "name": "switchboard",
        "version": __version__,
        "config_dir": str(paths.config_dir),
        "data_dir": str(paths.data_dir),
        "log_dir": str(paths.log_dir),
        "artifacts_dir": str(paths.data_dir / "artifacts"),
    }


@pytest.mark.asyncio
async def test_system_tools_are_read_only_with_bare_names(host: Host, paths: AppPaths) -> None:
    host.register_builtin("switchboard.system", lambda: make_system_server(paths))
    await host.ensure_connected("switchboard.system")
    tools = {t.name: t for t in host.tools()}
    assert set(tools) == {"current_time", "system_info"}
    assert all(t.read_only and t.builtin and t.server == "switchboard.system" for t in tools.values())
    assert tools["current_time"].input_schema["properties"]["timezone"]
