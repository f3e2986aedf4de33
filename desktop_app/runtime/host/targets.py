"""Where a ``url`` server lives: its URL, its expanded ``headers`` and its declared transport.

(The stdio side is :func:`desktop_app.runtime.host.host.stdio_parameters`.)
"""

from __future__ import annotations

from desktop_app.runtime.credentials import Credentials
from desktop_app.runtime.host.config import ServerConfig
from desktop_app.runtime.host.environment import expand_headers
from desktop_app.runtime.host.transports import HttpKind, HttpTarget


def http_target(name: str, config: ServerConfig, *, credentials: Credentials | None = None) -> HttpTarget:
    """The target of a ``url`` server, computed when it starts.

    ``headers`` are expanded (``${NAME}``, ``${keyring:NAME}``). Without an explicit ``type`` or
    ``transport`` the connection tries streamable HTTP, then legacy SSE (``kind=None``).
    Raises :class:`~desktop_app.runtime.errors.ServerStartError` for a missing variable or secret.
    """
    headers = expand_headers(name, config, credentials=credentials) if config.headers else {}
    declared = config.declared_type or config.declared_transport
    kind: HttpKind | None = None
    if declared is not None:
        transport = config.transport
        kind = "sse" if transport == "sse" else "http"
    return HttpTarget(url=(config.url or "").strip(), headers=headers, kind=kind)


__all__ = ["http_target"]
