"""Agent definitions: from the settings (``agents``) and from ``agents/*.md`` files, plus the default agent.

An agent file is Markdown with a YAML frontmatter; the body is the agent's instructions::

    ---
    name: researcher            # default: the file name without .md
    description: Looks things up in past conversations
    servers: [switchboard.history, time]
    tools: ["switchboard.history/*", "time/get_current_time"]
    agents: []                  # the agents it may call ('*': all)
    model: deepseek-chat        # optional; provider: {base_url: …, dialect: …} too
    approval: ask               # ask | always | never (never looser than the app's policy)
    ---
    You research. Answer with sources.

Enabled plugins contribute agents too, named ``<plugin>.<agent>`` (:mod:`desktop_app.runtime.plugins.agents`),
when the catalog is loaded with the app's data folder. A definition in the settings wins over a file of the
same name, and either wins over a plugin's agent of that name. A broken file is reported with its path and
left out; it never stops the others. The default agent (``settings.default_agent``, "assistant" unless set)
exists even when nothing defines it: every server and tool, may call every agent, the settings' system
prompt as its instructions.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from fnmatch import fnmatchcase
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from desktop_app.runtime.errors import ConfigError
from desktop_app.runtime.messages import Message, SystemMessage
from desktop_app.runtime.settings import AgentSettings, Settings

FOLDER_NAME = "agents"
MAX_FILE_BYTES = 256 * 1024


class AgentFileError(ValueError):
    """An agent file that cannot be read: the message names the file and the field at fault."""


def parse_agent_file(path: Path, warnings: list[str] | None = None) -> AgentSettings:
    """One ``agents/<name>.md`` file as a definition; ``AgentFileError`` says what is wrong with it. A
    frontmatter that is not strict YAML but that Claude Code reads (``description: Use it when: …``) is read
    as Claude Code reads it, with a warning appended to ``warnings``."""
    from desktop_app.runtime.files import read_config_text
    from desktop_app.runtime.skills.frontmatter import parse_block

    try:  # a regular file only (never a FIFO or /dev/zero: opened without blocking), size-capped, UTF-8
        text = read_config_text(path, limit=MAX_FILE_BYTES)
    except ConfigError as exc:
        raise AgentFileError(f"{path}: cannot read it: {exc.problem}") from exc
    except OSError as exc:
        raise AgentFileError(f"{path}: cannot read it ({exc})") from exc
    meta: Any = {}
    warning = ""
    body = text
    lines = text.splitlines(keepends=True)
    end: int | None = None
    if lines and lines[0].strip() == "---":
        end = next((i for i, line in enumerate(lines[1:], start=1) if line.strip() == "---"), None)
        if end is None:
            raise AgentFileError(f"{path}: the frontmatter starts with '---' but has no closing '---' line")
        try:  # a leading line: lines count from the file's
            meta, warning = parse_block("\n" + "".join(lines[1:end]), path, line_offset=0)
        except ConfigError as exc:
            raise AgentFileError(f"the frontmatter is not valid YAML: {exc}") from exc
        meta = meta or {}
        body = "".join(lines[end + 1 :])
    if not isinstance(meta, dict):
        raise AgentFileError(f"{path}: the frontmatter must be a mapping of fields (name, description, …)")
    data = {"name": path.stem, **meta}
    if "instructions" in data:
        raise AgentFileError(f"{path}: 'instructions' is the body of the file, not a frontmatter field")
    data["instructions"] = body.strip()
    try:
        agent = AgentSettings.model_validate(data)
    except ValidationError as exc:
        front = lines[1:end] if end is not None else []
        found = [_key_line(front, str(e["loc"][0])) for e in exc.errors() if e["loc"]]
        where = f"{path}:{found[0]}" if found and found[0] is not None else str(path)  # the first problem's line
        problems = "; ".join(f"{'.'.join(str(p) for p in e['loc']) or '(top)'}: {e['msg']}" for e in exc.errors())
        if warning:  # read line by line and still wrong: the YAML error is what to fix first
            problems = f"the frontmatter is not valid YAML, and read line by line: {problems}"
        raise AgentFileError(f"{where}: {problems}") from exc
    if warning and warnings is not None:
        warnings.append(warning)
    return agent


def _key_line(front: list[str], key: str) -> int | None:
    """The file line (1-based; the frontmatter starts on line 2) where the frontmatter sets ``key``."""
    for index, line in enumerate(front):
        if line.split(":", 1)[0].strip() == key and not line.startswith((" ", "\t", "-")):
            return index + 2
    return None


def load_agent_files(folder: Path) -> tuple[list[AgentSettings], list[str]]:
    """Every ``*.md`` in ``folder`` (sorted by name) and the problems of those that could not be read."""
    agents: list[AgentSettings] = []
    problems: list[str] = []
    if not folder.is_dir():
        return agents, problems
    for path in sorted(folder.glob("*.md")):
        warnings: list[str] = []
        try:
            agents.append(parse_agent_file(path, warnings))
        except AgentFileError as exc:
            problems.append(f"An agent file was skipped: {exc}")
        problems += [f"An agent file was loaded with a warning: {warning}" for warning in warnings]
    return agents, problems


def default_agent(name: str, settings: Settings) -> AgentSettings:
    """The default agent when nothing defines it: unrestricted, may call every agent."""
    return AgentSettings(
        name=name,
        description="The default assistant: every server and tool",
        instructions=settings.system_prompt,
        agents=["*"],
    )


@dataclass
class AgentCatalog:
    """The agents by name, the default one, and who may call whom."""

    agents: dict[str, AgentSettings]
    default: str
    problems: list[str] = field(default_factory=list)
    implicit_default: bool = False
    """The default agent is the built-in one (no definition): its runs are not restricted at all."""
    data_dir: Path | None = None
    """The app's data folder when enabled plugins' agents are part of the catalog (kept for a reload)."""
    _listeners: list[Callable[[], None]] = field(default_factory=list, repr=False, compare=False)

    def subscribe(self, listener: Callable[[], None]) -> Callable[[], None]:
        """``listener()`` after the agents changed in place (:func:`~.files.reload_agents`)."""
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener) if listener in self._listeners else None

    def changed(self) -> None:
        for listener in list(self._listeners):
            listener()

    @classmethod
    def build(
        cls, settings: Settings, files: Sequence[AgentSettings] = (), problems: Iterable[str] = ()
    ) -> AgentCatalog:
        agents: dict[str, AgentSettings] = {}
        for agent in files:
            agents[agent.name] = agent
        for agent in settings.agents:  # the settings win over a file of the same name
            agents[agent.name] = agent
        name = settings.default_agent or "assistant"
        implicit = name not in agents
        if implicit:
            agents[name] = default_agent(name, settings)
        return cls(dict(sorted(agents.items())), name, list(problems), implicit)

    @classmethod
    def load(cls, settings: Settings, config_dir: Path, *, data_dir: Path | None = None) -> AgentCatalog:
        """The agents of the settings and ``agents/*.md``; with ``data_dir``, the enabled plugins' too."""
        files, problems = load_agent_files(config_dir / FOLDER_NAME)
        if data_dir is not None and any(record.get("enabled") for record in settings.plugins.values()):
            from desktop_app.runtime.plugins.agents import enabled_agents  # the plugins package: only when in use

            contributed, trouble = enabled_agents(data_dir, settings.plugins)
            own = {a.name for a in files} | {a.name for a in settings.agents}
            problems = [*problems, *trouble]
            shadowed = [a.name for a in contributed if a.name in own]
            problems += [f"Plugin agent '{name}' is left out: one of your agents has that name." for name in shadowed]
            files = [*contributed, *files]  # the user's win over a plugin's of the same name
        catalog = cls.build(settings, files, problems)
        catalog.data_dir = data_dir
        return catalog

    def get(self, name: str) -> AgentSettings | None:
        return self.agents.get(name)

    def names(self) -> list[str]:
        return list(self.agents)

    def unrestricted(self, name: str) -> bool:
        """Whether ``name``'s runs see the host as it is (the built-in default agent)."""
        return self.implicit_default and name == self.default

    def may_call(self, caller: str, callee: str) -> bool:
        agent = self.agents.get(caller)
        if agent is None or callee not in self.agents or callee == caller:
            return False
        return any(fnmatchcase(callee, pattern) for pattern in agent.agents)


def with_instructions(messages: list[Message], instructions: str) -> list[Message]:
    """``messages`` starting from ``instructions`` as the system prompt (the old one, if any, replaced)."""
    rest = messages[1:] if messages and isinstance(messages[0], SystemMessage) else messages
    return [*([SystemMessage(content=instructions)] if instructions else []), *rest]


def tool_allowed(agent: AgentSettings, server: str, tool: str, model_name: str) -> bool:
    """Whether ``agent`` may use ``server``'s ``tool`` (``model_name``: how the model sees it)."""
    if agent.servers is not None and not any(fnmatchcase(server, pattern) for pattern in agent.servers):
        return False
    if agent.tools is None:
        return True
    for pattern in agent.tools:
        if "/" in pattern:
            server_pattern, _, tool_pattern = pattern.rpartition("/")
            if fnmatchcase(server, server_pattern) and fnmatchcase(tool, tool_pattern):
                return True
        elif fnmatchcase(model_name, pattern) or fnmatchcase(tool, pattern):
            return True
    return False
