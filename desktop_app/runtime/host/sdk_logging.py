"""The SDK's in-process servers leave logging to Switchboard.

Every ``MCPServer()`` calls the SDK's ``configure_logging`` (the name bound in ``mcp.server.mcpserver.server``),
which imports rich (~40 modules, ~1.8 MB) to build a ``RichHandler`` and hands it to ``logging.basicConfig``
on the root logger. In the app and in ``switchboard ask`` the root logger already has its handlers (the log
file, ``desktop_app.log``), so ``basicConfig`` dropped the handler and only the import stayed; in a process
without handlers (the benchmarks' in-process harness, a script using the runtime) a library set the root
logger's level and format behind the embedding program's back. :func:`install` makes the call a no-op:
Switchboard's processes configure their own logging, in-process servers log through it.
"""

from __future__ import annotations

from typing import Any

_installed = False
_NAME = "configure_logging"  # bound in mcp.server.mcpserver.server, not re-exported


def install() -> None:
    """Replace the SDK's ``configure_logging`` as bound by ``MCPServer``'s module (once; imports the server half)."""
    global _installed
    if _installed:
        return
    import mcp.server.mcpserver.server as sdk_server

    def configure_logging(*_args: Any, **_kwargs: Any) -> None:
        """Switchboard configures logging itself; the SDK's root-logger setup is not wanted here."""

    setattr(sdk_server, _NAME, configure_logging)
    _installed = True


__all__ = ["install"]
