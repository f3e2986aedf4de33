"""A stdio MCP server with many echo tools, for the deferred-tool CLI tests.

    python many_tools_server.py NAME COUNT [DESCRIPTION]

Tools ``tool_000`` … ``tool_<COUNT-1>``; each returns ``NAME.tool_NNN(text)``. ``DESCRIPTION`` (default
``Echo number {n}.``) is formatted with the tool's number ``n``.
"""

from __future__ import annotations

import sys
from collections.abc import Callable

from mcp.server.mcpserver import MCPServer

NAME = sys.argv[1] if len(sys.argv) > 1 else "many"
COUNT = int(sys.argv[2]) if len(sys.argv) > 2 else 60
DESCRIPTION = sys.argv[3] if len(sys.argv) > 3 else "Echo number {n}."
server = MCPServer(NAME, log_level="WARNING")


def _echo(label: str) -> Callable[[str], str]:
    def tool(text: str = "") -> str:
        return f"{label}({text})"

    return tool


for number in range(COUNT):
    server.add_tool(
        _echo(f"{NAME}.tool_{number:03d}"), name=f"tool_{number:03d}", description=DESCRIPTION.format(n=number)
    )

if __name__ == "__main__":
    server.run()
