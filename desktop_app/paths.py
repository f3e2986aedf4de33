"""Where Switchboard keeps its files: platformdirs, with one override (``SWITCHBOARD_HOME``) for tests and CLI.

With ``SWITCHBOARD_HOME`` set (or ``--home DIR``), settings, data and logs all live under that folder.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import platformdirs

APP_NAME = "switchboard"
HOME_ENV = "SWITCHBOARD_HOME"


@dataclass(frozen=True)
class AppPaths:
    """The app's three folders: settings and mcp.json, data (the store, plugins, bundles), and logs."""

    config_dir: Path
    data_dir: Path
    log_dir: Path

    @property
    def settings_file(self) -> Path:
        return self.config_dir / "settings.json"

    @property
    def mcp_config_file(self) -> Path:
        return self.config_dir / "mcp.json"

    def ensure(self) -> AppPaths:
        for folder in (self.config_dir, self.data_dir, self.log_dir):
            folder.mkdir(parents=True, exist_ok=True)
        return self


def app_paths(home: str | os.PathLike[str] | None = None) -> AppPaths:
    """The app's folders: under ``home`` (or ``$SWITCHBOARD_HOME``) if given, else the platform's."""
    root = home if home is not None else os.environ.get(HOME_ENV) or None
    if root:
        base = Path(root).expanduser().resolve()
        return AppPaths(base / "config", base / "data", base / "logs")
    return AppPaths(
        Path(platformdirs.user_config_dir(APP_NAME, appauthor=False)),
        Path(platformdirs.user_data_dir(APP_NAME, appauthor=False)),
        Path(platformdirs.user_log_dir(APP_NAME, appauthor=False)),
    )
