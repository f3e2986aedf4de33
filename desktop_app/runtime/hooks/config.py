"""Reading hooks from a config object: lifecycle hooks and MCP message hooks share one ``hooks`` key.

    "hooks": {
      "PreToolUse": [{"type": "command", "command": "~/bin/guard.sh", "match": "mcp__shell__.*", "timeout": 5}],
      "PostToolUse": [{"type": "http", "url": "http://127.0.0.1:8765/audit"}],
      "tools/call?direction=response": ["redactor/redact"]
    }

A key that is a lifecycle event name holds a list of hook objects; any other key is an MCP message hook
mapping (``method?param=value``) holding a list of ``server/tool`` targets. The same shape is read from
settings.json, mcp.json (top level, and per server where it holds message hooks only), a project's
``.switchboard/hooks.json``, a plugin's ``hooks/hooks.json`` and an imported file. Problems are returned
as text naming the file and the field; a broken entry is skipped, never guessed.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from desktop_app.runtime.hooks.message import HookMapping, HookTarget
from desktop_app.runtime.hooks.model import EVENTS, HookDef, HookSource, LifecycleHook

PROJECT_HOOKS_FILE = Path(".switchboard") / "hooks.json"
PLUGIN_HOOKS_FILE = Path("hooks") / "hooks.json"


@dataclass
class HookSet:
    """Every hook read from one or more sources, plus the problems found on the way."""

    lifecycle: list[LifecycleHook] = field(default_factory=list)
    mappings: list[HookMapping] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    def extend(self, other: HookSet) -> None:
        self.lifecycle.extend(other.lifecycle)
        self.mappings.extend(other.mappings)
        self.problems.extend(other.problems)


def parse_hooks(data: Any, source: HookSource, *, where: str = "hooks", scope: str | None = None) -> HookSet:
    """Hooks from one ``hooks`` object. ``scope`` (a server name) allows message hooks only."""
    found = HookSet()
    label = f"{source.path}: " if source.path is not None else ""
    if data is None:
        return found
    if not isinstance(data, Mapping):
        found.problems.append(f"{label}{where}: must be an object, got {type(data).__name__}")
        return found
    by_event: dict[str, list[LifecycleHook]] = {}
    for key, value in data.items():
        if not isinstance(key, str) or not key.strip():
            continue
        if key in EVENTS:
            if scope is not None:
                found.problems.append(f"{label}{where}.{key}: lifecycle hooks belong in the top-level 'hooks'")
                continue
            by_event[key] = _lifecycle(key, value, source, f"{label}{where}.{key}", found.problems)
            continue
        if key[:1].isupper() and "/" not in key and "?" not in key:
            found.problems.append(f"{label}{where}.{key}: unknown hook event; use one of {', '.join(EVENTS)}")
            continue
        values = [value] if isinstance(value, str) else value  # a bare string is accepted (nanobot's schema)
        if not isinstance(values, list):
            found.problems.append(f"{label}{where}.{key}: must be a list of 'server/tool' targets")
            continue
        targets: list[HookTarget] = []
        for index, item in enumerate(values):
            try:
                targets.append(HookTarget.parse(str(item)))
            except ValueError as exc:
                found.problems.append(f"{label}{where}.{key}[{index}]: {exc}")
        if targets:
            found.mappings.append(HookMapping(key, tuple(targets), source, scope))
    for event in EVENTS:  # grouped in the fixed event order, config order within an event
        found.lifecycle.extend(by_event.get(event, []))
    return found


def _lifecycle(event: str, value: Any, source: HookSource, where: str, problems: list[str]) -> list[LifecycleHook]:
    if not isinstance(value, list):
        problems.append(f"{where}: must be a list of hook objects")
        return []
    hooks: list[LifecycleHook] = []
    for index, item in _claude_groups(value, where, problems):
        try:
            definition = HookDef.model_validate(item)
        except ValidationError as exc:
            detail = "; ".join(f"{'.'.join(str(p) for p in e['loc']) or 'entry'}: {e['msg']}" for e in exc.errors())
            problems.append(f"{where}[{index}]: {detail}")
            continue
        if not definition.runnable:
            needs = {"command": "'command'", "http": "'url'", "mcp": "a 'target' of the form server/tool"}
            problems.append(f"{where}[{index}]: a {definition.type} hook needs {needs[definition.type]}")
            continue
        if source.folder is not None and definition.command:
            definition = definition.model_copy(update={"command": substitute_folder(definition.command, source)})
        hooks.append(LifecycleHook(event, definition, source, index))
    return hooks


CLAUDE_HOOK_FIELDS = frozenset({"type", "command", "url", "timeout", "headers", "allowedEnvVars"})
CLAUDE_DEFAULT_TIMEOUT_S = 60.0
"""Claude Code's default for a command hook without a ``timeout`` (Whale's is 600 s)."""


def _claude_groups(value: list[Any], where: str, problems: list[str]) -> list[tuple[int, Any]]:
    """The event's entries with Claude Code's ``{"matcher": …, "hooks": [{…}]}`` groups read as Claude Code
    reads them: each inner hook becomes one hook in Claude Code's format (``match`` = the group's matcher).
    Whale's flat entries are passed through. Positions count every hook, so they stay stable."""
    out: list[tuple[int, Any]] = []
    for gi, item in enumerate(value):
        if not (isinstance(item, Mapping) and isinstance(item.get("hooks"), list) and "command" not in item):
            out.append((len(out), item))
            continue
        matcher = item.get("matcher")
        for hi, inner in enumerate(item["hooks"]):
            at = f"{where}[{gi}].hooks[{hi}]"
            if not isinstance(inner, Mapping):
                problems.append(f"{at}: must be an object")
                continue
            kind = inner.get("type", "command")
            if kind not in ("command", "http"):
                problems.append(
                    f"{at}: a '{kind}' hook is not available in Switchboard (command and http are); skipped"
                )
                continue
            ignored = sorted(str(k) for k in inner if k not in CLAUDE_HOOK_FIELDS)
            if ignored:
                problems.append(f"{at}: {', '.join(ignored)} not supported here; the hook runs without it")
            entry = {k: v for k, v in inner.items() if k in CLAUDE_HOOK_FIELDS}
            entry.setdefault("timeout", CLAUDE_DEFAULT_TIMEOUT_S)
            if isinstance(matcher, str) and matcher.strip() not in ("", "*"):
                entry["match"] = matcher
            out.append((len(out), {**entry, "format": "claude"}))
    return out


