"""Reading a plugin folder into what it contributes.

Claude Code's layout: ``.claude-plugin/plugin.json`` (optional, as Claude Code documents it: without it the
folder's name is the plugin's name and its parts are found in the standard layout; with it, ``name`` required;
``version``, ``description``, ``author``; ``mcpServers``, ``hooks``, ``commands``, ``agents`` as paths or inline
objects), ``skills/*/SKILL.md``,
``hooks/hooks.json`` (``{"hooks": {"PostToolUse": [{"matcher": "Write", "hooks": [{"type": "command", …}]}]}}``),
``.mcp.json`` (``{"mcpServers": {…}}`` or the bare map), ``commands/*.md`` (prompts) and ``agents/*.md``.
``${CLAUDE_PLUGIN_ROOT}`` is the installed plugin's folder. Whale's layout: ``whale-plugin.toml`` (``id``
required; ``name``, ``version``, ``description``), with ``skills/``, ``hooks/hooks.json`` or ``hooks.toml``
(Whale's own hook format, ``[[hooks.SessionStart]]``), ``.mcp.json`` or ``mcp.json``, ``rules/*.md``
(in the system prompt, :mod:`.rules`), ``agents/``, ``[[prompts]]`` and ``[[agents]]`` tables and ``permissions``.
Prompts (``commands/*.md`` and ``[[prompts]]``) are served by :mod:`.prompts`; agents (``agents/*.md`` and
``[[agents]]``) become agent definitions in :mod:`.agents`.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path
from typing import Any

from desktop_app.runtime.plugins.commands import read_prompts
from desktop_app.runtime.plugins.plugin import (
    _ID,
    CLAUDE_MANIFEST,
    STANDARD_LAYOUT,
    WHALE_HOOKS,
    WHALE_MANIFEST,
    Plugin,
    PluginError,
    _json,
    read_inside,
    substitute_root,
    whale_entries,
)

HOOK_FIELDS = frozenset({"type", "command", "url", "timeout", "description", "headers", "allowedEnvVars"})
"""The fields of a Claude Code hook handler that Switchboard's hook runner reads; any other is reported."""
HOOK_TYPES = frozenset({"command", "http"})


def _known_events() -> tuple[str, ...]:
    from desktop_app.runtime.hooks.model import EVENTS

    return EVENTS


def _matcher_problem(matcher: Any) -> str:
    """Why a ``matcher`` cannot be used ("" when it can)."""
    if matcher is None:
        return ""
    if not isinstance(matcher, str):
        return f"the matcher must be a string, got {type(matcher).__name__}"
    try:
        re.compile(matcher)
    except re.error as exc:
        return f"the matcher {matcher!r} is not a regular expression ({exc})"
    return ""


