"""``switchboard.tools``: tool_search's answers (Whale's texts), through the real in-process server."""

from __future__ import annotations

import pytest

from desktop_app.runtime.builtins.tools import make_tools_server
from desktop_app.runtime.host import Host
from desktop_app.runtime.host.catalog import Catalog, make_entry

CATALOG = Catalog(
    [
        make_entry(
            "mcp__gh__search_code", "gh", "Search code", {"type": "object", "properties": {"q": {"type": "string"}}}
        ),
        make_entry("mcp__gh__list_issues", "gh", "List issues", {"type": "object", "properties": {}}),
    ]
)


async def search(catalog: Catalog, query: object) -> tuple[str, bool, dict[str, object] | None]:
    host = Host()
    host.register_builtin("switchboard.tools", lambda: make_tools_server(lambda: catalog))
    try:
        outcome = await host.call("switchboard.tools", "tool_search", {"query": query})
        listed = host.tools()
    finally:
        await host.aclose()
    assert [t.name for t in listed] == ["tool_search"] and listed[0].read_only and listed[0].builtin
    return outcome.text, outcome.is_error, outcome.structured


@pytest.mark.asyncio
async def test_success_lists_schemas_and_names_what_to_promote() -> None:
    text, is_error, structured = await search(CATALOG, "search")
    assert not is_error
    assert text == (
        "Activated 1 tool(s):\n\n## mcp__gh__search_code\nSearch code\n"
        'Parameters: {\n  "q": {\n    "type": "string"\n  }\n}\n\n'
        "These tools are now available in your tool schema for subsequent calls."
    )
    assert structured == {"promote": ["mcp__gh__search_code"], "catalog_hash": CATALOG.hash}


@pytest.mark.asyncio
async def test_blank_query_returns_the_index() -> None:
    text, is_error, _ = await search(CATALOG, "  ")
    assert not is_error and text == CATALOG.render()


@pytest.mark.asyncio
async def test_empty_catalog_and_bad_input() -> None:
    text, is_error, _ = await search(Catalog(), "x")
    assert is_error and text == '{"ok":false,"error":"no deferred MCP tools available","code":"no_deferred_tools"}'
    text, is_error, _ = await search(CATALOG, 42)
    assert is_error and "query" in text
