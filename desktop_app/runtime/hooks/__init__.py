"""Hooks: lifecycle hooks (Whale) and MCP message hooks (nanobot) on one runner, with one trust store.

Modules: ``model`` (events, hook definitions, the stdin payload), ``decisions`` (answers, decisions,
reports), ``executors`` (command, http, mcp), ``message`` (MCP message hooks, mutation notices),
``config`` (reading ``hooks`` objects), ``trust`` (trust by content hash), ``runner`` (the one runner),
``notices`` (what the user is shown), ``tool_hooks`` (the step inside ``Host.call``), ``context`` (which
conversation and tool call a host call belongs to).

This package's ``__init__`` imports nothing, so ``host.outcomes`` can use ``notices`` without a cycle.
"""
