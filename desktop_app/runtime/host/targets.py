"""Where a ``url`` server lives: its URL, its expanded ``headers`` and its declared transport.

(The stdio side is :func:`desktop_app.runtime.host.host.stdio_parameters`.)
"""

from __future__ import annotations

from desktop_app.runtime.credentials import Credentials
from desktop_app.runtime.host.config import ServerConfig
from desktop_app.runtime.host.environment import expand_headers
from desktop_app.runtime.host.oauth import oauth_provider
from desktop_app.runtime.host.transports import HttpKind, HttpTarget


def http_target(name: str, config: ServerConfig, *, credentials: Credentials | None = None) -> HttpTarget:
    """The target of a ``url`` server, computed when it starts.

    ``headers`` are expanded (``${NAME}``, ``${keyring:NAME}``). Without an explicit ``type`` or
    ``transport`` the connection tries streamable HTTP, then legacy SSE (``kind=None``).
    With ``oauth`` in the config the target carries the browser sign-in provider (:mod:`.oauth`).
    Raises :class:`~desktop_app.runtime.errors.ServerStartError` for a missing variable or secret.
    """
    headers = expand_headers(name, config, credentials=credentials) if config.headers else {}
    declared = config.declared_type or config.declared_transport
    kind: HttpKind | None = None
    if declared is not None:
        transport = config.transport
        kind = "sse" if transport == "sse" else "http"
    url = (config.url or "").strip()
    settings = config.oauth_settings
    auth = oauth_provider(name, url, settings, credentials=credentials) if settings is not None else None
    return HttpTarget(url=url, headers=headers, kind=kind, auth=auth, server=name)


__all__ = ["http_target"]
