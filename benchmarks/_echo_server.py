"""A stdio MCP server with one ``echo(text)`` tool, for the stdio call-overhead benchmark."""

from mcp.server.mcpserver import MCPServer

server = MCPServer("echo")


@server.tool(name="echo", description="Return the text it was given.")
async def echo(text: str) -> str:
    return text


if __name__ == "__main__":
    server.run("stdio")
