"""Switchboard's built-in MCP servers, registered with the host as lazy factories (nanobot §2.1).

Each built-in is an in-process ``MCPServer`` named ``switchboard.<name>``; :func:`register_builtins`
only registers the factories, so nothing is created at assembly or at ``Host.start()``. A server is
created the first time it is used: when a run starts (the runtime asks the host to connect the
built-ins, so that their tools are listed to the model) or on a direct ``Host.call``. Their tools keep
bare names and go through the same ``Host.call`` as external tools. Their tools declare no output schema
(``structured_output=False``): a result is the JSON text of a model their own server already validated, read
back as structured content by ``host.outcomes``; with a schema the SDK's client revalidated every result
with ``jsonschema`` (~3 MB on the first call).

* ``switchboard.system``: ``current_time``, ``system_info`` (read-only: never ask);
* ``switchboard.history``: ``search_conversations``, ``read_conversation`` (read-only: never ask);
* ``switchboard.artifacts``: ``list_artifacts``, ``read_artifact`` (read-only: never ask) and
  ``save_artifact`` (writes a file: asks for approval).
* ``switchboard.tools``: ``tool_search`` over the deferred tool catalog (read-only: never ask); offered to
  the model only while tools are deferred (see :mod:`desktop_app.runtime.tools.deferral`).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:  # each server's module (and the SDK's MCPServer) loads when the server is first created
    from mcp.server.mcpserver import MCPServer

    from desktop_app.paths import AppPaths
    from desktop_app.runtime.builtins.artifacts import (
        FOLDER_NAME,
        MAX_ARTIFACT_BYTES,
        ArtifactStore,
        make_artifacts_server,
    )
    from desktop_app.runtime.builtins.history import make_history_server
    from desktop_app.runtime.builtins.system import local_zone_name, make_system_server
    from desktop_app.runtime.builtins.tools import make_tools_server
    from desktop_app.runtime.host.catalog import Catalog
    from desktop_app.runtime.store import Store

SYSTEM = "switchboard.system"
HISTORY = "switchboard.history"
ARTIFACTS = "switchboard.artifacts"
TOOLS = "switchboard.tools"
BUILTIN_SERVERS = (SYSTEM, HISTORY, ARTIFACTS, TOOLS)


class BuiltinRegistry(Protocol):
    """What :func:`register_builtins` needs of the host."""

    def register_builtin(self, name: str, factory: Callable[[], MCPServer]) -> None: ...


def register_builtins(
    host: BuiltinRegistry,
    *,
    store: Store | None,
    paths: AppPaths,
    max_artifact_bytes: int | None = None,
    tool_catalog: Callable[[], Catalog] | None = None,
) -> list[str]:
    """Register every built-in server's factory with ``host`` (nothing is created here).

    ``store`` is the conversation store (``None``: history is off, and the history tools say so);
    artifacts live in ``<paths.data_dir>/artifacts/``. Returns problems for the user: a server in
    ``mcp.json`` that already uses a built-in's name keeps it, and that built-in is left out.
    ``tool_catalog`` gives the current deferred catalog (``None``: no ``switchboard.tools``).
    ``max_artifact_bytes``: ``None`` is ``artifacts.MAX_ARTIFACT_BYTES``.
    """

    # Each factory reaches its server's maker through this package (``__getattr__`` below), so the
    # module, and the SDK's MCPServer with it, loads only when the server is first created.
    import desktop_app.runtime.builtins as package

    def system() -> MCPServer:
        return package.make_system_server(paths, zone_name=package.local_zone_name)

    def history() -> MCPServer:
        return package.make_history_server(store)

    def artifacts() -> MCPServer:
        limit = package.MAX_ARTIFACT_BYTES if max_artifact_bytes is None else max_artifact_bytes
        return package.make_artifacts_server(paths.data_dir / package.FOLDER_NAME, max_bytes=limit)

    factories: dict[str, Callable[[], MCPServer]] = {SYSTEM: system, HISTORY: history, ARTIFACTS: artifacts}
    if tool_catalog is not None:
        catalog = tool_catalog

        def tools() -> MCPServer:
            return package.make_tools_server(catalog)

        factories[TOOLS] = tools
    problems: list[str] = []
    for name, factory in factories.items():
        try:
            host.register_builtin(name, factory)
        except ValueError:
            problems.append(
                f"An MCP server in mcp.json is named '{name}', a name reserved for a built-in server; "
                "the built-in is off until that server is renamed."
            )
    return problems


_LAZY = {
    "FOLDER_NAME": "artifacts",
    "MAX_ARTIFACT_BYTES": "artifacts",
    "ArtifactStore": "artifacts",
    "make_artifacts_server": "artifacts",
    "make_history_server": "history",
    "local_zone_name": "system",
    "make_system_server": "system",
    "make_tools_server": "tools",
}
"""Re-exported names, from the module that defines them, on first use (each imports the SDK's server)."""


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(importlib.import_module(f"{__name__}.{_LAZY[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "ARTIFACTS",
    "BUILTIN_SERVERS",
    "FOLDER_NAME",
    "HISTORY",
    "MAX_ARTIFACT_BYTES",
    "SYSTEM",
    "TOOLS",
    "ArtifactStore",
    "BuiltinRegistry",
    "local_zone_name",
    "make_artifacts_server",
    "make_history_server",
    "make_system_server",
    "make_tools_server",
    "register_builtins",
]
