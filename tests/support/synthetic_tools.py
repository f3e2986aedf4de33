"""Synthetic in-process MCP servers with many tools, for the deferred-tool tests and the panel test."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from mcp.server.mcpserver import MCPServer

from desktop_app.runtime.host import Host, ServerConfig

TOPICS = ("weather", "issues", "files", "mail", "calendar", "billing", "search", "deploy", "chat", "notes")


def server_name(index: int) -> str:
    return f"srv{index:02d}"


@functools.cache
def make_server(index: int, tools: int) -> MCPServer:
    """``srvNN`` with ``tool_000`` … each echoing its arguments; descriptions name a topic per server.

    Cached: building 1,000 tools takes seconds, and one stateless server instance serves any number of
    in-memory connections."""
    server = MCPServer(server_name(index), log_level="WARNING")
    topic = TOPICS[index % len(TOPICS)]
    for number in range(tools):
        server.add_tool(
            _echo(f"{server_name(index)}.tool_{number:03d}"),
            name=f"tool_{number:03d}",
            description=f"Tool {number} of {server_name(index)}: handles {topic} task {number}.",
        )
    return server


def _echo(label: str) -> Callable[..., str]:
    def tool(text: str = "", count: int = 1) -> str:
        return f"{label}({text!r}, {count})"

    return tool


def factory(index: int, tools: int) -> Callable[[], MCPServer]:
    return lambda: make_server(index, tools)


def add_servers(
    host: Host, *, servers: int = 20, tools: int = 50, configs: dict[str, dict[str, Any]] | None = None
) -> None:
    """Add ``servers`` in-process servers of ``tools`` tools each; ``configs`` adds mcp.json fields by name."""
    for index in range(servers):
        name = server_name(index)
        extra = (configs or {}).get(name, {})
        config = ServerConfig.model_validate({"command": f"(in-process {name})", **extra})
        host.add_in_process(name, factory(index, tools), config)
