"""Pinning and excluding tools: the new ``pinned``/``excludedTools`` of a server, written to mcp.json.

This module owns the rules of the tool panel's toggles (Qt-free, so the CLI or a test can use them):

* pinning a tool adds it to the server's ``pinned`` list (``"pinned": true`` pins the whole server, and
  then single tools cannot be unpinned); an excluded tool is not pinned;
* excluding a tool adds it to ``excludedTools`` and unpins it;
* an empty list removes the field from the entry.

:func:`save_tool_preferences` writes the entry with :func:`~desktop_app.runtime.host.config_edit.set_server_fields`
(only that entry's text changes; a broken file raises ``ConfigError`` and is never written), then tells the
running host, so the next request follows without restarting the server.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from desktop_app.runtime.host.config import ServerConfig
from desktop_app.runtime.host.config_edit import set_server_fields


@dataclass(frozen=True)
class ToolPreferences:
    pinned: bool | list[str]
    excluded: list[str]

    @classmethod
    def of(cls, config: ServerConfig) -> ToolPreferences:
        pinned = config.pinned if config.pinned is True else list(config.pinned or [])
        return cls(pinned=pinned, excluded=list(config.excluded_tools))

    def is_pinned(self, tool: str) -> bool:
        return self.pinned is True or (isinstance(self.pinned, list) and tool in self.pinned)

    def pin_tool(self, tool: str, on: bool) -> ToolPreferences:
        if self.pinned is True:
            return self  # the whole server is pinned
        pinned = [t for t in self.pinned if t != tool] if isinstance(self.pinned, list) else []
        excluded = self.excluded
        if on:
            pinned.append(tool)
            excluded = [t for t in excluded if t != tool]
        return ToolPreferences(pinned=sorted(pinned), excluded=excluded)

    def pin_server(self, on: bool) -> ToolPreferences:
        if on:
            return ToolPreferences(pinned=True, excluded=self.excluded)
        return ToolPreferences(pinned=[], excluded=self.excluded)

    def exclude_tool(self, tool: str, on: bool) -> ToolPreferences:
        excluded = [t for t in self.excluded if t != tool]
        pinned = self.pinned
        if on:
            excluded.append(tool)
            if isinstance(pinned, list):
                pinned = [t for t in pinned if t != tool]
        return ToolPreferences(pinned=pinned, excluded=sorted(excluded))

    def fields(self) -> dict[str, object]:
        """The mcp.json fields (``None`` removes an empty one)."""
        names = sorted(self.pinned) if isinstance(self.pinned, list) else []
        pinned: object = True if self.pinned is True else (names or None)
        return {"pinned": pinned, "excludedTools": sorted(self.excluded) or None}


class PreferenceHost(Protocol):
    def set_tool_preferences(self, server: str, *, pinned: bool | list[str], excluded_tools: list[str]) -> None: ...


def save_tool_preferences(path: Path, host: PreferenceHost, server: str, preferences: ToolPreferences) -> None:
    """Write ``preferences`` into ``server``'s entry of the mcp.json at ``path``, then apply them to ``host``."""
    set_server_fields(path, server, **preferences.fields())
    host.set_tool_preferences(server, pinned=preferences.pinned, excluded_tools=list(preferences.excluded))


__all__ = ["PreferenceHost", "ToolPreferences", "save_tool_preferences"]
