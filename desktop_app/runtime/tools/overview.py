"""What the tool panel and ``switchboard tools`` show: every tool with its state and its context cost.

This module owns the read-only overview: each tool of each ready server (excluded ones too, so they can be
brought back) with its state (``builtin``, ``pinned``, ``loaded``, ``deferred``, ``excluded``,
``hook_target``), whether the conversation promoted it, what the model sees of it this turn (its schema, its
name in the deferred index, only what ``tool_search`` finds, or nothing: :meth:`ToolPlan.visibility`, the
computation the index itself uses), its estimated tokens, per-server totals, and what deferral saves.

A query is words (each word must appear in the name or the description, any case; a name match ranks
higher), or ``tool_search``'s syntax, uncapped: ``select:a,b``, ``+must extra…``, or a regular expression
(a query with a regex character such as ``^ $ * ? ( [ |``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from desktop_app.runtime.host.catalog import CATALOG_SERVER, Catalog, CatalogEntry, make_entry
from desktop_app.runtime.host.host import HostTool, tool_spec
from desktop_app.runtime.tools.deferral import CHARS_PER_TOKEN, ConversationTools, ToolDeferral, estimate_tokens
from desktop_app.runtime.tools.plan import ToolPlan, Visibility

ToolState = Literal["builtin", "pinned", "loaded", "deferred", "excluded", "hook_target"]
REGEX_CHARACTERS = frozenset("^$*+?()[]{}|\\")
"""A query holding one of these is a regular expression; otherwise it is words."""


@dataclass(frozen=True)
class ToolRow:
    name: str
    server: str
    tool: str
    description: str
    input_schema: dict[str, Any]
    state: ToolState
    tokens: int
    promoted: bool = False
    pinned_by_server: bool = False
    """Pinned because the whole server is (``"pinned": true``), not this tool alone."""
    visibility: Visibility = "schema"
    """What the model sees of this tool this turn (see :meth:`ToolPlan.visibility`)."""
    held_by: str = ""
    """For a ``hook_target``: the hook that calls it."""

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "server": self.server,
            "tool": self.tool,
            "description": self.description,
            "state": self.state,
            "visibility": self.visibility,
            "promoted": self.promoted,
            "tokens": self.tokens,
            "input_schema": self.input_schema,
        }


@dataclass(frozen=True)
class ServerSummary:
    name: str
    tools: int
    tokens: int
    """Estimated tokens of all its offered (not excluded) tools."""
    sent_tokens: int
    """Of those, what a request carries now (loaded, pinned and promoted tools)."""
    pinned: bool = False
    builtin: bool = False


@dataclass(frozen=True)
class Overview:
    rows: list[ToolRow]
    """The matching tools, grouped by server (servers sorted), best match first within the query's ranking."""
    servers: list[ServerSummary]
    deferring: bool
    reason: str
    catalog_hash: str
    total_tokens: int
    """Every offered tool's definition, as if nothing were deferred."""
    sent_tokens: int
    """What a request of this conversation carries: loaded + promoted definitions and the deferred block."""
    matched: int = 0
    total: int = 0
    named: int = 0
    """Deferred tools the model sees by name in the index this turn."""
    search_only: int = 0
    """Deferred tools the index does not name: the model finds them only with ``tool_search``."""

    @property
    def saved_tokens(self) -> int:
        return max(0, self.total_tokens - self.sent_tokens)

    def grouped(self) -> dict[str, list[ToolRow]]:
        groups: dict[str, list[ToolRow]] = {}
        for row in self.rows:
            groups.setdefault(row.server, []).append(row)
        return groups

    def to_json(self) -> dict[str, Any]:
        return {
            "deferring": self.deferring,
            "reason": self.reason,
            "catalog_hash": self.catalog_hash,
            "total_tokens": self.total_tokens,
            "sent_tokens": self.sent_tokens,
            "saved_tokens": self.saved_tokens,
            "named": self.named,
            "search_only": self.search_only,
            "servers": [s.__dict__ for s in self.servers],
            "tools": [row.to_json() for row in self.rows],
        }


