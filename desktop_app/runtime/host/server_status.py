"""What the UI shows for one server (:class:`ServerStatus`) and how it is read from the host's tables
(:func:`server_status`): a known server without a connection is ``idle`` (``disabled``, or ``stopped`` while
the host is paused), a connected one has its connection's state, redacted error and tool count, and a restart
under way shows as ``restarting`` or a countdown. ``servers.HostServers.states`` builds one per server.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pydantic import BaseModel, ConfigDict

from desktop_app.runtime.host.config import ServerConfig
from desktop_app.runtime.host_events import HostServerState
from desktop_app.runtime.redaction import redact

if TYPE_CHECKING:  # the SDK loads with the first connection (see :mod:`.sdk_import`)
    from desktop_app.runtime.host.connection import ServerConnection


class ServerStatus(BaseModel):
    """What the UI shows for one server."""

    model_config = ConfigDict(frozen=True, defer_build=True)

    name: str
    state: HostServerState
    error: str | None = None
    tool_count: int = 0
    builtin: bool = False
    restart_in_s: float | None = None
    """While ``failed`` after a crash: the automatic restart is due this many seconds after the crash."""
    attempt: int = 0


def server_status(
    server: str,
    *,
    builtin: bool,
    connection: ServerConnection | None,
    config: ServerConfig | None,
    paused: bool,
    phase: tuple[str, float | None] | None,
    attempt: int,
) -> ServerStatus:
    """``server``'s status from its connection (if any), its config, the host's pause and the restart phase."""
    if connection is None:
        state: HostServerState = "disabled" if config is not None and config.disabled else "idle"
        if state == "idle" and paused and not builtin:
            return ServerStatus(name=server, state="stopped", error="paused", builtin=builtin)
        return ServerStatus(name=server, state=state, builtin=builtin)
    ready = connection.state == "ready"
    return ServerStatus(
        name=server,
        state="restarting" if phase is not None and phase[0] == "restarting" and not ready else connection.state,
        error=redact(connection.error) if connection.error else connection.error,
        tool_count=len(connection.tools) if connection.state == "ready" else 0,
        builtin=builtin,
        restart_in_s=phase[1] if phase is not None else None,
        attempt=attempt,
    )
