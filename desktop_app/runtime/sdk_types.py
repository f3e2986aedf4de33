"""``mtypes``: the MCP SDK's protocol types (``mcp_types``), imported on first use rather than with the module
that names them.

``mcp_types`` builds ~600 pydantic models for both protocol eras when it is imported (~0.2-0.3 s of CPU on
a 2-core machine). The runtime's modules that only need those types once a server talks to them (results,
sampling and elicitation requests, roots) write ``from desktop_app.runtime.sdk_types import mtypes``; type
checkers see the real module, and at run time the first attribute looked up on ``mtypes`` imports it (the
host's first connection does so already, in a worker thread: ``host.sdk_import.import_sdk``). So the runtime
is created, and the user can send, before the SDK's types exist.

:class:`OnFirstUse` does the same for any module (``providers.discovery`` uses it for httpx, which also
imports its command-line client's click and rich).
"""

from __future__ import annotations

import importlib
import types
from typing import TYPE_CHECKING, Any


class OnFirstUse(types.ModuleType):
    """Stands for a module until an attribute is looked up on it, then hands out the real one's."""

    def __init__(self, name: str) -> None:
        super().__init__(name)
        self._real: types.ModuleType | None = None

    def __getattr__(self, attr: str) -> Any:
        real = self._real
        if real is None:
            real = importlib.import_module(self.__name__)
            # from now on every name is found directly, without coming here (no cost per use on hot paths)
            self.__dict__.update({k: v for k, v in vars(real).items() if k not in ("__name__", "__spec__")})
            self._real = real
        return getattr(real, attr)


if TYPE_CHECKING:
    import mcp_types as mtypes
else:
    mtypes = OnFirstUse("mcp_types")

__all__ = ["OnFirstUse", "mtypes"]
