"""Switchboard: a small, fast desktop AI assistant that is also a complete MCP host."""

__version__ = "0.1.0"
