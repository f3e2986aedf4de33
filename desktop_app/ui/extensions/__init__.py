"""Installing and managing extensions: .mcpb bundles, plugins, and importing MCP servers from other apps."""
