""" "Start at login, in the tray": the platform's own autostart entry, written or removed to match the setting.

* Linux (and other XDG desktops): ``$XDG_CONFIG_HOME/autostart/switchboard.desktop``;
* Windows: the ``Switchboard`` value under ``HKCU\\Software\\Microsoft\\Windows\\CurrentVersion\\Run``;
* macOS: ``~/Library/LaunchAgents/app.switchboard.plist`` (``RunAtLoad``).

Each entry runs ``switchboard --background`` (plus ``--home DIR`` when the app runs on its own home folder).
With a home folder override (``--home``/``$SWITCHBOARD_HOME``: tests, portable installs) the Linux and macOS
entries are kept under ``DIR/autostart/`` instead, so a test never touches the user's real session, and the
Windows value name carries the folder's hash. Standard library only; no Qt.
"""

from __future__ import annotations

import os
import plistlib
import shlex
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

APP_ID = "app.switchboard"
RUN_KEY = r"Software\Microsoft\Windows\CurrentVersion\Run"


def launch_command(home: Path | None = None) -> list[str]:
    """How the login session starts Switchboard: the frozen executable, the ``switchboard`` script, or Python."""
    if getattr(sys, "frozen", False):
        command = [sys.executable]
    else:
        script = Path(sys.executable).with_name("switchboard.exe" if sys.platform == "win32" else "switchboard")
        command = [str(script)] if script.exists() else [sys.executable, "-m", "desktop_app"]
    if home is not None:
        command += ["--home", str(home)]
    return [*command, "--background"]


@dataclass(frozen=True)
class Autostart:
    """The autostart entry for one installation; ``home`` is the home-folder override, if any."""

    home: Path | None = None
    platform: str = sys.platform

    @property
    def location(self) -> str:
        """Where the entry lives (a file path, or the registry value), for messages."""
        if self.platform == "win32":
            return rf"HKCU\{RUN_KEY}\{self._value_name}"
        return str(self._file)

    @property
    def _value_name(self) -> str:
        if self.home is None:
            return "Switchboard"
        from desktop_app.instance import instance_key

        return f"Switchboard-{instance_key(str(self.home))}"

    @property
    def _file(self) -> Path:
        if self.platform == "darwin":
            folder = self.home / "autostart" if self.home else Path.home() / "Library" / "LaunchAgents"
            return folder / f"{APP_ID}.plist"
        if self.home is not None:
            return self.home / "autostart" / "switchboard.desktop"
        config = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
        return Path(config) / "autostart" / "switchboard.desktop"

    def command(self) -> list[str]:
        return launch_command(self.home)

    def content(self, command: Sequence[str] | None = None) -> bytes:
        """The file's bytes (Linux, macOS)."""
        argv = list(command or self.command())
        if self.platform == "darwin":
            plist = {"Label": APP_ID, "ProgramArguments": argv, "RunAtLoad": True, "ProcessType": "Interactive"}
            return plistlib.dumps(plist)
        return (
            "[Desktop Entry]\n"
            "Type=Application\n"
            "Name=Switchboard\n"
            "Comment=AI assistant and MCP host, started in the tray\n"
            f"Exec={shlex.join(argv)}\n"
            "Icon=switchboard\n"
            "Terminal=false\n"
            "X-GNOME-Autostart-enabled=true\n"
            "X-KDE-autostart-after=panel\n"
        ).encode()

    def enabled(self) -> bool:
        if self.platform == "win32":  # pragma: no cover - Windows
            return self._read_run_value() is not None
        return self._file.exists()

    def apply(self, enabled: bool) -> bool:
        """Write (``True``) or remove (``False``) the entry; returns whether anything changed."""
        if self.platform == "win32":  # pragma: no cover - Windows
            return self._apply_registry(enabled)
        path = self._file
        if not enabled:
            if path.exists():
                path.unlink()
                return True
            return False
        data = self.content()
        if path.exists() and path.read_bytes() == data:
            return False
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(path.suffix + ".tmp")
        tmp.write_bytes(data)
        os.replace(tmp, path)
        return True

    # The registry is Windows only: each body sits under ``sys.platform`` so that mypy checks winreg's calls
    # against its real stubs on Windows and skips them elsewhere.

    def _read_run_value(self) -> str | None:  # pragma: no cover - Windows
        if sys.platform == "win32":
            import winreg

            try:
                with winreg.OpenKey(winreg.HKEY_CURRENT_USER, RUN_KEY) as key:
                    return str(winreg.QueryValueEx(key, self._value_name)[0])
            except OSError:
                return None
        else:
            return None

    def _apply_registry(self, enabled: bool) -> bool:  # pragma: no cover - Windows
        if sys.platform == "win32":
            import subprocess
            import winreg

            current = self._read_run_value()
            with winreg.CreateKey(winreg.HKEY_CURRENT_USER, RUN_KEY) as key:
                if not enabled:
                    if current is None:
                        return False
                    winreg.DeleteValue(key, self._value_name)
                    return True
                value = subprocess.list2cmdline(self.command())
                if current == value:
                    return False
                winreg.SetValueEx(key, self._value_name, 0, winreg.REG_SZ, value)
                return True
        else:
            return False
