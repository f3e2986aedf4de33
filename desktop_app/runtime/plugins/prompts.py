"""Plugin prompts, served as MCP prompts by the built-in ``switchboard.plugins`` server.

Where they come from: Claude Code's ``commands/**/*.md`` (both layouts; a subfolder only organises; the
optional frontmatter's ``description`` and ``argument-hint``, else the first line of the text;
``allowed-tools``), Whale's ``commands/**/*.md`` (``commands/review/code.md`` is ``review:code``;
``argument_hint``, ``name``), Whale's ``commands/commands.toml`` shell commands (``[[commands]]`` ``name``,
``description``, ``command``, ``timeout_ms``: a prompt whose text is the command as a ``!`…` `` context
line, run through the approval like any), and Whale's ``whale-plugin.toml`` ``[[prompts]]`` tables
(``name``, ``description``, and ``text`` or a ``file`` inside the plugin).
Each is named ``<plugin>:<command>`` (Claude Code's ``/plugin:command``)
and takes one optional argument, ``arguments``: ``$ARGUMENTS`` and Whale's ``{{args}}`` in the text are
replaced by it, ``$1`` … ``$N`` by its words, ``${CLAUDE_PLUGIN_ROOT}`` (``${WHALE_PLUGIN_ROOT}``) by the
plugin's folder; a text without placeholders gets the arguments appended. ``!`…` `` lines are left for the
client to run after approval (:mod:`.context_commands`).
Only enabled plugins' prompts are served; the composer's ``/`` picker lists them like
any server's prompts. :func:`wire_prompts` registers the server once an enabled plugin has prompts (at
start-up, and again after a plugin is enabled); :func:`refresh` restarts it so a change shows.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from desktop_app.runtime.in_process import in_process_server
from desktop_app.runtime.plugins.commands import SERVER_NAME, PluginPrompt, read_prompts
from desktop_app.runtime.plugins.model import PluginError, read_plugin

log = logging.getLogger(__name__)


def enabled_prompts(data_dir: Path, records: dict[str, dict[str, Any]]) -> list[PluginPrompt]:
    """The prompts of the enabled plugins (a plugin whose files no longer read is skipped)."""
    from desktop_app.runtime.plugins.manage import FILES_DIR

    prompts: list[PluginPrompt] = []
    for plugin_id, record in sorted(records.items()):
        if not record.get("enabled"):
            continue
        try:
            prompts.extend(read_prompts(read_plugin(data_dir / FILES_DIR / plugin_id)))
        except PluginError as exc:
            log.warning("plugin %s: %s", plugin_id, exc)
    return prompts


def find_prompt(name: str, data_dir: Path, records: dict[str, dict[str, Any]]) -> PluginPrompt | None:
    """The enabled plugin prompt named ``name`` (``plugin:command``), or ``None``."""
    return next((p for p in enabled_prompts(data_dir, records) if p.name == name), None)


def _filler(prompt: PluginPrompt) -> Any:
    def fill(arguments: str = "") -> str:
        """The text to send; ``arguments``: what to fill in for $ARGUMENTS (optional)."""
        return prompt.render(arguments)

    return fill


def make_prompts_server(prompts: list[PluginPrompt]) -> Any:
    """A new ``switchboard.plugins`` server offering ``prompts`` (an MCPServer)."""
    from mcp.server.mcpserver.prompts.base import Prompt

    from desktop_app import __version__

    server = in_process_server(SERVER_NAME, version=__version__, log_level="WARNING")
    for prompt in prompts:
        description = prompt.description + (f" (arguments: {prompt.argument_hint})" if prompt.argument_hint else "")
        server.add_prompt(Prompt.from_function(_filler(prompt), name=prompt.name, description=description))
    return server


def _current(data_dir: Path, settings_file: Path) -> list[PluginPrompt]:
    from desktop_app.runtime.settings import load_settings

    try:
        return enabled_prompts(data_dir, load_settings(settings_file).plugins)
    except Exception as exc:  # a broken settings file is reported where it is read; no prompts meanwhile
        log.warning("plugin prompts are off: %s", exc)
        return []


def wire_prompts(host: Any, data_dir: Path, settings_file: Path) -> bool:
    """Register ``switchboard.plugins`` (lazy) once an enabled plugin has prompts; whether it is registered."""
    if SERVER_NAME in host.states():
        return True
    if not _current(data_dir, settings_file):
        return False
    try:
        host.register_builtin(SERVER_NAME, lambda: make_prompts_server(_current(data_dir, settings_file)))
    except ValueError:
        log.warning("an MCP server in mcp.json is named %s; plugin prompts are off", SERVER_NAME)
        return False
    return True


async def refresh(host: Any, data_dir: Path, settings_file: Path) -> None:
    """After a plugin was enabled, disabled or removed: serve the prompts as they are now."""
    if wire_prompts(host, data_dir, settings_file):
        await host.restart(SERVER_NAME)


__all__ = [
    "SERVER_NAME",
    "PluginPrompt",
    "enabled_prompts",
    "find_prompt",
    "make_prompts_server",
    "read_prompts",
    "refresh",
    "wire_prompts",
]
