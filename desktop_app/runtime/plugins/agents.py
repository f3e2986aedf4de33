"""Plugin agents, read into Switchboard agent definitions (served as ``chat-with-<plugin>.<agent>``, which the
model sees as ``chat-with-<plugin>_<agent>``: see :func:`desktop_app.runtime.tool_names.model_safe_name`).

Where they come from: ``agents/*.md`` in both layouts — Claude Code's frontmatter ``name`` (default: the file
name), ``description``, ``tools`` (a comma list split outside parentheses, or a YAML list) and ``model``; the body
is the instructions; a frontmatter that is not strict YAML is read as Claude Code reads it, with a note —
and Whale's ``whale-plugin.toml`` ``[[agents]]`` tables (``name``, ``description``, ``tools``, ``model``, and
``instructions`` or a ``file`` inside the plugin), like its ``[[prompts]]``. Each is named
``<plugin>.<agent>``, as the plugin's servers are ``<plugin>.<server>`` (a ``:`` as the prompts use is not
allowed in an MCP tool name); a user's agent of the same name wins and the plugin's is reported.

What does not carry over is said, never dropped silently: a ``tools`` entry naming Claude Code's own tools
(``Read``, ``Grep``, ``Bash`` …), which no MCP server here provides, is "not available here" and left out of
the allowlist; ``mcp__<server>__<tool>`` becomes ``<server>/<tool>`` (the plugin's own servers by their
installed name); a Claude model alias (``sonnet``, ``opus``, ``haiku``, ``inherit``, ``claude-…``) runs on the
conversation's model; ``Agent(a, b)`` (Claude Code's rule for the subagents it may start) becomes the agents it
may call (``<plugin>.a``, ``<plugin>.b`` for the plugin's own). Only enabled plugins' agents are served
(:func:`enabled_agents`).
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


def split_tools(text: str) -> list[str]:
    """A comma list of tools, split only at the commas outside parentheses: ``Agent(a, b), Read`` is two
    entries, ``Agent(a, b)`` and ``Read``, as Claude Code reads it (a ``[…]`` flow list's brackets dropped)."""
    text = text.strip()
    if text.startswith("[") and text.endswith("]"):
        text = text[1:-1]
    parts: list[str] = []
    depth, start = 0, 0
    for index, ch in enumerate(text):
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth = max(depth - 1, 0)
        elif ch == "," and depth == 0:
            parts.append(text[start:index])
            start = index + 1
    parts.append(text[start:])
    return [part.strip().strip("'\"").strip() for part in parts if part.strip()]


def _tools(value: Any) -> list[str] | None:
    if value is None:
        return None
    if isinstance(value, str):
        return split_tools(value)
    if isinstance(value, list):
        return [str(part).strip() for part in value if str(part).strip()]
    return [str(value)]


_AGENT_RULE = re.compile(r"^(?:Agent|Task)\((?P<names>.*)\)$", re.S)


def agent_rule(plugin: Plugin, entry: str) -> list[str] | None:
    """The agents an ``Agent(a, b)`` entry lets it call (the plugin's own by their served names), or ``None``
    when ``entry`` is no such rule."""
    match = _AGENT_RULE.match(entry.strip())
    if match is None:
        return None
    names = [n.strip() for n in match["names"].split(",") if n.strip()]
    return [agent_name(plugin.id, n) if n in plugin.agents else n for n in names]


def map_tools(plugin: Plugin, declared: list[str] | None) -> tuple[list[str] | None, list[str]]:
    """The allowlist for ``declared`` (``None``: every tool, as Claude Code's omitted ``tools``) and the
    entries left out because they name Claude Code's own tools."""
    from desktop_app.runtime.plugins.manage import server_name
    from desktop_app.runtime.tool_names import sanitize_component

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
    declared = _tools(meta.get("tools"))
    callable_agents: list[str] = []
    for entry in declared or []:
        names = agent_rule(plugin, entry)
        if names is not None:
            callable_agents += names
            found.notes.append(f"{entry}: translated: it may call the agents {', '.join(names)}")
    rules = [e for e in declared or [] if agent_rule(plugin, e) is not None]
    tools, found.unavailable = map_tools(plugin, None if declared is None else [e for e in declared if e not in rules])
    if found.unavailable:
        found.notes.append(
            f"{', '.join(found.unavailable)}: not available here (Claude Code's own tools); left out of its tools"
        )
    model, note = _model(meta.get("model"))
    if note:
        found.notes.append(note)
    if plugin.format == "whale":  # Whale fills {{plugin_id}} in an agent's text; capabilities are its grants
        body = body.replace("{{plugin_id}}", plugin.id)
        if meta.get("capabilities"):
            found.notes.append(
                f"capabilities {meta['capabilities']}: not enforced here; its tool calls ask for approval like any"
            )
    try:
        found.definition = AgentSettings(
            name=found.name,
            description=description,
            instructions=body.strip(),
            model=model,
            tools=tools,
            agents=callable_agents,
        )
    except ValidationError as exc:
        found.problem = f"cannot be served as '{found.name}': " + "; ".join(
            f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in exc.errors()
        )
    return found


def _agent_file(plugin: Plugin, path: Path) -> PluginAgent | None:
    from desktop_app.runtime.errors import ConfigError
    from desktop_app.runtime.skills.frontmatter import split_lenient

    try:  # inside the plugin (symlinks resolved), a regular file, size-capped; frontmatter as Claude Code reads it
        meta, body, warning = split_lenient(read_inside(plugin.folder, path, limit=MAX_AGENT_BYTES), path)
    except (OSError, ConfigError, PluginError) as exc:
        plugin.problems.append(f"{path}: cannot be read as an agent ({exc})")
        return None
    meta = meta if isinstance(meta, dict) else {}
    agent = build_agent(plugin, meta, str(meta.get("name") or path.stem).strip(), body)
    if warning:
        agent.notes.insert(0, warning)
    return agent


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
    "agent_rule",
    "build_agent",
    "enabled_agents",
    "map_tools",
    "read_agents",
    "split_tools",
]
