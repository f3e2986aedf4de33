"""Writing agent definitions back: ``agents/<name>.md`` files from a definition, and putting a changed
catalog in force while the app runs.

:func:`agent_markdown` renders a definition as frontmatter (only the fields that differ from their
defaults) and the instructions as the body; reading it back gives the same definition. :func:`save_agent_file`
writes it atomically (temporary file, fsync, rename), and never over a file that cannot be read: a broken
agent file is the user's to fix and stays as it is. :func:`reload_agents` reads the files and settings again,
updates the catalog in place (the runtime and the ``chat-with-`` servers share it) and registers the
servers of new agents with the host; :func:`apply_agents` also withdraws the servers of agents that are gone
(a disabled plugin's).
"""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import Any

from desktop_app.runtime.agents.definitions import FOLDER_NAME, AgentCatalog, AgentFileError, parse_agent_file
from desktop_app.runtime.host.jsonfiles import write_bytes_atomically
from desktop_app.runtime.settings import AgentSettings

FIELD_ORDER = ("description", "provider", "model", "servers", "tools", "agents", "approval")


def agent_markdown(agent: AgentSettings, *, keep_name: bool = False) -> str:
    """The ``agents/<name>.md`` text of ``agent``: its set fields as frontmatter, its instructions as the body."""
    data = agent.model_dump(mode="json", exclude_defaults=True)
    front: dict[str, Any] = {"name": agent.name} if keep_name else {}
    for key in FIELD_ORDER:
        if key in data:
            front[key] = data[key]
    yaml: Any = importlib.import_module("yaml")  # pyyaml, as the reader uses (no stubs)
    head = yaml.safe_dump(front, sort_keys=False, allow_unicode=True, width=1000) if front else ""
    return f"---\n{head}---\n{agent.instructions.strip()}\n"  # the body is the instructions


def agent_files(folder: Path) -> dict[str, Path]:
    """The readable agent files in ``folder`` by the agent name they define."""
    found: dict[str, Path] = {}
    if folder.is_dir():
        for path in sorted(folder.glob("*.md")):
            try:
                found[parse_agent_file(path).name] = path
            except AgentFileError:
                continue
    return found


def save_agent_file(folder: Path, agent: AgentSettings, *, previous: Path | None = None) -> Path:
    """Write ``agent`` to its file (``previous``: the file it was read from, kept unless the name changed).

    Refused (``AgentFileError``, nothing written) when the target is a file that cannot be read, or when
    another agent's file already has that name."""
    agent = agent.model_copy(update={"instructions": agent.instructions.strip()})  # as the file reads back
    target = previous if previous is not None and previous.stem == agent.name else folder / f"{agent.name}.md"
    if target.exists():
        try:
            existing = parse_agent_file(target)
        except AgentFileError as exc:
            raise AgentFileError(f"{exc}. The file is left as it is: fix it by hand, or pick another name.") from exc
        if target != previous and existing.name == agent.name:
            raise AgentFileError(f"{target}: an agent named '{agent.name}' is defined there already.")
        if target != previous:
            raise AgentFileError(f"{target} defines the agent '{existing.name}'; pick another name.")
    text = agent_markdown(agent, keep_name=target.stem != agent.name)
    write_bytes_atomically(target, text.encode("utf-8"))
    written = parse_agent_file(target)  # what the app will read: the same definition, or say so now
    if written != agent:
        raise AgentFileError(f"{target}: written, but it reads back differently ({written!r}); please check it.")
    if previous is not None and previous != target and previous.exists():
        previous.unlink()  # renamed: the old file would define the old name again
    return target


def agents_folder(config_dir: Path) -> Path:
    return config_dir / FOLDER_NAME


def reload_agents(runtime: Any, host: Any, config_dir: Path) -> list[str]:
    """Read the agents again (files and settings) and put them in force; returns the problems."""
    from desktop_app.runtime.agents.scoped import agent_server_name
    from desktop_app.runtime.agents.server import AGENT_CALL_TIMEOUT, AgentRunner, make_agent_server

    catalog = runtime.agents
    data_dir = catalog.data_dir if catalog is not None else None
    fresh = AgentCatalog.load(runtime.settings, config_dir, data_dir=data_dir)  # plugins' agents kept in
    served = set(catalog.names()) if catalog is not None else set()  # their servers are registered already
    if catalog is None:
        runtime.attach_agents(fresh)
        catalog = fresh
    else:
        catalog.agents, catalog.default = fresh.agents, fresh.default
        catalog.problems, catalog.implicit_default = fresh.problems, fresh.implicit_default
        catalog.data_dir = fresh.data_dir
    runner = AgentRunner(runtime, catalog)  # a runner is the runtime and the catalog: this one is equivalent
    problems = list(catalog.problems)
    register = getattr(host, "register_builtin", None)
    for name in catalog.names():
        server = agent_server_name(name)
        if catalog.unrestricted(name) or name in served or register is None:
            continue
        try:
            register(server, lambda name=name: make_agent_server(runner, name), call_timeout=AGENT_CALL_TIMEOUT)
        except ValueError:
            problems.append(f"Agent '{name}' is left out: an MCP server named '{server}' exists.")
    catalog.changed()  # the served host's tool list follows
    return problems


async def apply_agents(runtime: Any, host: Any, config_dir: Path) -> list[str]:
    """:func:`reload_agents`, and the servers of agents no longer defined (a disabled or removed plugin's)
    stopped and unregistered, so no ``chat-with-`` tool of theirs is left; returns the problems."""
    from desktop_app.runtime.agents.scoped import agent_server_name

    before = set(runtime.agents.names()) if runtime.agents is not None else set()
    problems = reload_agents(runtime, host, config_dir)
    unregister = getattr(host, "unregister_builtin", None)
    for name in sorted(before - set(runtime.agents.names())):
        if unregister is not None:
            await unregister(agent_server_name(name))
    return problems


__all__ = ["agent_files", "agent_markdown", "agents_folder", "apply_agents", "reload_agents", "save_agent_file"]
