"""The host's table of servers: what is configured, what is built in, and each server's live connection.

:class:`ServerRegistry` is plain data shared by the host's collaborators: :class:`~.servers.HostServers`
writes it (registration, start-up, re-configuration, restarts), :class:`~.tool_table.ToolTable` and
:class:`~.host.Host`'s call path read it. It imports nothing of the SDK.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeAlias

from desktop_app.runtime.errors import ServerNotFoundError
from desktop_app.runtime.host.config import ServerConfig

if TYPE_CHECKING:
    from mcp.server.mcpserver import MCPServer

    from desktop_app.runtime.host.connection import ServerConnection

BuiltinFactory: TypeAlias = "Callable[[], MCPServer]"


@dataclass
class ServerRegistry:
    """Every known server by name: external configs, built-in and in-process factories, connections."""

    configs: dict[str, ServerConfig] = field(default_factory=dict)
    """External servers (``mcp.json``, and in-process ones added like them)."""
    builtins: dict[str, BuiltinFactory] = field(default_factory=dict)
    builtin_timeouts: dict[str, float] = field(default_factory=dict)
    in_process: dict[str, BuiltinFactory] = field(default_factory=dict)
    connections: dict[str, ServerConnection] = field(default_factory=dict)
    last_tools: dict[str, list[Any]] = field(default_factory=dict)
    """Each server's tools when it was last ready (offered while it restarts)."""

    def is_builtin(self, server: str) -> bool:
        return server in self.builtins

    def require_known(self, server: str) -> None:
        if server not in self.builtins and server not in self.configs:
            raise ServerNotFoundError(f"MCP server '{server}' is not configured; add it to mcp.json first.")

    def is_ready(self, server: str) -> bool:
        connection = self.connections.get(server)
        return connection is not None and connection.state == "ready"

    def live_connections(self) -> list[ServerConnection]:
        """Connections with a live client (connected: the SDK is loaded)."""
        return [connection for connection in self.connections.values() if connection.client is not None]


__all__ = ["BuiltinFactory", "ServerRegistry"]
