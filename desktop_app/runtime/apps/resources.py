"""The ``ui://`` views of MCP Apps: fetched through the host, checked, cached per server.

:class:`AppResources` reads a view with ``resources/read`` (the host's one request path), keeps only
``text/html;profile=mcp-app`` content, decodes a base64 ``blob``, reads its ``_meta.ui`` (CSP,
permissions, border) and caches it per server. The cache of a server is dropped when it says its
resource list changed, when its tools change and when it restarts or stops (:meth:`on_host_event`).
"""

from __future__ import annotations

import base64
import binascii
import logging
from dataclasses import dataclass
from typing import Any, Protocol

from desktop_app.runtime.apps.meta import APP_MIME_TYPE, UI_SCHEME, ResourceUi, resource_ui
from desktop_app.runtime.errors import SwitchboardError
from desktop_app.runtime.host_events import HostEvent

log = logging.getLogger(__name__)


class ResourceReader(Protocol):
    """What the cache needs of the host: the raw ``resources/read`` answer."""

    async def read_resource_json(self, server: str, uri: str) -> dict[str, Any]: ...


class AppResourceError(SwitchboardError):
    """A view could not be loaded: the message says why and what the user can do."""


@dataclass(frozen=True)
class AppResource:
    """One view: its HTML and what it declared."""

    server: str
    uri: str
    html: str
    ui: ResourceUi


def _is_app_mime(mime: object) -> bool:
    if not isinstance(mime, str):
        return False
    return mime.replace(" ", "").lower() == APP_MIME_TYPE


def parse_view(server: str, uri: str, answer: dict[str, Any]) -> AppResource:
    """The view in a ``resources/read`` answer; :class:`AppResourceError` when there is none."""
    for content in answer.get("contents") or []:
        if not isinstance(content, dict) or content.get("uri", uri) != uri or not _is_app_mime(content.get("mimeType")):
            continue
        text = content.get("text")
        if not isinstance(text, str):
            blob = content.get("blob")
            try:
                text = base64.b64decode(blob if isinstance(blob, str) else "", validate=True).decode("utf-8")
            except (binascii.Error, ValueError):
                raise AppResourceError(
                    f"MCP server '{server}' sent the view {uri} as data that is not base64 UTF-8 HTML; "
                    "its text result is shown instead."
                ) from None
        meta = content.get("_meta")
        ui = resource_ui(meta if isinstance(meta, dict) else None)
        if ui.rejected:
            log.warning("MCP App %s of '%s': refused CSP entries %s", uri, server, list(ui.rejected))
        log.info("MCP App %s of '%s': CSP %s", uri, server, ui.csp.as_json())
        return AppResource(server, uri, text, ui)
    raise AppResourceError(
        f"MCP server '{server}' has no view at {uri} (no {APP_MIME_TYPE} content); its text result is shown instead."
    )


class AppResources:
    """Views by (server, uri), fetched once and kept until the server says its resources changed."""

    def __init__(self, host: ResourceReader) -> None:
        self._host = host
        self._cache: dict[str, dict[str, AppResource]] = {}
        self.reads = 0
        """How many views were read from servers (tests check the cache with it)."""

    async def get(self, server: str, uri: str) -> AppResource:
        if not uri.startswith(UI_SCHEME):
            raise AppResourceError(f"{uri!r} is not a ui:// view; MCP server '{server}' linked a wrong resource.")
        cached = self._cache.get(server, {}).get(uri)
        if cached is not None:
            return cached
        try:
            answer = await self._host.read_resource_json(server, uri)
        except SwitchboardError as exc:
            raise AppResourceError(f"Could not load the view {uri} of MCP server '{server}': {exc}") from None
        self.reads += 1
        view = parse_view(server, uri, answer)
        self._cache.setdefault(server, {})[uri] = view
        return view

    def invalidate(self, server: str) -> None:
        self._cache.pop(server, None)

    def on_host_event(self, event: HostEvent) -> None:
        """A host listener: forget a server's views when they may have changed."""
        if event.kind in ("resources_changed", "tools_changed") or (
            event.kind == "server_state" and event.state != "ready"
        ):
            self.invalidate(event.server)


__all__ = ["AppResource", "AppResourceError", "AppResources", "ResourceReader", "parse_view"]
