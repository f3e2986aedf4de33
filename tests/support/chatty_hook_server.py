"""A stdio MCP server whose ``verdict`` tool answers a message hook in plain text ("Looks fine to me!")
instead of ``{accept, mutated, message, reason}``, next to a ``lookup`` tool that returns personal data."""

from __future__ import annotations

from typing import Any

from mcp.server.mcpserver import MCPServer

server = MCPServer("crm")


@server.tool(description="Look up a contact.", structured_output=False)
def lookup(name: str) -> str:
    return f"{name} Lovelace, ada@example.com"


@server.tool(description="A message hook that answers in prose.", structured_output=False)
def verdict(accept: bool, mutated: bool, message: dict[str, Any], reason: str) -> str:
    return "Looks fine to me!"


if __name__ == "__main__":
    server.run("stdio")
