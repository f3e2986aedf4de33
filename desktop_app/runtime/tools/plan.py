"""The tool plan: which tools are offered, which are loaded, which are deferred, and what the model sees.

This module owns the data the deferral policy (:mod:`.deferral`) computes and everything that reads it
(the run loop's tool list, the system note, the Tools panel and ``switchboard tools``):

* :class:`ToolPlan`: the offered tools, the loaded ones, the deferred :class:`Catalog`, the estimated tokens,
  and the tools held back because a hook uses them;
* :meth:`ToolPlan.visibility`: per tool, what the model can see of it this turn (its schema, its name in the
  ``<available-deferred-tools>`` index, nothing but what ``tool_search`` finds, or nothing at all). It reads
  the index's own list of names (:meth:`Catalog.index`), so the panel and the block never disagree;
* :func:`hook_targets`: the tools that hooks call (MCP message hook targets such as ``pii/redact`` and the
  targets of ``mcp`` lifecycle hooks). Such a tool is a filter, not a tool for the model: it is not offered
  unless the user pins it.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, field
from typing import Any, Literal

from desktop_app.runtime.host.catalog import Catalog
from desktop_app.runtime.host.host import HostTool

Visibility = Literal["schema", "named", "search_only", "not_offered"]
"""What the model sees of a tool this turn: its schema (loaded, pinned, built-in or promoted), its name in the
deferred index, only what ``tool_search`` finds, or nothing (excluded, or held back as a hook target)."""


@dataclass(frozen=True)
class ToolPlan:
    """The tools on offer right now, and which of them are deferred."""

    tools: tuple[HostTool, ...]
    """Every offered tool (not excluded), sorted by model-facing name; ``tool_search`` is left out."""
    loaded: tuple[HostTool, ...]
    """What every request carries: all tools, or (deferring) the built-ins, ``tool_search`` and pinned tools."""
    catalog: Catalog
    deferring: bool
    reason: str
    tokens: dict[str, int] = field(default_factory=dict)
    """Estimated tokens of each tool's definition, by model-facing name."""
    by_name: dict[str, HostTool] = field(default_factory=dict)
    held: dict[str, str] = field(default_factory=dict)
    """Tools not offered because a hook uses them (model-facing name → which hook), unless pinned."""

    @property
    def total_tokens(self) -> int:
        return sum(self.tokens.get(t.name, 0) for t in self.tools)

    @property
    def loaded_tokens(self) -> int:
        return sum(self.tokens.get(t.name, 0) for t in self.loaded)

    def is_deferred(self, name: str) -> bool:
        return name in self.catalog

    def visibility(self, name: str, promoted: Collection[str] = ()) -> Visibility:
        """What the model sees of ``name`` in a conversation that promoted ``promoted``."""
        if name in self.catalog:
            if name in promoted:
                return "schema"
            return "named" if name in self.catalog.index().listed else "search_only"
        return "schema" if name in self.by_name else "not_offered"


def hook_targets(host: object) -> dict[tuple[str, str], str]:
    """``(server, tool)`` → the hook that calls it, for every hook target configured on ``host``'s hook
    runner (any trust state: an untrusted hook is still meant as a filter). Empty without hooks."""
    runner: Any = getattr(host, "hooks", None)
    if runner is None or not callable(getattr(runner, "hooks", None)):
        return {}
    found = runner.hooks()
    targets: dict[tuple[str, str], str] = {}
    for mapping in found.mappings:
        for target in mapping.targets:
            targets.setdefault((target.server, target.tool), f"the message hook '{mapping.key}'")
    for hook in found.lifecycle:
        definition = hook.definition
        if definition.type == "mcp" and definition.target:
            server, _, tool = definition.target.strip().partition("/")
            if server and tool:
                targets.setdefault((server, tool), f"a {hook.event} hook")
    return targets


__all__ = ["ToolPlan", "Visibility", "hook_targets"]
