"""The Tools panel's words and styles: state labels (a deferred tool's says whether the model sees its name),
the summary, the detail text, the empty states and the Pin/Exclude box style (see :mod:`.panel`)."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from desktop_app.runtime.tools.overview import Overview, ToolRow

STATE_LABELS = {
    "builtin": "built-in",
    "pinned": "pinned",
    "loaded": "loaded",
    "deferred": "deferred",
    "excluded": "excluded",
    "hook_target": "hook target",
}
SEES_TIPS = {
    "schema": "The model gets this tool's full definition with every request: it can call it.",
    "named": "The model sees this tool's name and description in the deferred index; tool_search loads it.",
    "search_only": (
        "The deferred index has no room to name this tool this turn: the model finds it only with tool_search "
        "(a keyword, or +mcp__<server>__ words). Pin it to always send it."
    ),
    "not_offered": "Not offered to the model.",
}
PLACEHOLDER = "Search tools: words, +server extra words, select:a,b or a regex"
SEARCH_TIP = (
    "Words: every word must appear in the tool's name or description (any case) · select:a,b loads exactly "
    "these names · +word extra: names containing word, ranked by the extra words · a query with a regex "
    "character (^ $ * ? ( [ | …) is a case-insensitive regular expression"
)
NO_TOOLS = (
    "No tools yet. Add MCP servers (File → Import MCP servers…, or mcp.json); the built-in tools appear once a "
    "conversation has started."
)
TOGGLE_STYLE = (
    "QTreeView::indicator { width: 11px; height: 11px; border: 1px solid palette(placeholder-text);"
    " border-radius: 3px; background: palette(base); }"
    " QTreeView::indicator:checked { background: palette(highlight); border-color: palette(highlight); }"
    # A selected row is drawn in the highlight colour: there the boxes take the selected text's colour,
    # hollow when unchecked and filled when checked, so the state stays visible.
    " QTreeView::indicator:selected { background: transparent; border: 2px solid palette(highlighted-text); }"
    " QTreeView::indicator:checked:selected { background: palette(highlighted-text); }"
)
"""Pin/Exclude boxes drawn from the palette: visible in the light and the dark theme, selected or not."""


def no_match_text(query: str) -> str:
    return f"No tools match “{query.strip()}”. Every word must appear in a tool's name or description."


def slow_pattern_text(query: str, limit: float) -> str:
    """A search whose regular expression ran out of time (``SearchTimeout``)."""
    return (
        f"That pattern took too long to match (more than {limit:g} s) and was stopped: “{query.strip()}”. "
        "Search with words, or use a simpler pattern (a word, or '+word extra terms')."
    )


def summary_text(result: Overview) -> str:
    """Two or three lines: how many tools and what they would cost, what deferral sends and saves, and
    what the model sees of the deferred tools."""
    servers = len(result.servers)
    plural = "s" if servers != 1 else ""
    first = f"{result.total:,} tools on {servers} server{plural} · ~{result.total_tokens:,} tokens if all were sent"
    if result.deferring:
        share = 100 * result.saved_tokens / result.total_tokens if result.total_tokens else 0
        second = (
            f"Deferral on: {result.reason}. This conversation sends ~{result.sent_tokens:,} tokens of tool "
            f"definitions; deferral saves ~{result.saved_tokens:,} ({share:.0f} %)."
        )
        if result.search_only:
            second += (
                f"\nThe model sees {result.named:,} deferred tools by name; {result.search_only:,} are hidden "
                "(not named in its index this turn: only tool_search finds them)."
            )
    else:
        second = f"Deferral off: {result.reason}. Every definition is sent (~{result.sent_tokens:,} tokens)."
    return f"{first}\n{second}"


DEFERRED_LABELS = {"named": "in index", "search_only": "hidden"}
"""A deferred tool's state says what the model sees of it: its name in the index, or nothing (tool_search)."""


def state_text(row: ToolRow) -> str:
    """The State column: what the tool is, and so what the model sees of it this turn."""
    if row.promoted:
        return "● promoted"
    if row.state == "deferred":
        return DEFERRED_LABELS.get(row.visibility, STATE_LABELS["deferred"])
    return STATE_LABELS[row.state]


def sees_tip(row: ToolRow) -> str:
    if row.state == "hook_target":
        return (
            f"Used by {row.held_by}: a hook's tool is not offered to the model as an ordinary tool. Pin it to "
            "offer it anyway."
        )
    if row.state == "excluded":
        return "Excluded (excludedTools): never offered to the model."
    return SEES_TIPS[row.visibility]


def detail_text(row: ToolRow) -> str:
    """The selected tool: name, where it lives, state, what the model sees, description and parameters."""
    state = STATE_LABELS[row.state] + (", promoted in this conversation" if row.promoted else "")
    lines = [
        row.name,
        f"{row.server} / {row.tool} · {state} · ~{row.tokens:,} tokens",
        f"Model sees: {sees_tip(row)}",
        "",
        row.description or "(no description)",
    ]
    lines += ["", "Input schema:", json.dumps(row.input_schema, indent=2, ensure_ascii=False)]
    return "\n".join(lines)


__all__ = [
    "DEFERRED_LABELS",
    "NO_TOOLS",
    "PLACEHOLDER",
    "SEARCH_TIP",
    "STATE_LABELS",
    "TOGGLE_STYLE",
    "detail_text",
    "no_match_text",
    "sees_tip",
    "state_text",
    "summary_text",
]