def substitute_folder(command: str, source: HookSource) -> str:
    """``${CLAUDE_PLUGIN_ROOT}``/``${WHALE_PLUGIN_ROOT}`` (a plugin's hooks) or ``${CLAUDE_PROJECT_DIR}`` (a
    project's) replaced by that folder, so the command, its review and its trust name the real files."""
    folder = str(source.folder)
    names = ("CLAUDE_PLUGIN_ROOT", "WHALE_PLUGIN_ROOT") if source.kind == "plugin" else ("CLAUDE_PROJECT_DIR",)
    for name in names:
        command = command.replace("${" + name + "}", folder)
        command = re.sub(r"\$" + name + r"(?![A-Za-z0-9_])", lambda _m: folder, command)
    return command


def read_hooks_file(path: Path, source: HookSource) -> HookSet:
    """Hooks from a JSON file holding ``{"hooks": {...}}`` (a missing file holds none)."""
    from desktop_app.runtime.errors import ConfigError
    from desktop_app.runtime.files import read_config_text
    from desktop_app.runtime.host.jsonfiles import parse_json

    try:  # read as mcp.json and settings.json are: a regular file, size-capped, the one JSON reader
        text = read_config_text(path)
        document = parse_json(text, path) if text.strip() else {}
    except FileNotFoundError:
        return HookSet()
    except ConfigError as exc:
        where = f" at line {exc.line}, column {exc.column}" if exc.line is not None else ""
        return HookSet(problems=[f"{path}: {exc.problem}{where}"])
    if not isinstance(document, dict):
        return HookSet(problems=[f"{path}: the top level must be a JSON object"])
    return read_config_hooks(document, source)


def read_config_hooks(document: Mapping[str, Any], source: HookSource) -> HookSet:
    """Top-level ``hooks`` plus every ``mcpServers.<name>.hooks`` (message hooks of that server)."""
    found = parse_hooks(document.get("hooks"), source)
    servers = document.get("mcpServers")
    if isinstance(servers, Mapping):
        for name, entry in servers.items():
            if isinstance(entry, Mapping) and entry.get("hooks") is not None:
                found.extend(parse_hooks(entry["hooks"], source, where=f"mcpServers.{name}.hooks", scope=str(name)))
    return found
