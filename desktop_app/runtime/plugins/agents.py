"""Plugin agents, read into Switchboard agent definitions (served as ``chat-with-<plugin>.<agent>``, which the
model sees as ``chat-with-<plugin>_<agent>``: see :func:`desktop_app.runtime.host.names.model_safe_name`).

Where they come from: ``agents/*.md`` in both layouts — Claude Code's frontmatter ``name`` (default: the file
name), ``description``, ``tools`` (a comma list, or a YAML list) and ``model``; the body is the instructions —
and Whale's ``whale-plugin.toml`` ``[[agents]]`` tables (``name``, ``description``, ``tools``, ``model``, and
``instructions`` or a ``file`` inside the plugin), like its ``[[prompts]]``. Each is named
``<plugin>.<agent>``, as the plugin's servers are ``<plugin>.<server>`` (a ``:`` as the prompts use is not
allowed in an MCP tool name); a user's agent of the same name wins and the plugin's is reported.

What does not carry over is said, never dropped silently: a ``tools`` entry naming Claude Code's own tools
(``Read``, ``Grep``, ``Bash`` …), which no MCP server here provides, is "not available here" and left out of
the allowlist; ``mcp__<server>__<tool>`` becomes ``<server>/<tool>`` (the plugin's own servers by their
installed name); a Claude model alias (``sonnet``, ``opus``, ``haiku``, ``inherit``, ``claude-…``) runs on the
conversation's model. Only enabled plugins' agents are served (:func:`enabled_agents`).
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from desktop_app.runtime.plugins.model import Plugin, PluginError, read_inside, read_plugin, whale_entries
from desktop_app.runtime.settings import AgentSettings

MAX_AGENT_BYTES = 256 * 1024
CLAUDE_CODE_TOOLS = frozenset(
    {
        "Agent",
        "Bash",
        "BashOutput",
        "Edit",
        "ExitPlanMode",
        "Glob",
        "Grep",
        "KillBash",
        "KillShell",
        "LS",
        "MultiEdit",
        "NotebookEdit",
        "NotebookRead",
        "Read",
        "Skill",
        "SlashCommand",
        "Task",
        "TodoRead",
        "TodoWrite",
        "WebFetch",
        "WebSearch",
        "Write",
    }
)
"""Claude Code's own tools: no MCP server here provides them."""
MODEL_ALIASES = frozenset({"sonnet", "opus", "haiku", "inherit", "default", "opusplan"})
_MCP_TOOL = re.compile(r"^mcp__(?P<server>.+?)__(?P<tool>.+)$")
log = logging.getLogger(__name__)


def agent_name(plugin_id: str, agent: str) -> str:
    return f"{plugin_id}.{agent}"


@dataclass
class PluginAgent:
    """One agent a plugin declares: its definition as served (``None`` when it cannot be), and what changed."""

    plugin: str
    source: str
    """The name in the plugin (the file's ``name``, or its stem)."""
    description: str = ""
    definition: AgentSettings | None = None
    unavailable: list[str] = field(default_factory=list)
    """``tools`` entries left out: Claude Code's own tools."""
    notes: list[str] = field(default_factory=list)
    problem: str = ""

    @property
    def name(self) -> str:
        return agent_name(self.plugin, self.source)


def _tools(value: Any) -> list[str] | None:
    if value is None:
        return None
    if isinstance(value, str):
        return [part.strip() for part in value.split(",") if part.strip()]
    if isinstance(value, list):
        return [str(part).strip() for part in value if str(part).strip()]
    return [str(value)]


def map_tools(plugin: Plugin, declared: list[str] | None) -> tuple[list[str] | None, list[str]]:
    """The allowlist for ``declared`` (``None``: every tool, as Claude Code's omitted ``tools``) and the
    entries left out because they name Claude Code's own tools."""
    from desktop_app.runtime.host.names import sanitize_component
    from desktop_app.runtime.plugins.manage import server_name

    if declared is None:
        return None, []
    allowed: list[str] = []
    unavailable: list[str] = []
    own = {sanitize_component(f"plugin_{plugin.id}_{s}", "server"): s for s in plugin.servers}
    own.update({sanitize_component(s, "server"): s for s in plugin.servers})
    for entry in declared:
        bare = entry.split("(", 1)[0].strip()  # "Bash(git *)": a Claude Code permission rule on Bash
        if bare in CLAUDE_CODE_TOOLS:
            unavailable.append(entry)
            continue
        match = _MCP_TOOL.match(entry)
        if match is None:
            allowed.append(entry)  # a tool name (globs allowed) or already server/tool
            continue
        server, tool = match["server"], match["tool"]
        mine = own.get(sanitize_component(server, "server"))
        allowed.append(f"{server_name(plugin.id, mine) if mine else server}/{tool}")
    return allowed, unavailable


