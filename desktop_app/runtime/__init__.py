"""The Qt-free host runtime: providers, the MCP host, the run loop and the event protocol.

Nothing under this package may import PySide6, qasync or ``desktop_app.ui`` (an
import-linter contract in ``pyproject.toml`` enforces it).

Importing it puts a stand-in for ``httpx._main`` in place (when httpx is not imported yet): ``import httpx``
otherwise loads httpx's command-line client with click, rich and pygments whenever they are installed
(measured: +5.7 MB of RSS and ~0.1 s), and Switchboard never runs that client. ``httpx.main`` stays
callable and says why it does nothing. And one for pydantic's plugin loader (``runtime.pydantic_plugins``):
Switchboard uses no pydantic plugins, and looking for them imports ``importlib.metadata`` with the first model.
"""

import sys
import types


def _leave_out_httpx_cli() -> None:
    if "httpx" in sys.modules or "httpx._main" in sys.modules:
        return
    stand_in = types.ModuleType("httpx._main", "httpx's command-line client, not loaded inside Switchboard.")

    def main(*_args: object, **_kwargs: object) -> None:
        raise SystemExit("httpx's command-line client is not available inside Switchboard; run it on its own.")

    stand_in.main = main  # type: ignore[attr-defined]
    sys.modules["httpx._main"] = stand_in


_leave_out_httpx_cli()

from desktop_app.runtime.pydantic_plugins import skip_plugin_discovery  # noqa: E402

skip_plugin_discovery()
