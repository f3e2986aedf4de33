"""The ``<available-deferred-tools>`` index: every server named, a fair share each, the same bytes every time."""

from __future__ import annotations

import random

from desktop_app.runtime.host.catalog import CLOSE_TAG, DEFERRED_BLOCK_LIMIT, OPEN_TAG, Catalog, make_entry
from desktop_app.runtime.host.catalog_index import DESCRIPTION_LIMIT

BIG = [make_entry(f"mcp__many__tool_{i:03d}", "many", f"Echo number {i}.") for i in range(60)]
TIME = make_entry("mcp__time__get_current_time", "time", "Get the current time in an IANA timezone.")
CRM = make_entry("mcp__crm__lookup", "crm", "Look up a customer by name or e-mail.")


def tool_lines(block: str, server: str) -> list[str]:
    lines = block.split("\n")
    start = next(i for i, line in enumerate(lines) if line.startswith(f"[server: {server}]"))
    found = []
    for line in lines[start + 1 :]:
        if not line.startswith("  "):
            break
        found.append(line)
    return found


def test_a_big_server_does_not_hide_the_small_ones() -> None:
    # The case: 60 tools of one server filled the 4,000 characters; time and crm were left out.
    wordy = [make_entry(e.name, e.server, e.description + " " + "padding " * 12) for e in BIG]
    catalog = Catalog([*wordy, TIME, CRM])
    block = catalog.render_capped()
    assert len(block) <= DEFERRED_BLOCK_LIMIT
    assert block.startswith(OPEN_TAG + "\n") and block.endswith("\n" + CLOSE_TAG)
    # Small servers: listed in full, each under its one-line summary.
    assert "[server: crm] 1 tool\n  mcp__crm__lookup — Look up a customer by name or e-mail.\n" in block
    assert "[server: time] 1 tool\n  mcp__time__get_current_time — " in block
    # The big one: capped, counted, and told how to find the rest.
    listed = [line for line in tool_lines(block, "many") if not line.startswith("  … ")]
    assert 0 < len(listed) < 60
    assert f"[server: many] 60 tools, {len(listed)} listed\n" in block
    assert f'  … {60 - len(listed)} more: use tool_search "+mcp__many__ <words>"\n' in block
    assert "tool_search finds all 62 deferred tools" in block
    index = catalog.index()
    assert {"mcp__time__get_current_time", "mcp__crm__lookup"} <= index.listed
    assert len(index.listed) == len(listed) + 2 and index.omitted == 60 - len(listed)
    assert block.count("[server: ") == 3


def test_the_budget_is_shared_fairly_between_large_servers() -> None:
    servers = {
        name: [make_entry(f"mcp__{name}__t{i:03d}", name, f"{name} does task {i}") for i in range(count)]
        for name, count in (("north", 200), ("south", 200), ("tiny", 3))
    }
    catalog = Catalog(e for entries in servers.values() for e in entries)
    block = catalog.render_capped()
    assert len(block) <= DEFERRED_BLOCK_LIMIT
    north, south = len(tool_lines(block, "north")) - 1, len(tool_lines(block, "south")) - 1
    assert north > 10 and abs(north - south) <= 1  # equal shares (same line lengths)
    assert len(tool_lines(block, "tiny")) == 3  # the small one in full, no "more" line
    # What a full server leaves goes to the capped ones: the block is nearly full.
    assert len(block) > DEFERRED_BLOCK_LIMIT - 200


def test_everything_listed_when_it_fits_and_descriptions_stay_on_one_line() -> None:
    long = make_entry("mcp__docs__read", "docs", "Read a page.\n\nArgs:\n  path: " + "x" * 500)
    catalog = Catalog([TIME, CRM, long])
    block = catalog.render_capped()
    assert "Not every tool is listed" not in block and " more: " not in block
    assert catalog.index().listed == {TIME.name, CRM.name, long.name} and catalog.index().omitted == 0
    (line,) = tool_lines(block, "docs")
    assert line.startswith("  mcp__docs__read — Read a page. Args: path: xxx") and line.endswith("…")
    assert len(line) == len("  mcp__docs__read — ") + DESCRIPTION_LIMIT


def test_hundreds_of_servers_are_named_without_their_tools() -> None:
    # 150 servers: their summaries alone would pass 4,000 characters; every server is named, with its count.
    catalog = Catalog(make_entry(f"mcp__server{i:03d}__tool", f"server{i:03d}", "does a thing") for i in range(150))
    block = catalog.render_capped()
    assert len(block) <= DEFERRED_BLOCK_LIMIT and "150 servers have deferred tools" in block
    assert all(f"server{i:03d} (1)" in block for i in range(150))
    assert catalog.index().listed == frozenset() and "tool_search finds all 150 deferred tools" in block
    # 2,000 servers: as many as fit, then a count; the block stays within its limit.
    huge = Catalog(make_entry(f"mcp__s{i:04d}__t", f"s{i:04d}", "x") for i in range(2000)).render_capped()
    assert len(huge) <= DEFERRED_BLOCK_LIMIT and "s0000 (1)" in huge
    assert "more servers\n" in huge and huge.endswith(CLOSE_TAG)


def test_same_inputs_same_bytes_in_any_order() -> None:
    entries = [*BIG, TIME, CRM]
    shuffled = list(entries)
    random.Random(7).shuffle(shuffled)
    assert Catalog(entries).render_capped() == Catalog(shuffled).render_capped()
    assert Catalog(entries).index().listed == Catalog(shuffled).index().listed


def test_long_server_names_fall_back_to_a_keyword_hint() -> None:
    # Names over 64 bytes are hashed, so they share no "+mcp__<server>__" prefix.
    server = "a-server-with-a-really-long-name-that-does-not-fit-in-the-tool-name"
    from desktop_app.runtime.tool_names import qualify_tool_name

    entries = [make_entry(qualify_tool_name(server, f"tool_{i:03d}"), server, "x " * 60) for i in range(80)]
    block = Catalog([*entries, TIME]).render_capped()
    assert " more: use tool_search with a keyword" in block and "[server: time] 1 tool" in block