def overview(deferral: ToolDeferral, view: ConversationTools | None = None, query: str = "") -> Overview:
    """The overview of every tool (``query``: only the matches, in rank order), for one conversation."""
    host = deferral.host
    plan = view.plan() if view is not None else deferral.plan()
    promoted = set(view.promoted) if view is not None else set()
    every = [t for t in host.tools(include_excluded=True) if t.server != CATALOG_SERVER]
    rows_by_name: dict[str, ToolRow] = {}
    for tool in every:
        rows_by_name[tool.name] = _row(tool, plan, promoted, deferral)
    ordered = sorted(rows_by_name.values(), key=lambda r: (r.server, r.name))
    matched = ordered
    if query.strip():
        catalog = Catalog(make_entry(r.name, r.server, r.description) for r in ordered)
        ranked = [e.name for e in find(catalog, query)]
        position = {name: i for i, name in enumerate(ranked)}
        matched = sorted((rows_by_name[n] for n in ranked), key=lambda r: (r.server, position[r.name]))
    servers: list[ServerSummary] = []
    for server in sorted({r.server for r in ordered}):
        mine = [r for r in ordered if r.server == server and r.visibility != "not_offered"]
        sent = sum(r.tokens for r in mine if r.visibility == "schema")
        config = getattr(host, "config", None)
        server_config = config(server) if config is not None else None
        servers.append(
            ServerSummary(
                name=server,
                tools=len(mine),
                tokens=sum(r.tokens for r in mine),
                sent_tokens=sent,
                pinned=bool(server_config is not None and server_config.pinned is True),
                builtin=any(r.state == "builtin" for r in mine),
            )
        )
    offered = [r for r in ordered if r.visibility != "not_offered"]
    total = sum(r.tokens for r in offered)
    sent = sum(s.sent_tokens for s in servers)
    if plan.deferring:
        search_tokens = sum(v for k, v in plan.tokens.items() if k not in rows_by_name)
        note = view.system_note() if view is not None else ""
        sent += search_tokens + -(-len(note) // CHARS_PER_TOKEN)
    return Overview(
        rows=matched,
        servers=servers,
        deferring=plan.deferring,
        reason=plan.reason,
        catalog_hash=plan.catalog.hash,
        total_tokens=total,
        sent_tokens=sent,
        matched=len(matched),
        total=len(ordered),
        named=sum(1 for r in ordered if r.visibility == "named"),
        search_only=sum(1 for r in ordered if r.visibility == "search_only"),
    )


def find(catalog: Catalog, query: str) -> list[CatalogEntry]:
    """The entries ``query`` finds, best first: words (see the module docstring), else ``tool_search``'s
    forms, uncapped."""
    query = query.strip()
    if query.startswith(("select:", "+")) or any(char in REGEX_CHARACTERS for char in query):
        return catalog.search(query, limit=None)
    words = query.lower().split()
    scored: list[tuple[int, int]] = []
    for index, entry in enumerate(catalog.entries):
        name, description = entry.name.lower(), entry.description.lower()
        score = 0
        for word in words:
            if word in name:
                score += 2
            elif word in description:
                score += 1
            else:
                break
        else:
            scored.append((-score, index))
    return [catalog.entries[index] for _, index in sorted(scored)]


def _row(tool: HostTool, plan: ToolPlan, promoted: set[str], deferral: ToolDeferral) -> ToolRow:
    state: ToolState
    catalog, tokens = plan.catalog, plan.tokens
    if tool.excluded:
        state = "excluded"
    elif tool.builtin:
        state = "builtin"
    elif tool.name in plan.held:
        state = "hook_target"
    elif tool.name in catalog:
        state = "deferred"
    elif tool.pinned:
        state = "pinned"
    else:
        state = "loaded"
    config = getattr(deferral.host, "config", None)
    server_config = config(tool.server) if config is not None and not tool.builtin else None
    return ToolRow(
        name=tool.name,
        server=tool.server,
        tool=tool.tool,
        description=tool.description,
        input_schema=tool.input_schema,
        state=state,
        tokens=tokens.get(tool.name) or estimate_tokens(tool_spec(tool)),
        promoted=tool.name in promoted and state == "deferred",
        pinned_by_server=bool(server_config is not None and server_config.pinned is True),
        visibility="not_offered" if tool.excluded else plan.visibility(tool.name, promoted),
        held_by=plan.held.get(tool.name, ""),
    )


__all__ = ["REGEX_CHARACTERS", "Overview", "ServerSummary", "ToolRow", "ToolState", "find", "overview"]
