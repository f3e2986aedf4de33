"""A small stdio MCP server like a CRM, for the first-hour journey test: ``lookup(name, fields)`` says which
fields it was asked for, so a test sees the arguments that really ran (after a hook changed them).

    python crm_server.py
"""

from __future__ import annotations

from mcp.server.mcpserver import MCPServer

server = MCPServer("crm", log_level="WARNING")


@server.tool(description="Look up a customer by name; fields is 'public' or 'all'.", structured_output=False)
def lookup(name: str, fields: str = "public") -> str:
    return f"{name} Lovelace, customer since 1843 (fields={fields})"


@server.tool(description="List the open deals of a customer.", structured_output=False)
def deals(name: str) -> str:
    return f"{name}: 1 open deal"


if __name__ == "__main__":
    server.run()
