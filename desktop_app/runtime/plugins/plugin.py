"""A plugin as Switchboard reads it (:class:`Plugin`, :class:`PluginError`), the files it may contribute
(:func:`read_inside`: inside its folder, regular, small) and the helpers every reader shares: the layout's
names, ``${CLAUDE_PLUGIN_ROOT}`` substitution and Whale's ``[[table]]`` entries. Imports nothing of the
plugin readers (:mod:`.model` reads a folder, :mod:`.commands` its prompts), so neither imports the other's
caller.
"""

from __future__ import annotations

import json
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from desktop_app.runtime.errors import SwitchboardError

CLAUDE_MANIFEST = Path(".claude-plugin") / "plugin.json"
WHALE_MANIFEST = Path("whale-plugin.toml")
WHALE_HOOKS = Path("hooks.toml")
ROOT_VARIABLE = "${CLAUDE_PLUGIN_ROOT}"
STANDARD_LAYOUT = ("commands", "agents", "skills", "hooks/hooks.json", ".mcp.json")
"""Where Claude Code finds a plugin's parts without a manifest (its plugins reference: "standard layout")."""
_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")


class PluginError(SwitchboardError):
    code = "plugin_error"


@dataclass
class Plugin:
    id: str
    format: str  # "claude" or "whale"
    folder: Path
    version: str = ""
    description: str = ""
    author: str = ""
    servers: dict[str, dict[str, Any]] = field(default_factory=dict)
    hooks: dict[str, Any] = field(default_factory=dict)
    """In Switchboard's (Whale's) hook format, ``${CLAUDE_PLUGIN_ROOT}`` not yet substituted."""
    skills: list[str] = field(default_factory=list)
    prompts: list[str] = field(default_factory=list)
    agents: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    """How a part was translated (a Claude Code matcher naming Claude Code's tools, and what it matches here)."""
    permissions: list[str] = field(default_factory=list)
    """What the manifest says the plugin needs (Whale's ``permissions``), shown before it is enabled."""

    @property
    def hook_count(self) -> int:
        return sum(len(v) for v in self.hooks.values() if isinstance(v, list))


MAX_PLUGIN_FILE_BYTES = 1024 * 1024
"""A manifest, hooks file, agent or command of a plugin is small; a bigger one is refused."""


def read_inside(folder: Path, path: Path, *, limit: int = MAX_PLUGIN_FILE_BYTES) -> str:
    """The text of a file the plugin contributes. It must resolve inside ``folder`` (a symlink to a private key
    is refused), be a regular file (never a FIFO or a device: opened without blocking) and at most ``limit``
    bytes. ``FileNotFoundError`` when missing; :class:`PluginError` saying what is wrong otherwise."""
    from desktop_app.runtime.errors import ConfigError
    from desktop_app.runtime.files import read_config_text

    try:
        real = path.resolve(strict=True)
    except FileNotFoundError:
        raise
    except (OSError, RuntimeError) as exc:
        raise PluginError(f"{path}: cannot be read ({exc})") from None
    if not real.is_relative_to(folder.resolve()):
        raise PluginError(f"{path}: refused: it resolves to {real}, outside the plugin's folder")
    try:
        return read_config_text(real, limit=limit)
    except ConfigError as exc:
        raise PluginError(f"{path}: {exc.problem}") from None


def _json(path: Path, folder: Path) -> Any:
    try:
        text = read_inside(folder, path)
    except FileNotFoundError:
        return None
    try:
        return json.loads(text)
    except (ValueError, RecursionError) as exc:
        raise PluginError(f"{path}: cannot be read as JSON ({exc})") from None


def substitute_root(value: Any, root: Path) -> Any:
    """``value`` with ``${CLAUDE_PLUGIN_ROOT}`` (and Whale's ``${WHALE_PLUGIN_ROOT}``) replaced by ``root``
    (strings, lists and dicts)."""
    if isinstance(value, str):
        return value.replace(ROOT_VARIABLE, str(root)).replace("${WHALE_PLUGIN_ROOT}", str(root))
    if isinstance(value, list):
        return [substitute_root(v, root) for v in value]
    if isinstance(value, dict):
        return {k: substitute_root(v, root) for k, v in value.items()}
    return value


def whale_entries(plugin: Plugin, table: str, text_key: str) -> list[tuple[str, dict[str, Any], Any]]:
    """Whale's ``[[table]]`` entries that have a name: ``(where, entry, text)`` each, where ``text`` is the
    file the entry names (read; it must be inside the plugin) or else the entry's ``text_key`` value.

    An entry without a name, or whose file is outside the plugin or unreadable, is left out with its
    problem on ``plugin.problems``; an unreadable manifest gives nothing (``read_plugin`` reported it)."""
    try:
        manifest = tomllib.loads(read_inside(plugin.folder, plugin.folder / WHALE_MANIFEST))
    except (OSError, ValueError, RecursionError, PluginError):
        return []
    found: list[tuple[str, dict[str, Any], Any]] = []
    entries = manifest.get(table, [])
    for index, entry in enumerate(entries if isinstance(entries, list) else []):
        where = f"{plugin.folder / WHALE_MANIFEST}: {table}[{index}]"
        if not isinstance(entry, dict) or not isinstance(entry.get("name"), str) or not entry["name"].strip():
            plugin.problems.append(f"{where}: needs a name")
            continue
        text = entry.get(text_key)
        if isinstance(entry.get("file"), str):
            path = (plugin.folder / entry["file"]).resolve()
            if not path.is_relative_to(plugin.folder):
                plugin.problems.append(f"{where}: file {entry['file']!r} is outside the plugin")
                continue
            try:
                text = read_inside(plugin.folder, path)
            except (OSError, PluginError) as exc:
                plugin.problems.append(f"{where}: cannot read {entry['file']!r} ({exc})")
                continue
        found.append((where, entry, text))
    return found
