"""``switchboard plugins list|install|show|enable|disable|remove``: plugins from the terminal.

    switchboard plugins list [--home DIR]
    switchboard plugins install FOLDER [--home DIR]      (installs disabled)
    switchboard plugins show ID [--json] [--home DIR]    (what it contributes, and what is skipped and why)
    switchboard plugins enable|disable|remove ID [--home DIR]

``enable`` prints what the plugin contributes: its MCP servers (as started), skills, hooks with their trust
state (plugin hooks stay untrusted until trusted with ``switchboard hooks trust KEY``), prompts, and agents
(as ``chat-with-<plugin>.<agent>``, with what of them is not available here); ``show`` prints the same, and
every part that is skipped with why (a hook event Switchboard does not have …); both print the compatibility
report (one works/translated/not available line per part; ``compatibility`` in ``--json``).
Exit codes: 0 done, 2 no such plugin, a folder that is no plugin, or a bad config file.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any, TextIO

from desktop_app.paths import HOME_ENV, app_paths

EXIT_OK, EXIT_REFUSED = 0, 2


def add_plugins_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    plugins = sub.add_parser("plugins", help="Install, enable, disable, remove and list plugins.")
    plugins.add_argument("action", choices=["list", "install", "show", "enable", "disable", "remove"])
    plugins.add_argument("target", nargs="?", metavar="FOLDER|ID", help="the plugin folder (install) or its id")
    plugins.add_argument("--json", action="store_true", help="show: one JSON object instead of text")
    plugins.add_argument("--home", type=Path, metavar="DIR", help=f"keep all files under DIR (like ${HOME_ENV})")


def _hook_states(paths: object, plugin_id: str) -> list[str]:
    from desktop_app.paths import AppPaths
    from desktop_app.runtime.hooks.sources import build_runner
    from desktop_app.runtime.plugins.manage import Places

    assert isinstance(paths, AppPaths)
    places = Places(paths.data_dir, paths.settings_file, paths.mcp_config_file)
    hooks_file = places.hooks_file(plugin_id)
    runner = build_runner(settings_hooks={}, settings_path=None, mcp_config=None, data_dir=paths.data_dir)
    lines = []
    for item in runner.review():
        if item.entry.source.path == hooks_file:
            match = f" match={item.entry.match}" if item.entry.match else ""
            lines.append(f"{item.entry.key}  {item.entry.event}{match}  {item.state}  {item.entry.body}")
    return lines


def skill_warnings(plugin: object) -> dict[str, list[str]]:
    """Each of the plugin's skills (by folder) with what it breaks: a rule it loads despite, or why it cannot."""
    from desktop_app.runtime.plugins.model import Plugin
    from desktop_app.runtime.skills.discovery import parse_skill

    assert isinstance(plugin, Plugin)
    found: dict[str, list[str]] = {}
    for folder in plugin.skills:
        try:
            found[folder] = list(parse_skill(plugin.folder / "skills" / folder, plugin.id).warnings)
        except (ValueError, OSError) as exc:
            found[folder] = [f"not loaded: {exc}"]
    return found


def describe(out: TextIO, plugin: object, paths: object, *, enabled: bool) -> None:
    from desktop_app.cli.terminal import terminal_safe
    from desktop_app.runtime.host.launch_view import command_line, environment_lines
    from desktop_app.runtime.plugins.manage import server_name
    from desktop_app.runtime.plugins.model import Plugin, substitute_root

    assert isinstance(plugin, Plugin)
    out.write(
        f"{plugin.id} {plugin.version} ({plugin.format} plugin){' by ' + plugin.author if plugin.author else ''}\n"
    )
    if plugin.description:
        out.write(f"  {terminal_safe(plugin.description)}\n")
    for name, raw in plugin.servers.items():
        entry = substitute_root(raw, plugin.folder)
        full_name = server_name(plugin.id, name)
        out.write(f"  MCP server {full_name}: {terminal_safe(command_line(entry))}\n")
        for line in environment_lines(full_name, entry):  # every env entry and secret reference it gets
            out.write(f"    {terminal_safe(line)}\n")
    for skill, warnings in skill_warnings(plugin).items():
        out.write(f"  Skill: {skill}\n")
        for warning in warnings:
            out.write(f"    {terminal_safe(warning)}\n")
    for prompt in plugin.prompts:
        out.write(f"  Prompt: {prompt}\n")
    from desktop_app.runtime.plugins.agents import read_agents

    for agent in read_agents(plugin):
        out.write(f"  Agent: {agent.name}: {terminal_safe(agent.problem or agent.description)}\n")
        for note in agent.notes:
            out.write(f"    {terminal_safe(note)}\n")
    if enabled:
        for line in _hook_states(paths, plugin.id):
            out.write(f"  Hook {terminal_safe(line)}\n")
        if plugin.hooks:
            out.write("  Plugin hooks run only once trusted: review them, then `switchboard hooks trust KEY`.\n")
    elif plugin.hook_count:
        out.write(f"  Hooks: {plugin.hook_count} (untrusted until you trust them)\n")
    from desktop_app.runtime.plugins.report import plugin_report

    out.write("  Compatibility (one line per part):\n")
    for compat in plugin_report(plugin):
        out.write(f"    {terminal_safe(compat.text())}\n")
    for note in plugin.notes:  # how a part was translated (Claude Code tool matchers)
        out.write(f"  Translated: {terminal_safe(note)}\n")
    for problem in plugin.problems:
        out.write(f"  Problem: {terminal_safe(problem)}\n")