def claude_hooks(document: Any, where: str, problems: list[str], notes: list[str] | None = None) -> dict[str, Any]:
    """Claude Code's nested hooks (``matcher`` groups) in the flat form the hook runner reads.

    What cannot be used is reported on ``problems`` (the plugin's page and ``switchboard plugins show``) and
    skipped, never passed on: an event Switchboard does not have (``UserPromptExpansion``), a hook type it
    does not run (``prompt``, ``agent``), a matcher that is no regular expression. A field it does not read
    (``statusMessage``, ``async`` …) is reported; the hook itself is kept.
    """
    hooks = document.get("hooks", document) if isinstance(document, dict) else None
    if not isinstance(hooks, dict):
        problems.append(f"{where}: 'hooks' must be an object of events")
        return {}
    from desktop_app.runtime.hooks.claude import matcher_note
    from desktop_app.runtime.hooks.config import CLAUDE_DEFAULT_TIMEOUT_S

    notes = [] if notes is None else notes
    events = _known_events()
    flat: dict[str, list[dict[str, Any]]] = {}
    for event, groups in hooks.items():
        if event not in events:
            problems.append(
                f"{where}: hooks.{event}: not an event Switchboard has (it has {', '.join(events)}); skipped"
            )
            continue
        if not isinstance(groups, list):
            problems.append(f"{where}: hooks.{event}: must be a list")
            continue
        for gi, group in enumerate(groups):
            at = f"{where}: hooks.{event}[{gi}]"
            if not isinstance(group, dict):
                problems.append(f"{at}: must be an object")
                continue
            matcher = group.get("matcher")
            why = _matcher_problem(matcher)
            if why:
                problems.append(f"{at}: {why}; its hooks are skipped")
                continue
            extra = sorted(k for k in group if k not in ("matcher", "hooks"))
            if extra and "hooks" in group:
                problems.append(f"{at}: {', '.join(extra)}: not used here; ignored")
            inner = group.get("hooks") if "hooks" in group else [group]
            for hi, hook in enumerate(inner if isinstance(inner, list) else []):
                if not isinstance(hook, dict):
                    continue
                kind = hook.get("type", "command")
                if kind not in HOOK_TYPES:
                    problems.append(
                        f"{at}.hooks[{hi}]: a {kind!r} hook does not run here (command and http do); skipped"
                    )
                    continue
                unused = sorted(k for k in hook if k not in HOOK_FIELDS and k != "matcher")
                if unused:
                    problems.append(f"{at}.hooks[{hi}]: {', '.join(unused)}: not used here; ignored")
                item = {k: v for k, v in hook.items() if k in HOOK_FIELDS}
                if isinstance(matcher, str) and matcher.strip() not in ("", "*"):
                    item["match"] = matcher
                    note = matcher_note(matcher) if event in ("PreToolUse", "PostToolUse", "PermissionRequest") else ""
                    if note and f"{event}: {note}" not in notes:
                        notes.append(f"{event}: {note}")
                item["format"] = "claude"  # Claude Code's input, output and exit codes (hooks/claude.py)
                item.setdefault("timeout", CLAUDE_DEFAULT_TIMEOUT_S)
                flat.setdefault(str(event), []).append(item)
    return flat


def whale_hooks(document: Any, where: str, problems: list[str]) -> dict[str, Any]:
    """Whale's flat hooks as they are, less a key that names an event Switchboard does not have (reported)."""
    hooks = document.get("hooks", {}) if isinstance(document, dict) else {}
    if not isinstance(hooks, dict):
        return {}
    events = _known_events()
    kept: dict[str, Any] = {}
    for key, value in hooks.items():
        looks_like_event = isinstance(key, str) and key[:1].isupper() and "/" not in key and "?" not in key
        if looks_like_event and key not in events:
            problems.append(f"{where}: hooks.{key}: not an event Switchboard has (it has {', '.join(events)}); skipped")
            continue
        kept[key] = value
    return kept


def _servers(document: Any, where: str) -> dict[str, dict[str, Any]]:
    if document is None:
        return {}
    if isinstance(document, dict) and isinstance(document.get("mcpServers"), dict):
        document = document["mcpServers"]
    if not isinstance(document, dict) or not all(isinstance(v, dict) for v in document.values()):
        raise PluginError(f"{where}: must map server names to server objects")
    return {str(k): dict(v) for k, v in document.items()}


def _names(folder: Path, pattern: str) -> list[str]:
    return sorted(p.parent.name if p.name == "SKILL.md" else p.stem for p in folder.glob(pattern))


def _permissions(value: Any) -> list[str]:
    """``permissions`` as a list of strings, or a table of ``name = true/"why"`` (Whale)."""
    if isinstance(value, list):
        return [str(v) for v in value]
    if isinstance(value, dict):
        return [k if v is True else f"{k}: {v}" for k, v in value.items() if v not in (False, None)]
    return [str(value)] if isinstance(value, str) and value else []


