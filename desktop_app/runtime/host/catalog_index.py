"""The ``<available-deferred-tools>`` index: every server named, and a fair share of the budget each.

This module owns the layout of the block the system prompt carries while tools are deferred (and that
``tool_search`` answers to a blank query). Servers come in catalog order, each with a one-line summary
(``[server: NAME] N tools``), then its tools as ``  name — description`` lines. When everything fits in the
limit (4,000 characters) every tool is listed. Otherwise the space left after the tags, the footer and each
server's summary is shared out fairly (water-filling): a server whose tools fit in its share is listed in
full, and the share it leaves over goes to the others; the larger servers each get an equal share, list
their first tools (catalog order) and end with ``  … N more: use tool_search "+mcp__<server>__ <words>"``.
A footer then says how ``tool_search`` finds the rest. When there are so many servers that their summaries
alone would fill the block, it lists only the servers, by name with their tool counts, wrapped (about 250
fit in 4,000 characters; past that the rest are counted). The result is a pure function of the catalog and the limit
(same entries, same bytes: the provider's prompt cache stays valid), and it reports which tools it named,
which is what the Tools panel shows as "name in index".
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from desktop_app.runtime.host.catalog_entry import CLOSE_TAG, OPEN_TAG, CatalogEntry
from desktop_app.runtime.tool_names import TOOL_DELIMITER, TOOL_PREFIX, sanitize_component

DESCRIPTION_LIMIT = 200
WRAP = 110
"""The servers-only form wraps its list of servers at this width."""
"""A description longer than this is cut in the index (the whole one comes with the schema once loaded)."""


@dataclass(frozen=True)
class DeferredIndex:
    """The rendered block (``""`` for an empty catalog) and the names it lists."""

    text: str
    listed: frozenset[str]
    omitted: int
    """Deferred tools the block does not name (``tool_search`` finds them)."""


def tool_line(entry: CatalogEntry) -> str:
    """``  name — description``, the description on one line and cut at :data:`DESCRIPTION_LIMIT`."""
    description = " ".join(entry.description.split())
    if len(description) > DESCRIPTION_LIMIT:
        description = description[: DESCRIPTION_LIMIT - 1].rstrip() + "…"
    return f"  {entry.name} — {description}"


def _plural(count: int) -> str:
    return f"{count} tool{'s' if count != 1 else ''}"


def _header(server: str, total: int, listed: int | None = None) -> str:
    summary = _plural(total) if listed is None else f"{_plural(total)}, {listed} listed"
    return f"[server: {server}] {summary}"


def search_prefix(server: str, entries: Sequence[CatalogEntry]) -> str | None:
    """The name prefix all of ``server``'s tools share (``mcp__<server>__``), if they do (long names are hashed)."""
    prefix = f"{TOOL_PREFIX}{sanitize_component(server, 'server')}{TOOL_DELIMITER}"
    return prefix if all(e.name.startswith(prefix) for e in entries) else None


def more_line(server: str, entries: Sequence[CatalogEntry], omitted: int) -> str:
    prefix = search_prefix(server, entries)
    how = f'use tool_search "+{prefix} <words>"' if prefix else "use tool_search with a keyword"
    return f"  … {omitted} more: {how}"


def footer(total: int) -> str:
    return (
        f"Not every tool is listed. tool_search finds all {total} deferred tools: a keyword or regex searches "
        'names and descriptions, "+mcp__<server>__ <words>" searches one server\'s tools, "select:<name>" loads '
        "a name you know."
    )