def _model(value: Any) -> tuple[str, str]:
    """The model to run on ("": the conversation's) and a note when a Claude model was asked for."""
    model = str(value or "").strip()
    if not model:
        return "", ""
    if model.lower() in MODEL_ALIASES or model.lower().startswith("claude"):
        return "", f"model '{model}' is a Claude model: it runs on the conversation's model"
    return model, ""


def build_agent(plugin: Plugin, meta: dict[str, Any], source: str, body: str) -> PluginAgent:
    """A definition from an agent's fields (frontmatter or a ``[[agents]]`` table)."""
    description = str(meta.get("description") or "")
    found = PluginAgent(plugin.id, source, description)
    tools, found.unavailable = map_tools(plugin, _tools(meta.get("tools")))
    if found.unavailable:
        found.notes.append(
            f"{', '.join(found.unavailable)}: not available here (Claude Code's own tools); left out of its tools"
        )
    model, note = _model(meta.get("model"))
    if note:
        found.notes.append(note)
    try:
        found.definition = AgentSettings(
            name=found.name, description=description, instructions=body.strip(), model=model, tools=tools
        )
    except ValidationError as exc:
        found.problem = f"cannot be served as '{found.name}': " + "; ".join(
            f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in exc.errors()
        )
    return found


def _agent_file(plugin: Plugin, path: Path) -> PluginAgent | None:
    from desktop_app.runtime.errors import ConfigError
    from desktop_app.runtime.skills.discovery import split_frontmatter

    try:  # inside the plugin (symlinks resolved), a regular file, size-capped
        meta, body = split_frontmatter(read_inside(plugin.folder, path, limit=MAX_AGENT_BYTES), path)
    except (OSError, ConfigError, PluginError) as exc:
        plugin.problems.append(f"{path}: cannot be read as an agent ({exc})")
        return None
    meta = meta if isinstance(meta, dict) else {}
    return build_agent(plugin, meta, str(meta.get("name") or path.stem).strip(), body)


def _whale_agents(plugin: Plugin) -> list[PluginAgent]:
    return [
        build_agent(plugin, entry, entry["name"].strip(), "" if text is None else str(text))
        for _where, entry, text in whale_entries(plugin, "agents", "instructions")
    ]


def read_agents(plugin: Plugin) -> list[PluginAgent]:
    """The plugin's agents: ``agents/*.md``, then Whale's ``[[agents]]`` (the first of a name wins)."""
    found: dict[str, PluginAgent] = {}
    for path in sorted((plugin.folder / "agents").glob("*.md")):
        agent = _agent_file(plugin, path)
        if agent is not None:
            found.setdefault(agent.source, agent)
    if plugin.format == "whale":
        for agent in _whale_agents(plugin):
            found.setdefault(agent.source, agent)
    return list(found.values())


def enabled_agents(data_dir: Path, records: dict[str, dict[str, Any]]) -> tuple[list[AgentSettings], list[str]]:
    """The definitions of the enabled plugins' agents, and the problems of those that cannot be served."""
    from desktop_app.runtime.plugins.manage import FILES_DIR

    agents: list[AgentSettings] = []
    problems: list[str] = []
    for plugin_id, record in sorted(records.items()):
        if not record.get("enabled"):
            continue
        try:
            plugin = read_plugin(data_dir / FILES_DIR / plugin_id)
        except PluginError as exc:
            log.warning("plugin %s: %s", plugin_id, exc)
            continue
        for agent in read_agents(plugin):
            if agent.definition is not None:
                agents.append(agent.definition)
            else:
                problems.append(f"Plugin {plugin_id}'s agent '{agent.source}' {agent.problem}")
    return agents, problems


__all__ = [
    "CLAUDE_CODE_TOOLS",
    "PluginAgent",
    "agent_name",
    "build_agent",
    "enabled_agents",
    "map_tools",
    "read_agents",
]
