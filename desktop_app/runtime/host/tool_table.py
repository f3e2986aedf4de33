"""The host's tool table: the model-facing names of every ready server's tools.

:class:`ToolTable` (a collaborator of :class:`~desktop_app.runtime.host.host.Host`, reading the
:class:`~.registry.ServerRegistry`) names tools Whale's way
(``mcp__<server>__<tool>`` for external tools, bare names for built-in ones; every name as every provider
accepts it, see :mod:`.names`), applies ``pinned`` and
``excludedTools``, caches the list, and answers which server and tool a model-facing name means.
:class:`HostTool`, :func:`normalize_schema` and :func:`tool_spec` are the values it hands out.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict

from desktop_app.runtime.host.catalog import CATALOG_SERVER
from desktop_app.runtime.host.config import ServerConfig
from desktop_app.runtime.host.registry import ServerRegistry
from desktop_app.runtime.messages import ToolSpec
from desktop_app.runtime.tool_names import model_safe_name, qualify_tool_name, unique_tool_name


class HostTool(BaseModel):
    """One tool the model can call: its model-facing name and where it really lives."""

    model_config = ConfigDict(frozen=True, defer_build=True)

    name: str
    server: str
    tool: str
    description: str = ""
    input_schema: dict[str, Any]
    read_only: bool = False
    builtin: bool = False
    pinned: bool = False
    """``pinned`` in mcp.json (the whole server, or this tool): always loaded, never deferred."""
    excluded: bool = False
    """In the server's ``excludedTools``: never offered (listed only by ``tools(include_excluded=True)``)."""
    ui_resource_uri: str | None = None
    """MCP Apps: the ``ui://`` view this tool's results render in (``_meta.ui.resourceUri``)."""
    app_only: bool = False
    """MCP Apps ``visibility: ["app"]``: callable by its server's views only, never offered to the model
    (listed only by ``tools(include_app_only=True)``)."""
    app_visible: bool = True
    """MCP Apps ``visibility`` includes ``app``: its server's views may call it."""


def normalize_schema(schema: Mapping[str, Any] | None) -> dict[str, Any]:
    """A copy of an input schema with ``type: object`` and ``properties: {}`` filled in (Whale §1.4)."""
    if not schema:
        return {"type": "object", "properties": {}, "additionalProperties": True}
    result = dict(schema)
    result.setdefault("type", "object")
    result.setdefault("properties", {})
    return result


def tool_spec(tool: HostTool) -> ToolSpec:
    """One tool as the model sees it. External descriptions name their server and tool (Whale)."""
    description = tool.description
    if not tool.builtin:
        description = f"{description or 'MCP tool'} (MCP server: {tool.server}, tool: {tool.tool})"
    return ToolSpec(name=tool.name, description=description, parameters=tool.input_schema)


def _same_key(old: list[object], new: list[object]) -> bool:
    """Whether two :meth:`Host.tools` cache keys name the very same connections, tool lists and configs."""
    if len(old) != len(new):
        return False
    for a, b in zip(old, new, strict=True):
        assert isinstance(a, tuple) and isinstance(b, tuple)
        if a[0] != b[0] or a[1] != b[1] or a[2] is not b[2] or a[3] is not b[3] or a[4:] != b[4:]:
            return False
    return True