def read_plugin(folder: Path) -> Plugin:
    """Read the plugin in ``folder``; a folder that is no plugin, or a broken manifest, raises PluginError."""
    folder = folder.expanduser().resolve()
    if (folder / CLAUDE_MANIFEST).is_file():
        manifest = _json(folder / CLAUDE_MANIFEST, folder)
        if not isinstance(manifest, dict):
            raise PluginError(f"{folder / CLAUDE_MANIFEST}: must hold a JSON object")
        plugin_id = manifest.get("name")
        fmt = "claude"
    elif (folder / WHALE_MANIFEST).is_file():
        try:
            manifest = tomllib.loads(read_inside(folder, folder / WHALE_MANIFEST))
        except (OSError, ValueError, RecursionError) as exc:
            raise PluginError(f"{folder / WHALE_MANIFEST}: cannot be read as TOML ({exc})") from None
        plugin_id = manifest.get("id")
        fmt = "whale"
    elif any((folder / part).exists() for part in STANDARD_LAYOUT):
        # Claude Code's manifest is optional: the folder's name is the plugin's, its parts where they go
        manifest, plugin_id, fmt = {}, folder.name, "claude"
        if not _ID.match(plugin_id):
            raise PluginError(
                f"{folder}: a plugin without {CLAUDE_MANIFEST} is named after its folder, and '{plugin_id}' is no "
                f"usable name (letters, digits, '.', '_' and '-', at most 64): rename the folder or add "
                f'{CLAUDE_MANIFEST} with a "name"'
            )
    else:
        raise PluginError(
            f"{folder}: not a plugin: there is no {CLAUDE_MANIFEST} or {WHALE_MANIFEST}, and none of "
            f"{', '.join(STANDARD_LAYOUT)}"
        )
    where = folder / (CLAUDE_MANIFEST if fmt == "claude" else WHALE_MANIFEST)
    key = "name" if fmt == "claude" else "id"
    if not isinstance(plugin_id, str) or not _ID.match(plugin_id):
        raise PluginError(f"{where}: {key}: required, letters, digits, '.', '_' and '-' (at most 64)")
    author = manifest.get("author")
    plugin = Plugin(
        id=plugin_id,
        format=fmt,
        folder=folder,
        version=str(manifest.get("version", "")),
        description=str(manifest.get("description", "")),
        author=str(author.get("name", "")) if isinstance(author, dict) else str(author or ""),
    )
    declared = manifest.get("mcpServers")
    if isinstance(declared, dict):
        plugin.servers = _servers(declared, f"{where}: mcpServers")
    else:
        path = folder / declared if isinstance(declared, str) else None
        for candidate in [path] if path else [folder / ".mcp.json", folder / "mcp.json"]:
            if candidate.is_file():
                plugin.servers = _servers(_json(candidate, folder), str(candidate))
                break
    hooks_decl = manifest.get("hooks")
    hooks_file = folder / hooks_decl if isinstance(hooks_decl, str) else folder / "hooks" / "hooks.json"
    document = hooks_decl if isinstance(hooks_decl, dict) else _json(hooks_file, folder)
    if document is None and fmt == "whale" and (folder / WHALE_HOOKS).is_file():
        hooks_file = folder / WHALE_HOOKS  # Whale's hooks.toml: [[hooks.SessionStart]] command = … timeout = …
        try:
            document = tomllib.loads(read_inside(folder, hooks_file))
        except (OSError, ValueError, RecursionError, PluginError) as exc:
            plugin.problems.append(f"{hooks_file}: cannot be read as TOML ({exc}); its hooks are skipped")
    if document is not None:
        if fmt == "claude":
            plugin.hooks = claude_hooks(document, str(hooks_file), plugin.problems, plugin.notes)
        else:
            plugin.hooks = whale_hooks(document, str(hooks_file), plugin.problems)
    plugin.skills = _names(folder / "skills", "*/SKILL.md")
    from dataclasses import replace

    # its commands as the / menu names them (subfolders, Whale's commands.toml and [[prompts]]); their
    # problems are the compatibility report's (plugins/report.py), read from a copy
    plugin.prompts = [prompt.command for prompt in read_prompts(replace(plugin, problems=[]))]
    plugin.permissions = _permissions(manifest.get("permissions"))
    plugin.agents = _names(folder / "agents", "*.md")
    declared_agents = manifest.get("agents") if fmt == "whale" else None
    for entry in declared_agents if isinstance(declared_agents, list) else []:
        if isinstance(entry, dict) and isinstance(entry.get("name"), str) and entry["name"] not in plugin.agents:
            plugin.agents.append(entry["name"])
    return plugin


__all__ = ["Plugin", "PluginError", "claude_hooks", "read_inside", "read_plugin", "substitute_root"]


__all__ = [
    "CLAUDE_MANIFEST",
    "WHALE_MANIFEST",
    "Plugin",
    "PluginError",
    "claude_hooks",
    "read_inside",
    "read_plugin",
    "substitute_root",
    "whale_entries",
]
