"""A stdio MCP server with a ``run_command`` tool, Switchboard's equivalent of Claude Code's ``Bash`` for hook
matchers. It never runs anything: it appends the command (and the ``CLAUDE_PLUGIN_ROOT`` it was started with)
to the file named by ``RAN_LOG``, so a test can tell whether a call got through."""

from __future__ import annotations

import os

from mcp.server.mcpserver import MCPServer

server = MCPServer("shell")


@server.tool(description="Run a shell command.", structured_output=False)
def run_command(command: str) -> str:
    root = os.environ.get("CLAUDE_PLUGIN_ROOT", "")
    with open(os.environ["RAN_LOG"], "a", encoding="utf-8") as log:
        log.write(f"{command}\t{root}\n")
    return f"ran: {command}"


if __name__ == "__main__":
    server.run("stdio")
