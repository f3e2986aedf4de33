"""MCP Apps test servers (issue 26)."""
