"""No pydantic plugins: pydantic's search for them stays off the way to ``runtime: ready`` (issue 27).

pydantic looks for plugins (observability hooks such as logfire's) when it builds its first validator: its
plugin loader imports ``importlib.metadata`` (with ``email``, ``zipfile``, ``csv``: ~15-20 ms on a 2-core
machine) and scans the entry points of every installed distribution, and it does so before it reads
``PYDANTIC_DISABLE_PLUGINS``. Switchboard uses no pydantic plugin, so ``skip_plugin_discovery`` puts a
loader in its place that has none (what ``PYDANTIC_DISABLE_PLUGINS=__all__`` asks pydantic for).
"""

from __future__ import annotations

import sys
import types
from collections.abc import Iterable

LOADER = "pydantic.plugin._loader"


def _no_plugins() -> Iterable[object]:
    return ()


def skip_plugin_discovery() -> bool:
    """Install the plugin-less loader unless pydantic's own is loaded already (then it may have found some);
    True when installed. Call before pydantic builds its first validator."""
    if LOADER in sys.modules:
        return False
    loader = types.ModuleType(
        LOADER, "pydantic's plugin loader, without plugins (desktop_app.runtime.pydantic_plugins)"
    )
    loader.get_plugins = _no_plugins  # type: ignore[attr-defined]
    sys.modules[LOADER] = loader
    return True


__all__ = ["LOADER", "skip_plugin_discovery"]