class ToolTable:
    """The tool list (:meth:`tools`), its per-server preferences and name lookups."""

    def __init__(self, registry: ServerRegistry, restarting: Callable[[str], bool]) -> None:
        """``restarting(server)``: a crashed server is being restarted (its last tools stay on offer)."""
        self._registry = registry
        self._restarting = restarting
        self._tools_cache: tuple[list[object], tuple[bool, bool], list[HostTool]] | None = None

    def set_tool_preferences(self, server: str, *, pinned: bool | list[str], excluded_tools: list[str]) -> None:
        """Change a server's ``pinned`` and ``excludedTools`` while running (no restart); the next tool list
        follows. The caller writes mcp.json (see :mod:`.config_edit`)."""
        self._registry.require_known(server)
        if server in self._registry.builtins:
            raise ValueError(f"'{server}' is a built-in server; its tools are always loaded")
        self._registry.configs[server] = self._registry.configs[server].model_copy(
            update={"pinned": pinned, "excluded_tools": list(excluded_tools)}
        )

    def config(self, server: str) -> ServerConfig | None:
        """The current configuration of an external server (``None`` for a built-in or an unknown name)."""
        return self._registry.configs.get(server)

    def is_builtin(self, server: str) -> bool:
        return server in self._registry.builtins

    def server_identity(self, server: str) -> str | None:
        """What a grant for ``server`` is bound to: its command and arguments (stdio) or its URL, as
        configured now; ``None`` for an unknown server. A changed definition is another identity."""
        if server in self._registry.builtins:
            return f"builtin:{server}"
        config = self._registry.configs.get(server)
        if config is None:
            return None
        if config.transport == "stdio":
            return json.dumps({"command": config.command, "args": list(config.args)}, ensure_ascii=False)
        return json.dumps({"url": config.url}, ensure_ascii=False)

    def tools(self, *, include_excluded: bool = False, include_app_only: bool = False) -> list[HostTool]:
        """Every tool of every ready server, sorted by model-facing name.

        Names are assigned in a fixed order (built-ins first, then external servers sorted by name,
        tools sorted by original name), so collisions resolve the same way every time. A built-in
        server's tools appear once it has been used (see :meth:`ensure_connected`). Excluded tools
        (``excludedTools``) are left out unless ``include_excluded``; they keep their names either way.
        The list is rebuilt only when a connection, its tools or a configuration changed.
        A server that crashed and is being restarted keeps its last tools on offer: a call to one waits
        for the restart.
        """
        key: list[object] = [
            (name, c.state, c.tools, self._registry.configs.get(name), self._restarting(name))
            for name, c in sorted(self._registry.connections.items())
        ]
        cached = self._tools_cache
        wanted = (include_excluded, include_app_only)
        if cached is not None and cached[1] == wanted and _same_key(cached[0], key):
            return list(cached[2])
        result = self._build_tools(include_excluded, include_app_only)
        self._tools_cache = (key, wanted, result)
        return list(result)

    def _build_tools(self, include_excluded: bool, include_app_only: bool = False) -> list[HostTool]:
        seen: set[str] = set()
        result: list[HostTool] = []
        ready = {name: c.tools for name, c in self._registry.connections.items() if c.state == "ready"}
        for name, last in self._registry.last_tools.items():
            if name not in ready and self._restarting(name):
                ready[name] = last
        builtin_names = sorted(name for name in ready if name in self._registry.builtins)
        from desktop_app.runtime.apps.meta import tool_ui  # with the first tool list (MCP Apps' _meta.ui)

        external_names = sorted(name for name in ready if name not in self._registry.builtins)
        for server in [*builtin_names, *external_names]:
            builtin = server in self._registry.builtins
            config = None if builtin else self._registry.configs[server]
            excluded = set(config.excluded_tools) if config is not None else set()
            pinned = config.pinned if config is not None else False
            for tool in sorted(ready[server], key=lambda t: t.name):
                is_excluded = tool.name in excluded
                base = model_safe_name(tool.name) if builtin else qualify_tool_name(server, tool.name)
                annotations = tool.annotations
                ui = tool_ui(tool.meta)
                result.append(
                    HostTool(
                        name=unique_tool_name(base, seen),
                        server=server,
                        tool=tool.name,
                        description=tool.description or "",
                        input_schema=normalize_schema(tool.input_schema),
                        read_only=bool(annotations and annotations.read_only_hint),
                        builtin=builtin,
                        pinned=builtin or pinned is True or (isinstance(pinned, list) and tool.name in pinned),
                        excluded=is_excluded,
                        ui_resource_uri=ui.resource_uri,
                        app_only=not ui.model_visible,
                        app_visible=ui.app_visible,
                    )
                )
        kept = result if include_excluded else [t for t in result if not t.excluded]  # never offered
        kept = kept if include_app_only else [t for t in kept if not t.app_only]  # views' tools only
        return sorted(kept, key=lambda t: t.name)

    def tool_specs(self) -> list[ToolSpec]:
        """Every tool as the model sees it, without deferral (see :mod:`desktop_app.runtime.tools.deferral`); so
        ``tool_search``, which only searches deferred tools, is left out."""
        return [tool_spec(tool) for tool in self.tools() if tool.server != CATALOG_SERVER]

    def lookup(self, model_name: str) -> HostTool | None:
        """The tool the model means by ``model_name``, or ``None``. A name as it was before it was made safe
        for providers (``chat-with-kit.scout``, from a conversation stored earlier) finds its tool too."""
        tools = self.tools()
        found = next((tool for tool in tools if tool.name == model_name), None)
        if found is None and model_safe_name(model_name) != model_name:
            safe = model_safe_name(model_name)
            found = next((tool for tool in tools if tool.name == safe), None)
        return found

    def model_name(self, server: str, tool: str) -> str:
        """The model-facing name of ``server``'s ``tool`` (what hook ``match`` patterns see)."""
        for known in self.tools():
            if known.server == server and known.tool == tool:
                return known.name
        return model_safe_name(tool) if server in self._registry.builtins else qualify_tool_name(server, tool)


__all__ = ["HostTool", "ToolTable", "normalize_schema", "tool_spec"]