def build_index(groups: dict[str, list[CatalogEntry]], limit: int | None) -> DeferredIndex:
    """The block for ``groups`` (entries by server, in catalog order) within ``limit`` characters
    (``None``: no limit, everything listed)."""
    if not groups:
        return DeferredIndex("", frozenset(), 0)
    lines = {server: [tool_line(e) for e in entries] for server, entries in groups.items()}
    full = {server: len(_header(server, len(entries))) + 1 + _cost(lines[server]) for server, entries in groups.items()}
    tags = len(OPEN_TAG) + 1 + len(CLOSE_TAG)
    if limit is None or tags + sum(full.values()) <= limit:
        return _render(groups, lines, {server: len(entries) for server, entries in groups.items()})
    total = sum(len(entries) for entries in groups.values())
    # The least each server takes: its summary and its "more" line, nothing listed.
    base = {
        server: len(_header(server, len(entries), 0)) + 1 + len(more_line(server, entries, len(entries))) + 1
        for server, entries in groups.items()
    }
    spare = limit - tags - (len(footer(total)) + 1) - sum(base.values())
    if spare < 0:  # so many servers that their summaries alone fill the block: name them, list no tools
        return _servers_only(groups, limit - tags - (len(footer(total)) + 1), total)
    counts = {server: 0 for server in groups}
    if spare > 0:
        need = {server: max(0, full[server] - base[server]) for server in groups}
        waiting = sorted(groups, key=lambda server: (need[server], server))
        for position, server in enumerate(waiting):
            share = spare // (len(waiting) - position)
            if need[server] <= share:
                counts[server] = len(groups[server])
                spare -= need[server]
            else:
                used, counts[server] = _fill(server, groups[server], lines[server], base[server], share)
                spare -= used
    return _render(groups, lines, counts)


def _servers_only(groups: dict[str, list[CatalogEntry]], room: int, total: int) -> DeferredIndex:
    """Every server's name and tool count, wrapped, as many as ``room`` holds (hundreds of servers), then how
    many servers are left out; no tool is listed."""
    intro = f"{len(groups)} servers have deferred tools (how many in brackets):"
    names = [f"{server} ({len(entries)})" for server, entries in groups.items()]
    lines, line, used, named = [intro], "", len(intro) + 1, 0
    reserve = len(f"… and {len(names)} more servers") + 1
    for name in names:
        piece = f"{line}, {name}" if line else f"  {name}"
        if len(piece) > WRAP and line:
            cost = len(f"  {name}") + 1
            if used + cost + (reserve if named + 1 < len(names) else 0) > room:
                break
            lines.append(line)
            line, used = f"  {name}", used + cost
        else:
            cost = len(piece) - len(line) + (1 if not line else 0)
            if used + cost + (reserve if named + 1 < len(names) else 0) > room:
                break
            line, used = piece, used + cost
        named += 1
    if line:
        lines.append(line)
    if named < len(names):
        lines.append(f"… and {len(names) - named} more servers")
    text = "\n".join([OPEN_TAG, *lines, footer(total), CLOSE_TAG])
    return DeferredIndex(text, frozenset(), total)


def _cost(lines: Sequence[str]) -> int:
    return sum(len(line) + 1 for line in lines)


def _fill(server: str, entries: list[CatalogEntry], lines: list[str], base: int, share: int) -> tuple[int, int]:
    """How many of a capped server's tools fit in ``share`` characters over its ``base``, and what they use."""
    used, count = 0, 0
    listed_lines = 0
    for line in lines:
        nxt = count + 1
        cost = (
            len(_header(server, len(entries), nxt))
            + 1
            + listed_lines
            + len(line)
            + 1
            + len(more_line(server, entries, len(entries) - nxt))
            + 1
            - base
        )
        if cost > share:
            break
        count, used, listed_lines = nxt, cost, listed_lines + len(line) + 1
    return used, count


def _render(
    groups: dict[str, list[CatalogEntry]], lines: dict[str, list[str]], counts: dict[str, int]
) -> DeferredIndex:
    out = [OPEN_TAG]
    listed: list[str] = []
    omitted = 0
    for server, entries in groups.items():
        shown = counts[server]
        left = len(entries) - shown
        out.append(_header(server, len(entries), shown if left else None))
        out.extend(lines[server][:shown])
        listed.extend(e.name for e in entries[:shown])
        if left:
            out.append(more_line(server, entries, left))
            omitted += left
    if omitted:
        out.append(footer(sum(len(entries) for entries in groups.values())))
    out.append(CLOSE_TAG)
    return DeferredIndex("\n".join(out), frozenset(listed), omitted)


__all__ = ["DESCRIPTION_LIMIT", "DeferredIndex", "build_index", "footer", "more_line", "search_prefix", "tool_line"]
