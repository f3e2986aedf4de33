"""MCP Apps metadata: the extension's names, a tool's ``_meta.ui`` and a view resource's ``_meta.ui``.

Pure functions over plain dicts (no SDK, no host): :func:`tool_ui` reads ``resourceUri`` (and the
deprecated flat ``ui/resourceUri`` key) and ``visibility``; :func:`resource_ui` reads the CSP domains,
the permissions and ``prefersBorder``; :func:`content_security_policy` builds the policy the view is
loaded under (the spec's restrictive default plus only the declared domains).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

EXTENSION_ID = "io.modelcontextprotocol/ui"
APP_MIME_TYPE = "text/html;profile=mcp-app"
UI_SCHEME = "ui://"
PROTOCOL_VERSION = "2026-01-26"
"""The MCP Apps protocol version this host speaks (the stable spec's date)."""
CLIENT_SETTINGS: dict[str, Any] = {"mimeTypes": [APP_MIME_TYPE]}
"""What the host advertises under ``capabilities.extensions[EXTENSION_ID]``."""

_DOMAIN = re.compile(r"^(https?|wss?)://(\*\.)?[A-Za-z0-9.-]+(:\d{1,5})?$")


@dataclass(frozen=True)
class ToolUi:
    """A tool's MCP Apps link: its view and who may call it."""

    resource_uri: str | None = None
    visibility: tuple[str, ...] = ("model", "app")

    @property
    def model_visible(self) -> bool:
        return "model" in self.visibility

    @property
    def app_visible(self) -> bool:
        return "app" in self.visibility


def tool_ui(meta: Mapping[str, Any] | None) -> ToolUi:
    """The ``_meta.ui`` of a tool (or of a tool result); malformed entries are read as absent."""
    if not meta:
        return ToolUi()
    ui = meta.get("ui")
    ui = ui if isinstance(ui, Mapping) else {}
    uri = ui.get("resourceUri", meta.get("ui/resourceUri"))
    resource_uri = uri if isinstance(uri, str) and uri.startswith(UI_SCHEME) else None
    visibility: tuple[str, ...] = ("model", "app")
    given = ui.get("visibility")
    if isinstance(given, list) and all(isinstance(v, str) for v in given):
        visibility = tuple(v for v in given if v in ("model", "app"))
    return ToolUi(resource_uri, visibility)


@dataclass(frozen=True)
class ResourceCsp:
    """The origins a view declared (``_meta.ui.csp``); anything undeclared stays unreachable."""

    connect_domains: tuple[str, ...] = ()
    resource_domains: tuple[str, ...] = ()
    frame_domains: tuple[str, ...] = ()
    base_uri_domains: tuple[str, ...] = ()

    def all_hosts(self) -> tuple[str, ...]:
        """Every declared origin (what the request filter lets through)."""
        return (*self.connect_domains, *self.resource_domains, *self.frame_domains, *self.base_uri_domains)

    def as_json(self) -> dict[str, list[str]]:
        return {
            "connectDomains": list(self.connect_domains),
            "resourceDomains": list(self.resource_domains),
            "frameDomains": list(self.frame_domains),
            "baseUriDomains": list(self.base_uri_domains),
        }


@dataclass(frozen=True)
class ResourceUi:
    """A view resource's ``_meta.ui``: CSP, requested permissions and border preference."""

    csp: ResourceCsp = field(default_factory=ResourceCsp)
    permissions: tuple[str, ...] = ()
    prefers_border: bool | None = None
    rejected: tuple[str, ...] = ()
    """Declared domains that are not plain origins (refused, never put in the policy)."""


def _domains(value: object, rejected: list[str]) -> tuple[str, ...]:
    if not isinstance(value, Sequence) or isinstance(value, str):
        return ()
    kept: list[str] = []
    for item in value:
        if isinstance(item, str) and _DOMAIN.match(item):
            kept.append(item)
        else:
            rejected.append(str(item))
    return tuple(kept)


def resource_ui(meta: Mapping[str, Any] | None) -> ResourceUi:
    """The ``_meta.ui`` of a ``ui://`` resource's content. A domain that is not a plain ``scheme://host``
    origin (a quote, a space, ``'unsafe-eval'``…) is refused so that it cannot widen the policy."""
    ui = meta.get("ui") if meta else None
    if not isinstance(ui, Mapping):
        return ResourceUi()
    csp = ui.get("csp")
    csp = csp if isinstance(csp, Mapping) else {}
    rejected: list[str] = []
    policy = ResourceCsp(
        connect_domains=_domains(csp.get("connectDomains"), rejected),
        resource_domains=_domains(csp.get("resourceDomains"), rejected),
        frame_domains=_domains(csp.get("frameDomains"), rejected),
        base_uri_domains=_domains(csp.get("baseUriDomains"), rejected),
    )
    permissions = ui.get("permissions")
    granted = tuple(sorted(k for k in permissions if isinstance(k, str))) if isinstance(permissions, Mapping) else ()
    border = ui.get("prefersBorder")
    return ResourceUi(policy, granted, border if isinstance(border, bool) else None, tuple(rejected))


def content_security_policy(csp: ResourceCsp) -> str:
    """The policy a view is loaded under: the spec's restrictive default, widened only by declared origins."""
    resources = " ".join(csp.resource_domains)
    extra = f" {resources}" if resources else ""
    connect = " ".join(csp.connect_domains) or "'none'"
    frames = " ".join(csp.frame_domains) or "'none'"
    base = " ".join(csp.base_uri_domains) or "'self'"
    return "; ".join(
        [
            "default-src 'none'",
            f"script-src 'self' 'unsafe-inline'{extra}",
            f"style-src 'self' 'unsafe-inline'{extra}",
            f"img-src 'self' data: blob:{extra}",
            f"font-src 'self' data:{extra}",
            f"media-src 'self' data: blob:{extra}",
            f"connect-src {connect}",
            f"frame-src {frames}",
            f"base-uri {base}",
            "object-src 'none'",
            "form-action 'none'",
        ]
    )


def host_allowed(url_host: str, scheme: str, csp: ResourceCsp) -> bool:
    """Whether a request to ``scheme://url_host`` is covered by a declared origin (``*.`` wildcards match
    subdomains only). Used by the view's request filter, next to the CSP itself."""
    for origin in csp.all_hosts():
        match = _DOMAIN.match(origin)
        if match is None:
            continue
        o_scheme = match.group(1)
        rest = origin.split("://", 1)[1]
        host = rest.rsplit(":", 1)[0] if match.group(3) else rest
        if {o_scheme, scheme} <= {"http", "ws"} or {o_scheme, scheme} <= {"https", "wss"} or o_scheme == scheme:
            if host.startswith("*."):
                if url_host.endswith(host[1:]) and url_host != host[2:]:
                    return True
            elif url_host == host:
                return True
    return False


__all__ = [
    "APP_MIME_TYPE",
    "CLIENT_SETTINGS",
    "EXTENSION_ID",
    "PROTOCOL_VERSION",
    "UI_SCHEME",
    "ResourceCsp",
    "ResourceUi",
    "ToolUi",
    "content_security_policy",
    "host_allowed",
    "resource_ui",
    "tool_ui",
]
