"""What an import would do, before it does it: the other apps' config files found on this machine, and
for one file the servers it holds, which of them conflict or cannot be imported, and which values would
move to the keyring.

:func:`known_sources` looks where Claude Desktop (``claude_desktop_config.json``), VS Code and VS Code
Insiders (the user's ``mcp.json``) and Cursor (``~/.cursor/mcp.json``) keep their MCP servers on the
current platform, and returns those that exist. :func:`preview_import` reads one
source like :func:`~desktop_app.runtime.host.importers.import_config` would, without writing anything
and without touching the keyring.
"""

from __future__ import annotations

import copy
import os
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from desktop_app.runtime.host.importers import CLAUDE, CURSOR, VSCODE, _problem, _read_target, read_source
from desktop_app.runtime.host.launch_view import environment_lines
from desktop_app.runtime.host.secrets import move_secret_args, move_secrets


@dataclass(frozen=True)
class KnownSource:
    """A place an app keeps its MCP servers."""

    app: str
    path: Path


def _config_home() -> Path:
    return Path(os.environ.get("XDG_CONFIG_HOME") or Path.home() / ".config")


def known_locations() -> list[KnownSource]:
    """Where Claude Desktop, VS Code and Cursor keep MCP servers on this platform (existing or not)."""
    home = Path.home()
    if sys.platform == "darwin":
        support = home / "Library" / "Application Support"
        claude = support / "Claude" / "claude_desktop_config.json"
        vscode = [support / "Code" / "User" / "mcp.json", support / "Code - Insiders" / "User" / "mcp.json"]
    elif sys.platform == "win32":
        appdata = Path(os.environ.get("APPDATA") or home / "AppData" / "Roaming")
        claude = appdata / "Claude" / "claude_desktop_config.json"
        vscode = [appdata / "Code" / "User" / "mcp.json", appdata / "Code - Insiders" / "User" / "mcp.json"]
    else:
        config = _config_home()
        claude = config / "Claude" / "claude_desktop_config.json"
        vscode = [config / "Code" / "User" / "mcp.json", config / "Code - Insiders" / "User" / "mcp.json"]
    locations = [KnownSource(CLAUDE, claude)]
    locations += [KnownSource(VSCODE, path) for path in vscode]
    locations.append(KnownSource(CURSOR, home / ".cursor" / "mcp.json"))
    return locations


def known_sources() -> list[KnownSource]:
    """The known locations that hold a file."""
    return [source for source in known_locations() if source.path.is_file()]


@dataclass
class PreviewServer:
    """One server of the source as it would be imported."""

    name: str
    summary: str
    """``command arg …`` or the URL."""
    secrets: list[str] = field(default_factory=list)
    """What moves to the keyring, e.g. ``env GITHUB_TOKEN`` (names only, never values)."""
    conflict: bool = False
    """``mcp.json`` already has a server of this name (importing it replaces that one)."""
    problem: str | None = None
    """Why it cannot be imported (then it cannot be chosen)."""
    environment: list[str] = field(default_factory=list)
    """Every env entry, header and secret reference it will be handed (:mod:`.launch_view`), values of
    secrets never shown."""


@dataclass
class ImportPreview:
    source: Path
    format: str
    servers: list[PreviewServer]
    notes: list[str]


def _summary(entry: dict[str, Any]) -> str:
    if entry.get("command"):
        args = entry.get("args")
        words = [str(entry["command"]), *(str(a) for a in (args if isinstance(args, list) else []))]
        text = " ".join(words)
        return text if len(text) <= 120 else text[:119] + "…"
    return str(entry.get("url") or "")


def _moved(name: str, entry: dict[str, Any]) -> list[str]:
    """Describe the values :func:`import_config` would move to the keyring (on a copy, storing nothing)."""
    trial = copy.deepcopy(entry)
    names = move_secrets(name, trial, lambda _k, _v: None) + move_secret_args(name, trial, lambda _k, _v: None)
    described = []
    prefix = f"mcp:{name}:"
    for secret in names:
        rest = secret.removeprefix(prefix)
        if rest.startswith("header:"):
            described.append(f"header {rest.removeprefix('header:')}")
        elif rest.startswith("arg:"):
            described.append(f"argument {int(rest.removeprefix('arg:')) + 1}")
        else:
            described.append(f"env {rest}")
    return described


def preview_import(source: Path, target: Path) -> ImportPreview:
    """What importing ``source`` into ``target`` would do; raises ``ConfigError`` for a broken file."""
    kind, servers, notes, read_path = read_source(Path(source))
    existing = _read_target(target).get("mcpServers")
    existing_names = {str(key).strip() for key in existing} if isinstance(existing, dict) else set()
    found = []
    for name, entry in servers.items():
        problem = _problem(name, entry)
        found.append(
            PreviewServer(
                name=name,
                summary=_summary(entry),
                secrets=[] if problem else _moved(name, entry),
                conflict=name in existing_names,
                problem=problem.removeprefix(f"{name}: skipped, ") if problem else None,
                environment=environment_lines(name, entry),
            )
        )
    return ImportPreview(read_path, kind, found, notes)


__all__ = ["ImportPreview", "KnownSource", "PreviewServer", "known_locations", "known_sources", "preview_import"]