def as_json(plugin: object, paths: object, *, enabled: bool) -> dict[str, Any]:
    """``plugins show --json``: the plugin, what it contributes, and its problems (each skipped part, and why)."""
    from desktop_app.runtime.plugins.agents import read_agents
    from desktop_app.runtime.plugins.manage import server_name
    from desktop_app.runtime.plugins.model import Plugin

    assert isinstance(plugin, Plugin)
    from desktop_app.runtime.plugins.report import plugin_report

    compatibility = [line.as_dict() for line in plugin_report(plugin)]
    agents = [
        {"name": a.name, "source": a.source, "description": a.description, "notes": a.notes, "problem": a.problem}
        for a in read_agents(plugin)
    ]
    return {
        "id": plugin.id,
        "version": plugin.version,
        "format": plugin.format,
        "enabled": enabled,
        "description": plugin.description,
        "author": plugin.author,
        "servers": [server_name(plugin.id, name) for name in plugin.servers],
        "skills": plugin.skills,
        "skill_warnings": {name: warnings for name, warnings in skill_warnings(plugin).items() if warnings},
        "prompts": plugin.prompts,
        "agents": agents,
        "hooks": _hook_states(paths, plugin.id) if enabled else [],
        "notes": plugin.notes,
        "problems": plugin.problems,
        "compatibility": compatibility,
    }


def plugins_command(ns: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from desktop_app.runtime.errors import ConfigError
    from desktop_app.runtime.plugins import manage
    from desktop_app.runtime.plugins.model import PluginError

    paths = app_paths(ns.home).ensure()
    places = manage.Places(paths.data_dir, paths.settings_file, paths.mcp_config_file)
    if ns.action != "list" and not ns.target:
        err.write(f"switchboard: plugins {ns.action} needs a {'folder' if ns.action == 'install' else 'plugin id'}\n")
        return EXIT_REFUSED
    try:
        if ns.action == "list":
            found = manage.installed(places)
            if not found:
                out.write("No plugins installed.\n")
            for plugin_id, (plugin, enabled) in found.items():
                state = "enabled" if enabled else "disabled"
                version = plugin.version if plugin is not None else "(files missing)"
                out.write(f"{plugin_id}\t{version}\t{state}\n")
        elif ns.action == "install":
            plugin = manage.install(Path(ns.target), places)
            describe(out, plugin, paths, enabled=False)
            out.write(f"Installed {plugin.id}, disabled: enable it with `switchboard plugins enable {plugin.id}`\n")
        elif ns.action == "show":
            found = manage.installed(places)
            if ns.target not in found:
                raise PluginError(f"no plugin named {ns.target!r} is installed (see `switchboard plugins list`)")
            plugin, enabled = found[ns.target]
            if plugin is None:
                raise PluginError(f"{ns.target}: its files are missing; `switchboard plugins remove {ns.target}`")
            if ns.json:
                out.write(json.dumps(as_json(plugin, paths, enabled=enabled), ensure_ascii=False, indent=2) + "\n")
            else:
                describe(out, plugin, paths, enabled=enabled)
                out.write(f"{'Enabled' if enabled else 'Disabled'}\n")
        elif ns.action == "enable":
            plugin = manage.enable(ns.target, places)
            describe(out, plugin, paths, enabled=True)
            out.write(f"Enabled {plugin.id}\n")
        elif ns.action == "disable":
            manage.disable(ns.target, places)
            out.write(f"Disabled {ns.target}: its servers and hooks are off\n")
        else:
            manage.remove(ns.target, places)
            out.write(f"Removed {ns.target}: its servers, hooks (and their trust), settings and files\n")
    except PluginError as exc:
        err.write(f"switchboard: {exc}\n")
        return EXIT_REFUSED
    except ConfigError as exc:
        err.write(f"switchboard: bad config: {exc}\n")
        return EXIT_REFUSED
    return EXIT_OK


__all__ = ["add_plugins_parser", "describe", "plugins_command"]
