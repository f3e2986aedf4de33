"""A stdio MCP server for the hook integration tests: a CRM lookup that returns personal data, and a
``run`` tool that only says what it would run (it never executes anything)."""

from __future__ import annotations

from mcp.server.mcpserver import MCPServer

server = MCPServer("crm")


@server.tool(description="Look up a contact.", structured_output=False)
def lookup(name: str) -> str:
    return f"{name} Lovelace, ada@example.com, phone +44 20 7946 0958, notes: prefers email"


@server.tool(description="Pretend to run a shell command.", structured_output=False)
def run(command: str) -> str:
    return f"would run: {command}"


if __name__ == "__main__":
    server.run("stdio")
