"""Switchboard's built-in MCP servers, registered with the host as lazy factories (nanobot §2.1).

Each built-in is an in-process ``MCPServer`` named ``switchboard.<name>``; :func:`register_builtins`
only registers the factories, so nothing is created at assembly or at ``Host.start()``. A server is
created the first time it is used: when a run starts (the runtime asks the host to connect the
built-ins, so that their tools are listed to the model) or on a direct ``Host.call``. Their tools keep
bare names and go through the same ``Host.call`` as external tools.

* ``switchboard.system``: ``current_time``, ``system_info`` (read-only: never ask);
* ``switchboard.history``: ``search_conversations``, ``read_conversation`` (read-only: never ask);
* ``switchboard.artifacts``: ``list_artifacts``, ``read_artifact`` (read-only: never ask) and
  ``save_artifact`` (writes a file: asks for approval).
* ``switchboard.tools``: ``tool_search`` over the deferred tool catalog (read-only: never ask); offered to
  the model only while tools are deferred (see :mod:`desktop_app.runtime.deferral`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol

from mcp.server.mcpserver import MCPServer

from desktop_app.runtime.builtins.artifacts import FOLDER_NAME, MAX_ARTIFACT_BYTES, ArtifactStore, make_artifacts_server
from desktop_app.runtime.builtins.history import make_history_server
from desktop_app.runtime.builtins.system import local_zone_name, make_system_server
from desktop_app.runtime.builtins.tools import make_tools_server

if TYPE_CHECKING:
    from desktop_app.paths import AppPaths
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
    max_artifact_bytes: int = MAX_ARTIFACT_BYTES,
    tool_catalog: Callable[[], Catalog] | None = None,
) -> list[str]:
    """Register every built-in server's factory with ``host`` (nothing is created here).

    ``store`` is the conversation store (``None``: history is off, and the history tools say so);
    artifacts live in ``<paths.data_dir>/artifacts/``. Returns problems for the user: a server in
    ``mcp.json`` that already uses a built-in's name keeps it, and that built-in is left out.
    ``tool_catalog`` gives the current deferred catalog (``None``: no ``switchboard.tools``).
    """
    factories: dict[str, Callable[[], MCPServer]] = {
        SYSTEM: lambda: make_system_server(paths, zone_name=local_zone_name),
        HISTORY: lambda: make_history_server(store),
        ARTIFACTS: lambda: make_artifacts_server(paths.data_dir / FOLDER_NAME, max_bytes=max_artifact_bytes),
    }
    if tool_catalog is not None:
        factories[TOOLS] = lambda: make_tools_server(tool_catalog)
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


__all__ = [
    "ARTIFACTS",
    "BUILTIN_SERVERS",
    "HISTORY",
    "MAX_ARTIFACT_BYTES",
    "SYSTEM",
    "TOOLS",
    "ArtifactStore",
    "BuiltinRegistry",
    "make_artifacts_server",
    "make_history_server",
    "make_system_server",
    "register_builtins",
]
