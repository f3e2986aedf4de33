"""The SDK's in-process servers without its redundant console-logging setup.

Every ``MCPServer()`` calls the SDK's ``configure_logging`` (the name bound in ``mcp.server.mcpserver.server``),
which imports rich (~40 modules) to build a ``RichHandler`` and hands it to ``logging.basicConfig``, which does
nothing when the root logger already has handlers, as it has in the app and in ``switchboard ask`` (their
log files). So the first built-in server (``current_time``, skills, agents) loaded rich for a handler that
was thrown away. :func:`install` skips the call in exactly that case; a process whose root logger has no
handler gets the SDK's setup unchanged.
"""

from __future__ import annotations

import logging
from typing import Any

_installed = False
_NAME = "configure_logging"  # bound in mcp.server.mcpserver.server, not re-exported


def install() -> None:
    """Wrap the SDK's ``configure_logging`` as bound by ``MCPServer``'s module (once; imports the server half)."""
    global _installed
    if _installed:
        return
    import mcp.server.mcpserver.server as sdk_server

    original = getattr(sdk_server, _NAME)

    def configure_logging(*args: Any, **kwargs: Any) -> None:
        if logging.getLogger().handlers:  # basicConfig would change nothing: skip building its handler
            return
        original(*args, **kwargs)

    setattr(sdk_server, _NAME, configure_logging)
    _installed = True


__all__ = ["install"]
