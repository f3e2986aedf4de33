"""A plugin's compatibility report: one :class:`~desktop_app.runtime.compat.CompatLine` per part.

Each part a plugin brings (its manifest's fields, servers, skills, commands, agents, hooks, Whale's rules and
shell commands) works as in its source app, is translated (how), or is not available here (why); every
problem found while reading it is a "not available" line. ``switchboard plugins show --json`` (``compatibility``),
the install/enable output and the plugin page show these lines. :data:`PLUGIN_SUPPORT` is the per-format
summary docs/plugins.md's table is generated from (:func:`support_markdown`).
"""

from __future__ import annotations

import json
import re
import tomllib
from dataclasses import replace
from typing import Any

from desktop_app.runtime.compat import TRANSLATED, UNAVAILABLE, WORKS, CompatLine, Status, support_rows
from desktop_app.runtime.plugins.model import CLAUDE_MANIFEST, WHALE_MANIFEST, Plugin, PluginError, read_inside

_CLAUDE_FIELDS = {
    "name": (WORKS, "the plugin's id"),
    "version": (WORKS, "shown"),
    "description": (WORKS, "shown"),
    "author": (WORKS, "shown"),
    "homepage": (WORKS, "kept in the manifest (not shown)"),
    "repository": (WORKS, "kept in the manifest (not shown)"),
    "license": (WORKS, "kept in the manifest (not shown)"),
    "keywords": (WORKS, "kept in the manifest (not shown)"),
    "mcpServers": (WORKS, "its servers start as <plugin>.<server>"),
    "hooks": (WORKS, "read as Claude Code's hooks"),
    "commands": (WORKS, "its files and folders supplement commands/"),
    "agents": (UNAVAILABLE, "only the agents/ folder is read; move the files there"),
    "skills": (UNAVAILABLE, "only the skills/ folder is read; move the files there"),
    "outputStyles": (UNAVAILABLE, "Switchboard has no output styles"),
    "lspServers": (UNAVAILABLE, "Switchboard runs no language servers"),
}
_WHALE_FIELDS = {
    "id": (WORKS, "the plugin's id"),
    "name": (WORKS, "shown"),
    "version": (WORKS, "shown"),
    "description": (WORKS, "shown"),
    "permissions": (WORKS, "shown before it is enabled"),
    "prompts": (WORKS, "served as prompts"),
    "agents": (WORKS, "agent definitions"),
    "capabilities": (UNAVAILABLE, "not enforced here: the plugin's tools ask for approval like any"),
    "components": (UNAVAILABLE, "only the standard folders are read"),
}

_COMMAND_FIELDS = {
    "description": (WORKS, "shown in the / menu"),
    "argument-hint": (WORKS, "shown in the / menu"),
    "argument_hint": (WORKS, "shown in the / menu"),
    "name": (WORKS, "the command's name (Whale)"),
    "allowed-tools": (TRANSLATED, "see allowed-tools"),
    "disable-model-invocation": (WORKS, "the model never starts a command here"),
    "model": (UNAVAILABLE, "the command runs on the conversation's model"),
    "read_only": (UNAVAILABLE, "not enforced: the model's tool calls ask for approval as usual"),
}
_FILE_REFERENCE = re.compile(r"(?<![\w`])@[\w./-]*[\w/]")
"""Claude Code's ``@path`` file references in a command."""

PLUGIN_SUPPORT: dict[str, list[tuple[str, Status, str]]] = {
    "Claude Code plugin": [
        (".claude-plugin/plugin.json (optional)", WORKS, "without it the folder's name is the plugin's"),
        (".mcp.json, mcpServers", WORKS, "servers started as <plugin>.<server> with CLAUDE_PLUGIN_ROOT set"),
        ("skills/*/SKILL.md", WORKS, "a skill breaking the spec's name or length rules loads with a warning"),
        ("commands/*.md: $ARGUMENTS, $1 … $N, ${CLAUDE_PLUGIN_ROOT}", WORKS, "filled in"),
        ("commands/*.md: !`command` lines", TRANSLATED, "each command is shown for approval before it runs"),
        (
            "commands/*.md: allowed-tools",
            TRANSLATED,
            "a !`command` it does not cover is refused; it approves nothing by itself and does not narrow the "
            "model's tools",
        ),
        ("commands/*.md: model; @file references", UNAVAILABLE, "the conversation's model; sent as written"),
        ("agents/*.md", TRANSLATED, "agents the model can call (chat-with-<plugin>_<agent>)"),
        ("hooks/hooks.json", TRANSLATED, "Claude Code's input and output; untrusted until you trust them"),
        ("prompt and agent hooks, unknown events", UNAVAILABLE, "reported and skipped"),
        ("plugin.json commands (paths)", WORKS, "its files and folders supplement commands/"),
        ("outputStyles, lspServers; plugin.json agents and skills paths", UNAVAILABLE, "reported"),
    ],
    "Whale plugin": [
        ("whale-plugin.toml (id, name, version, description, permissions)", WORKS, "as in Whale"),
        ("skills/*/SKILL.md, also without frontmatter", WORKS, "named after its folder, with a warning"),
        ("commands/**/*.md: {{args}}, ${WHALE_PLUGIN_ROOT}", WORKS, "filled in; review/code.md is review:code"),
        (
            "commands/commands.toml shell commands",
            TRANSLATED,
            "run after approval, output given to the model, stopped after timeout_ms (30 s without)",
        ),
        ("hooks.toml, hooks/hooks.json", WORKS, "Whale's hook format; untrusted until you trust them"),
        ("mcp.json, .mcp.json", WORKS, "servers started as <plugin>.<server> with WHALE_PLUGIN_ROOT set"),
        ("agents/*.md, [[agents]], [[prompts]]", WORKS, "agents and prompts"),
        ("rules/*.md", TRANSLATED, "in each new conversation's system prompt (Whale: the session's startup context)"),
        ("capabilities, WHALE_PLUGIN_DATA_DIR", UNAVAILABLE, "not enforced / not set"),
    ],
}


