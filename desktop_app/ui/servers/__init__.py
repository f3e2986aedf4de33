"""MCP servers in the window: the Servers dock, server logs, the inspector, adding/editing servers, the
served HTTP host, and server requests (sampling, elicitation) as chat cards."""
