"""The login entries: XDG autostart on Linux, a LaunchAgent plist on macOS, each starting --background."""

from __future__ import annotations

import plistlib

from desktop_app.autostart import Autostart


def test_xdg_entry_goes_to_the_autostart_folder_and_comes_back_out(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    entry = Autostart(platform="linux")
    assert entry.location == str(tmp_path / "xdg" / "autostart" / "switchboard.desktop")
    assert not entry.enabled()
    assert entry.apply(True) and entry.enabled()
    text = (tmp_path / "xdg" / "autostart" / "switchboard.desktop").read_text(encoding="utf-8")
    assert text.startswith("[Desktop Entry]\nType=Application\nName=Switchboard\n")
    assert "--background" in text and "--home" not in text
    assert not entry.apply(True)  # unchanged: nothing written
    assert entry.apply(False) and not entry.enabled()
    assert not entry.apply(False)


def test_launch_agent_plist_runs_at_load_with_the_home_folder(tmp_path):
    home = tmp_path / "sbhome"
    entry = Autostart(home=home, platform="darwin")
    assert entry.location == str(home / "autostart" / "app.switchboard.plist")
    assert entry.apply(True)
    plist = plistlib.loads((home / "autostart" / "app.switchboard.plist").read_bytes())
    assert plist["Label"] == "app.switchboard" and plist["RunAtLoad"] is True
    assert plist["ProgramArguments"][-3:] == ["--home", str(home), "--background"]
