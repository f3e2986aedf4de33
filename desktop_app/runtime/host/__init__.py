"""The MCP host: reads ``mcp.json``, connects external and built-in MCP servers, names their tools
for the model, and offers one call path (:meth:`Host.call`) for every server.

Modules:
    ``config``      ``mcp.json`` -> :class:`ServerConfig` models (never writes the file)
    (``runtime/tool_names.py``: Whale's ``mcp__<server>__<tool>`` names, 64-byte limit, SHA-1 suffix)
    ``connection``  one server's lifecycle in its own task, stderr capture, :class:`CallOutcome`
    ``registry``    :class:`ServerRegistry`: the servers by name (configs, factories, connections)
    ``servers``     :class:`HostServers`: which servers exist, start/stop/restart/pause, status
    ``tool_table``  :class:`ToolTable`: model-facing tool names, preferences, lookups
    ``targets``     where a server lives: stdio launch parameters, a ``url`` server's target
    ``host``        :class:`Host`: owns registry, servers, tool table and features (resources, prompts,
                    roots, logs); the hooks and the one call path (:meth:`Host.call`)
"""

from typing import TYPE_CHECKING, Any

from desktop_app.runtime.host.config import ServerConfig, load_mcp_config, parse_mcp_config
from desktop_app.runtime.host.host import (
    BuiltinFactory,
    Host,
    HostTool,
    ServerState,
    ServerStatus,
    normalize_schema,
)
from desktop_app.runtime.host.outcomes import CallOutcome, error_outcome, outcome_from_result
from desktop_app.runtime.tool_names import (
    parse_qualified_tool_name,
    qualify_tool_name,
    sanitize_component,
    unique_tool_name,
)

if TYPE_CHECKING:
    from desktop_app.runtime.host.connection import ConnectionState, ServerConnection, StderrBuffer

_FROM_CONNECTION = ("ConnectionState", "ServerConnection", "StderrBuffer")
"""Names of :mod:`.connection`, which imports the MCP SDK's client (and with it its server half): loaded
when first asked for, so the runtime starts (and the user can send) before the SDK is imported."""


def __getattr__(name: str) -> Any:
    if name in _FROM_CONNECTION:
        from desktop_app.runtime.host import connection

        return getattr(connection, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "BuiltinFactory",
    "CallOutcome",
    "ConnectionState",
    "Host",
    "HostTool",
    "ServerConfig",
    "ServerConnection",
    "ServerState",
    "ServerStatus",
    "StderrBuffer",
    "error_outcome",
    "load_mcp_config",
    "normalize_schema",
    "outcome_from_result",
    "parse_mcp_config",
    "parse_qualified_tool_name",
    "qualify_tool_name",
    "sanitize_component",
    "unique_tool_name",
]
