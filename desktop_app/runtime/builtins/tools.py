"""``switchboard.tools``: ``tool_search``, the model's way into the deferred tool catalog (Whale §1.6).

The server searches the catalog it is given (a callable, so it always sees the current one) and answers
with Whale's texts: a blank query gives the ``<available-deferred-tools>`` index, no match gives the
available names, and a match gives "Activated n tool(s)" with each tool's description and parameters.
The matched names also come back as structured content (``{"promote": [...], "catalog_hash": ...}``):
the per-conversation tool view (:mod:`desktop_app.runtime.tools.deferral`) reads them on the one call path and
promotes those tools, so the next request carries their schemas. The server itself keeps no state.
A search runs in a worker thread, its regular expression bounded in time (:mod:`.bounded_regex` of the host):
a pattern that would backtrack forever is an error result, and the event loop never waits on it.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Sequence

import mcp_types as mtypes
from mcp.server.mcpserver import MCPServer

from desktop_app import __version__
from desktop_app.runtime.host.catalog import CATALOG_SERVER, CATALOG_TOOL, Catalog, CatalogEntry
from desktop_app.runtime.in_process import in_process_server

SERVER_NAME = CATALOG_SERVER
TOOL_NAME = CATALOG_TOOL
READ_ONLY = mtypes.ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True)
NAMES_LIMIT = 4000
"""The no-match answer lists the available names up to about this many characters."""
DESCRIPTION = (
    "Find and load MCP tools that are not in your tool list yet (they are named under "
    "<available-deferred-tools> in the system prompt). Query forms: 'select:name1,name2' loads exactly "
    "those tools; '+word extra terms' keeps tools whose name contains word and ranks them by the extra "
    "terms; anything else is a case-insensitive regular expression over names and descriptions (at most 5 "
    "results). An empty query lists every deferred tool. Matching tools are loaded for your next call."
)


def _error(message: str, code: str, extra: str = "") -> mtypes.CallToolResult:
    text = json.dumps({"ok": False, "error": message, "code": code}, separators=(",", ":")) + extra
    return mtypes.CallToolResult(content=[mtypes.TextContent(type="text", text=text)], is_error=True)


def available_names(names: Sequence[str], limit: int = NAMES_LIMIT) -> str:
    """``a, b, c`` up to about ``limit`` characters, then how many more there are."""
    shown: list[str] = []
    used = 0
    for name in names:
        if shown and used + len(name) + 2 > limit:
            break
        shown.append(name)
        used += len(name) + 2
    text = ", ".join(shown)
    if len(shown) < len(names):
        text += f", … and {len(names) - len(shown)} more (search with a word to narrow them down)"
    return text


def activation_text(entries: Sequence[CatalogEntry]) -> str:
    """Whale's success answer: each tool's name, description and parameters (pretty JSON)."""
    lines = [f"Activated {len(entries)} tool(s):", ""]
    for entry in entries:
        lines.append(f"## {entry.name}")
        lines.append(entry.description)
        properties = entry.input_schema.get("properties")
        if properties:
            lines.append("Parameters: " + json.dumps(properties, indent=2, ensure_ascii=False))
        lines.append("")
    lines.append("These tools are now available in your tool schema for subsequent calls.")
    return "\n".join(lines)


def search_result(catalog: Catalog, query: str) -> mtypes.CallToolResult:
    """What ``tool_search(query)`` answers over ``catalog`` (pure; the server only wraps it)."""
    if not catalog:
        return _error("no deferred MCP tools available", "no_deferred_tools")
    if not query.strip():
        block = catalog.render_capped()
        return mtypes.CallToolResult(
            content=[mtypes.TextContent(type="text", text=block or "No deferred tools available.")]
        )
    from desktop_app.runtime.host.bounded_regex import SearchTimeout  # the regex module (~1.3 MB) loads here

    try:
        found = catalog.search(query)
    except SearchTimeout as exc:
        return _error(str(exc), "search_timeout")
    if not found:
        names = catalog.names()
        extra = f" No match. Available deferred tools ({len(names)} total): {available_names(names)}"
        return _error("no matching deferred tools found", "no_match", extra)
    return mtypes.CallToolResult(
        content=[mtypes.TextContent(type="text", text=activation_text(found))],
        structured_content={"promote": [e.name for e in found], "catalog_hash": catalog.hash},
    )


def make_tools_server(catalog: Callable[[], Catalog]) -> MCPServer:
    """A new ``switchboard.tools`` server searching ``catalog()`` (the current deferred catalog)."""
    server = in_process_server(SERVER_NAME, version=__version__, log_level="WARNING")

    @server.tool(name=TOOL_NAME, description=DESCRIPTION, annotations=READ_ONLY)
    async def tool_search(query: str) -> mtypes.CallToolResult:
        # Off the event loop (the window's UI thread too): a regex search may take up to its time bound.
        return await asyncio.to_thread(search_result, catalog(), query)

    return server


__all__ = ["SERVER_NAME", "TOOL_NAME", "activation_text", "available_names", "make_tools_server", "search_result"]
