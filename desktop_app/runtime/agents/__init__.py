"""Agents (nanobot §2.2): definitions (:mod:`.definitions`), the scoped host an agent's run sees
(:mod:`.scoped`) and the ``chat-with-<agent>`` in-process MCP servers (:mod:`.server`)."""

from desktop_app.runtime.agents.definitions import AgentCatalog, AgentFileError, load_agent_files, parse_agent_file
from desktop_app.runtime.agents.scoped import (
    AGENT_SERVER_PREFIX,
    TOOL_PREFIX,
    ScopedToolHost,
    agent_of_server,
    agent_server_name,
)
from desktop_app.runtime.agents.server import MAX_DEPTH, AgentRunner, make_agent_server, register_agents

__all__ = [
    "AGENT_SERVER_PREFIX",
    "MAX_DEPTH",
    "TOOL_PREFIX",
    "AgentCatalog",
    "AgentFileError",
    "AgentRunner",
    "ScopedToolHost",
    "agent_of_server",
    "agent_server_name",
    "load_agent_files",
    "make_agent_server",
    "parse_agent_file",
    "register_agents",
]
