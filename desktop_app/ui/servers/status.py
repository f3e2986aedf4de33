"""What the Servers dock says in the status bar, and the bridge from host events to a Qt signal.

``summary_text`` is the indicator ("MCP: 3 ready · 1 failed · 4 built-in": the user's servers by state, the
built-ins counted apart); ``notification_text`` the notice for a server that failed or died (what happened
and what to do); ``origin_text`` what a row adds after a server's name (an extension's, a plugin's). Runtime
types are only used for type checking (imported before the first paint).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, Signal

from desktop_app.ui.chat.common import MUTED_COLOR, escape
from desktop_app.ui.servers.log_view import ServerInfo, first_line

if TYPE_CHECKING:
    from desktop_app.runtime.events import ServerStateChanged


def notification_text(event: ServerStateChanged) -> str:
    """The status-bar notice for a server that failed or died: what happened and what to do."""
    error = first_line(event.error, 72) or "it stopped unexpectedly"
    if event.restart_in_s is not None:
        return (
            f"MCP server '{event.server}' stopped: {error}. It will restart in {event.restart_in_s:g} s; "
            "see View → Servers for its log."
        )
    if event.attempt:
        return f"MCP server '{event.server}' failed: {error}. Fix it, then press Restart in View → Servers."
    return (
        f"MCP server '{event.server}' failed to start: {error}. Check its entry in mcp.json, then press Restart "
        "in View → Servers."
    )


def summary_text(servers: dict[str, ServerInfo]) -> str:
    """The status-bar indicator: the user's servers by state, the built-ins counted apart, e.g.
    ``MCP: 3 ready · 1 failed · 4 built-in``."""
    mine = [info for info in servers.values() if not info.builtin]
    builtins = len(servers) - len(mine)
    tail = f" · {builtins} built-in" if builtins else ""
    if not mine:
        return "MCP: no servers" + tail
    counts: dict[str, int] = {}
    for info in mine:
        key = "starting" if info.state in ("starting", "restarting") else info.state
        counts[key] = counts.get(key, 0) + 1
    keys = ("ready", "starting", "failed", "disabled", "stopped")
    parts = [f"{counts[key]} {key}" for key in keys if counts.get(key)]
    idle = len(mine) - sum(counts.get(key, 0) for key in keys)
    if idle:
        parts.append(f"{idle} not started")
    return "MCP: " + " · ".join(parts) + tail


def origin_text(entry: object) -> str:
    """`` · extension`` for an installed MCP Bundle, `` · plugin P`` for a plugin's server (``entry``: its
    mcp.json entry), else nothing."""
    if not isinstance(entry, dict):
        return ""
    if entry.get("extension"):
        return f" <span style='color:{MUTED_COLOR}'>· extension</span>"
    if entry.get("plugin"):
        return f" <span style='color:{MUTED_COLOR}'>· plugin {escape(str(entry['plugin']))}</span>"
    return ""


class HostBridge(QObject):
    """Subscribes to a host and re-emits each of its events as ``event_received``."""

    event_received = Signal(object)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._unsubscribe: Callable[[], None] | None = None

    def attach(self, host: Any) -> None:
        self.detach()
        self._unsubscribe = host.subscribe(self._listener)

    def detach(self) -> None:
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None

    def _listener(self, event: Any) -> None:
        try:
            self.event_received.emit(event)
        except RuntimeError:  # the Qt object is gone (window closed while the host shuts down)
            self._unsubscribe = None


__all__ = ["HostBridge", "notification_text", "origin_text", "summary_text"]
