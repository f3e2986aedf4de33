"""What an import would do, before it does it: the other apps' config files found on this machine, and
for one file the servers it holds, which of them conflict or cannot be imported, and which values would
move to the keyring.

:func:`known_sources` looks where Claude Desktop (``claude_desktop_config.json``), VS Code and VS Code
Insiders (the user's ``mcp.json``), Cursor (``~/.cursor/mcp.json``), Claude Code (``~/.claude.json``) and Goose
(``~/.config/goose/config.yaml``, on Windows ``%APPDATA%\\Block\\goose\\config\\config.yaml``) keep their MCP
servers on the current platform, and returns those that exist. The preview carries the compatibility report
(:mod:`.import_compat`): one line per part of the source. :func:`preview_import` reads one
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

from desktop_app.runtime.host.import_compat import CompatLine
from desktop_app.runtime.host.import_formats import secret_part
from desktop_app.runtime.host.importers import (
    CLAUDE,
    CLAUDE_CODE,
    CURSOR,
    GOOSE,
    VSCODE,
    _problem,
    _read_target,
    move_all_secrets,
    read_source_full,
    secret_lines,
)
from desktop_app.runtime.host.launch_view import environment_lines


@dataclass(frozen=True)
class KnownSource:
    """A place an app keeps its MCP servers."""

    app: str
    path: Path


def _config_home() -> Path:
    return Path(os.environ.get("XDG_CONFIG_HOME") or Path.home() / ".config")


def known_locations() -> list[KnownSource]:
    """Where Claude Desktop, VS Code, Cursor, Claude Code and Goose keep MCP servers on this platform (existing
    or not)."""
    home = Path.home()
    if sys.platform == "darwin":
        support = home / "Library" / "Application Support"
        claude = support / "Claude" / "claude_desktop_config.json"
        vscode = [support / "Code" / "User" / "mcp.json", support / "Code - Insiders" / "User" / "mcp.json"]
        goose = home / ".config" / "goose" / "config.yaml"
    elif sys.platform == "win32":
        appdata = Path(os.environ.get("APPDATA") or home / "AppData" / "Roaming")
        claude = appdata / "Claude" / "claude_desktop_config.json"
        vscode = [appdata / "Code" / "User" / "mcp.json", appdata / "Code - Insiders" / "User" / "mcp.json"]
        goose = appdata / "Block" / "goose" / "config" / "config.yaml"
    else:
        config = _config_home()
        claude = config / "Claude" / "claude_desktop_config.json"
        vscode = [config / "Code" / "User" / "mcp.json", config / "Code - Insiders" / "User" / "mcp.json"]
        goose = config / "goose" / "config.yaml"
    locations = [KnownSource(CLAUDE, claude)]
    locations += [KnownSource(VSCODE, path) for path in vscode]
    locations.append(KnownSource(CURSOR, home / ".cursor" / "mcp.json"))
    locations.append(KnownSource(CLAUDE_CODE, home / ".claude.json"))
    locations.append(KnownSource(GOOSE, goose))
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
    lines: list[CompatLine] = field(default_factory=list)
    """The compatibility report: one line per part of the source, secrets that would move included."""
    to_enter: list[str] = field(default_factory=list)
    """Keyring entries the user will have to enter (VS Code password inputs, Goose env_keys)."""

    def as_dict(self) -> dict[str, Any]:
        """For ``switchboard import-config --dry-run --json``: names of secrets only, never values."""
        return {
            "source": str(self.source),
            "format": self.format,
            "servers": [
                {
                    "name": server.name,
                    "summary": server.summary,
                    "secrets": server.secrets,
                    "conflict": server.conflict,
                    "problem": server.problem,
                    "environment": server.environment,
                }
                for server in self.servers
            ],
            "lines": [line.as_dict() for line in self.lines],
            "to_enter": self.to_enter,
            "notes": self.notes,
        }


def _summary(entry: dict[str, Any]) -> str:
    if entry.get("command"):
        args = entry.get("args")
        words = [str(entry["command"]), *(str(a) for a in (args if isinstance(args, list) else []))]
        text = " ".join(words)
        return text if len(text) <= 120 else text[:119] + "…"
    return str(entry.get("url") or "")


def _moved(name: str, entry: dict[str, Any]) -> tuple[dict[str, Any], list[str], list[CompatLine]]:
    """The entry as :func:`import_config` would write it (secrets moved on a copy, storing nothing), the moved
    values described, and their compatibility lines."""
    trial = copy.deepcopy(entry)
    names = move_all_secrets(name, trial, lambda _k, _v: None)
    return trial, [secret_part(name, secret) for secret in names], secret_lines(name, trial, names)


def preview_import(source: Path, target: Path) -> ImportPreview:
    """What importing ``source`` into ``target`` would do; raises ``ConfigError`` for a broken file."""
    read = read_source_full(Path(source))
    existing = _read_target(target).get("mcpServers")
    existing_names = {str(key).strip() for key in existing} if isinstance(existing, dict) else set()
    found = []
    lines = list(read.lines)
    for name, entry in read.servers.items():
        problem = read.problems.get(name) or _problem(name, entry)
        secrets: list[str] = []
        if not problem:  # what is shown is the entry as it will be written: no secret value in it
            entry, secrets, moved_lines = _moved(name, entry)
            lines.extend(moved_lines)
        found.append(
            PreviewServer(
                name=name,
                summary=_summary(entry),
                secrets=secrets,
                conflict=name in existing_names,
                problem=problem.removeprefix(f"{name}: skipped, ") if problem else None,
                environment=[] if name in read.problems else environment_lines(name, entry),
            )
        )
    return ImportPreview(read.path, read.format, found, read.notes, lines, read.to_enter)


__all__ = ["ImportPreview", "KnownSource", "PreviewServer", "known_locations", "known_sources", "preview_import"]
