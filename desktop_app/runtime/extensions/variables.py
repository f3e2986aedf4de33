"""A bundle's variables: the system ones (``${HOME}``, ``${DESKTOP}``, ``${/}``…), ``${NAME}`` substitution
(a whole ``${user_config.KEY}`` argument of a ``multiple`` value expands into one argument per item), where
bundles are installed (:func:`configure`, called when the app is assembled: the start-up imports only this
module of the package), and a bundle's command as it starts. Used by install, review, user_config and launch
(which re-exports them); imports nothing of the extensions package.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

_VARIABLE = re.compile(r"\$\{([^}]+)\}")
WHOLE_USER_CONFIG = re.compile(r"^\$\{(user_config\.[^}]+)\}$")
EXTENSIONS_FOLDER = "extensions"


@dataclass
class _Where:
    """Where installed bundles and their settings live (set by :func:`configure`)."""

    data_dir: Path | None = None
    settings_file: Path | None = None


_WHERE = _Where()


def configure(data_dir: Path, settings_file: Path) -> None:
    """Where installed bundles (``<data>/extensions/<name>``) and their non-sensitive values live."""
    _WHERE.data_dir, _WHERE.settings_file = data_dir, settings_file


def extensions_dir(data_dir: Path) -> Path:
    return data_dir / EXTENSIONS_FOLDER


def system_variables() -> dict[str, str]:
    home = Path.home()
    return {
        "HOME": str(home),
        "DESKTOP": str(home / "Desktop"),
        "DOCUMENTS": str(home / "Documents"),
        "DOWNLOADS": str(home / "Downloads"),
        "pathSeparator": os.sep,
        "/": os.sep,
    }


def substitute(value: Any, variables: Mapping[str, str | list[str]]) -> Any:
    """``value`` (a string, list or dict) with each known ``${NAME}`` replaced; unknown ones stay."""
    if isinstance(value, str):

        def one(match: re.Match[str]) -> str:
            found = variables.get(match.group(1))
            if found is None:
                return match.group(0)
            return ",".join(found) if isinstance(found, list) else found

        return _VARIABLE.sub(one, value)
    if isinstance(value, list):
        out: list[Any] = []
        for item in value:
            whole = WHOLE_USER_CONFIG.match(item) if isinstance(item, str) else None
            found = variables.get(whole.group(1)) if whole else None
            if isinstance(found, list):
                out.extend(found)
            else:
                out.append(substitute(item, variables))
        return out
    if isinstance(value, dict):
        return {key: substitute(item, variables) for key, item in value.items()}
    return value


def bundle_command(folder: Path, command: str) -> str:
    """``command`` (substituted) as it starts: a relative path (``server/my-server``) is the bundle's file, not
    one under the app's folder; on Windows ``.exe`` is added where only that file exists, as the spec says."""
    if ("/" in command or "\\" in command) and not Path(command).is_absolute():
        command = str(folder / command)
    windows_binary = os.name == "nt" and Path(command).is_absolute() and not Path(command).suffix
    if windows_binary and Path(command + ".exe").is_file():
        command += ".exe"
    return command
