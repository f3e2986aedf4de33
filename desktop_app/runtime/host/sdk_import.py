"""The MCP SDK, imported on the first connection (built-in or external), in a worker thread: the runtime is
created, and the user can send, before that (no connection, no SDK). Used by :mod:`.servers`."""

from __future__ import annotations

import asyncio
import importlib

_CONNECTION_MODULE = "desktop_app.runtime.host.connection"


async def import_sdk() -> None:
    """Import the MCP SDK (``mcp``: its client and, through it, its server half; ~0.5 s of CPU) in a worker
    thread the first time a server connects, built-in or external. The runtime is created, and the user
    can send, before that: no connection, no SDK."""
    if _CONNECTION_MODULE not in _imported:
        await asyncio.to_thread(_load_sdk)
        _imported.add(_CONNECTION_MODULE)


def _load_sdk() -> None:
    importlib.import_module(_CONNECTION_MODULE)
    from desktop_app.runtime.host import sdk_logging

    sdk_logging.install()  # in-process servers leave logging to us (no rich, no root-logger setup)


_imported: set[str] = set()