def support_markdown() -> str:
    """docs/plugins.md's table of what each plugin format supports, from :data:`PLUGIN_SUPPORT`."""
    return support_rows(PLUGIN_SUPPORT)


def _manifest(plugin: Plugin) -> dict[str, Any]:
    path = plugin.folder / (CLAUDE_MANIFEST if plugin.format == "claude" else WHALE_MANIFEST)
    try:
        text = read_inside(plugin.folder, path)
        data = json.loads(text) if plugin.format == "claude" else tomllib.loads(text)
    except (OSError, ValueError, RecursionError, PluginError):
        return {}
    return data if isinstance(data, dict) else {}


def plugin_report(plugin: Plugin) -> list[CompatLine]:
    """Every part of ``plugin`` and what becomes of it here (its prompts and agents are read, their problems
    reported too; ``plugin`` itself is left as it is)."""
    from desktop_app.runtime.plugins.agents import read_agents
    from desktop_app.runtime.plugins.context_commands import commands_in
    from desktop_app.runtime.plugins.prompts import read_prompts
    from desktop_app.runtime.plugins.rules import rule_files
    from desktop_app.runtime.skills.discovery import parse_skill

    plugin = replace(plugin, problems=list(plugin.problems))  # reading prompts and agents adds to a copy
    lines: list[CompatLine] = []

    def add(owner: str, part: str, status: Status, detail: str) -> None:
        lines.append(CompatLine(owner, part, status, detail))

    manifest = _manifest(plugin)
    fields = _CLAUDE_FIELDS if plugin.format == "claude" else _WHALE_FIELDS
    where = str(CLAUDE_MANIFEST if plugin.format == "claude" else WHALE_MANIFEST)
    if plugin.format == "claude" and not (plugin.folder / CLAUDE_MANIFEST).is_file():
        add("", where, TRANSLATED, "absent (optional): named after its folder, parts read from the standard layout")
    for key in manifest:
        status, detail = fields.get(key, (UNAVAILABLE, "not read here"))
        add(where, key, status, detail)
    for name in plugin.servers:
        if plugin.format == "claude":
            add("", f"MCP server {name}", WORKS, f"started as {plugin.id}.{name} with CLAUDE_PLUGIN_ROOT set")
        else:
            detail = f"started as {plugin.id}.{name} with WHALE_PLUGIN_ROOT set; WHALE_PLUGIN_DATA_DIR and "
            add("", f"MCP server {name}", TRANSLATED, detail + "WHALE_PLUGIN_PROJECT_DIR are not set here")
    for folder in plugin.skills:
        try:
            warnings = parse_skill(plugin.folder / "skills" / folder, plugin.id).warnings
        except (ValueError, OSError) as exc:
            add("", f"skill {folder}", UNAVAILABLE, f"not loaded: {exc}")
            continue
        add("", f"skill {folder}", TRANSLATED if warnings else WORKS, "; ".join(warnings) or "as in its source app")
    for prompt in read_prompts(plugin):
        part = f"command {prompt.name}"
        context = commands_in(prompt.text)
        if context:
            detail = f"{', '.join(f'`{c}`' for c in context)} shown for approval before it runs, output filled in"
            add("", part, TRANSLATED, detail)
        else:
            add("", part, WORKS, "a prompt; arguments and the plugin's folder filled in")
        for key in prompt.fields:
            status, detail = _COMMAND_FIELDS.get(key, (UNAVAILABLE, "not read here"))
            if key not in ("description", "allowed-tools"):
                add("", f"{part} {key}", status, detail)
        references = sorted(set(_FILE_REFERENCE.findall(prompt.text)))
        if references:
            add("", f"{part} {', '.join(references)}", UNAVAILABLE, "@file references are sent as written, not read")
        if prompt.allowed_tools:
            add(
                "",
                f"{part} allowed-tools",
                TRANSLATED,
                "a !`command` it does not cover is refused; it approves nothing by itself (each command is still "
                "asked) and the model's tools are not narrowed for the turn",
            )
    for agent in read_agents(plugin):
        if agent.problem:
            add("", f"agent {agent.name}", UNAVAILABLE, agent.problem)
        else:
            add("", f"agent {agent.name}", TRANSLATED if agent.notes else WORKS, "; ".join(agent.notes) or "an agent")
    for event, hooks in plugin.hooks.items():
        count = len(hooks) if isinstance(hooks, list) else 1
        style = "Claude Code's input and output" if plugin.format == "claude" else "Whale's hook format"
        add("", f"hooks {event}", WORKS, f"{count} hook(s), {style}; untrusted until you trust them")
    for note in plugin.notes:
        add("", "hook matcher", TRANSLATED, note)
    for rule in rule_files(plugin.folder):
        add("", f"rules/{rule.name}", TRANSLATED, "in each new conversation's system prompt, once enabled")
    for problem in dict.fromkeys(plugin.problems):
        add("", "problem", UNAVAILABLE, problem)
    return lines


__all__ = ["PLUGIN_SUPPORT", "plugin_report", "support_markdown"]
