"""One deferred tool as the catalog keeps it (:class:`CatalogEntry`, :func:`make_entry`) and the tags of the
``<available-deferred-tools>`` block; shared by :mod:`.catalog` and :mod:`.catalog_index` (which imports
nothing else of the catalog), and re-exported by :mod:`.catalog`."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

DEFAULT_DESCRIPTION = "MCP tool"
OPEN_TAG = "<available-deferred-tools>"
CLOSE_TAG = "</available-deferred-tools>"


@dataclass(frozen=True)
class CatalogEntry:
    """One deferred tool: its model-facing name, its server's raw name and its description."""

    name: str
    server: str
    description: str
    input_schema: Mapping[str, Any] = field(default_factory=dict, compare=False, hash=False)
    """Kept for promotion (the schema the model gets); not part of the hash."""


def make_entry(
    name: str, server: str, description: str | None, input_schema: Mapping[str, Any] | None = None
) -> CatalogEntry:
    """An entry with the description trimmed, or ``MCP tool`` when there is none (as Whale does)."""
    text = (description or "").strip() or DEFAULT_DESCRIPTION
    return CatalogEntry(name=name, server=server, description=text, input_schema=dict(input_schema or {}))


__all__ = ["CLOSE_TAG", "DEFAULT_DESCRIPTION", "OPEN_TAG", "CatalogEntry", "make_entry"]
