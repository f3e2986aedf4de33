"""Reading ``mcp.json``: Claude Desktop's ``mcpServers`` shape plus Switchboard's optional fields.

This module owns turning the file into validated :class:`ServerConfig` models. It never writes
the file. A broken file raises :class:`~desktop_app.runtime.errors.ConfigError` naming the path,
with line and column for JSON syntax errors and the field path (``mcpServers.time.args``) for
invalid values. Unknown fields are kept (``model_extra``) and ignored.

References are checked for syntax when the file is read but expanded only when a server starts
(:func:`expand_value`): ``${NAME}`` (``${NAME:-default}``: the default when unset or empty) from the process
environment and ``${keyring:NAME}`` from the keyring, in ``command``, ``args``, ``env``, ``url`` and ``headers``.

    {"mcpServers": {"time": {"command": "uvx", "args": ["mcp-server-time"], "env": {"TZ": "${TZ}"},
                             "disabled": false, "timeout": 30, "startupTimeout": 90},
                    "docs": {"type": "http", "url": "https://example.com/mcp",
                             "headers": {"Authorization": "${keyring:mcp:docs:header:Authorization}"}}}}
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from desktop_app.runtime.errors import ConfigError
from desktop_app.runtime.model_defaults import empty_list

DEFAULT_TIMEOUT = 60.0
"""Seconds a server gets to start and to answer a call unless it sets ``startupTimeout``/``timeout``."""

_REFERENCE = re.compile(r"\$\{([^}]*)\}")
_HEADER_NAME = re.compile(r"^[!#$%&'*+.^_`|~0-9A-Za-z-]+$")  # an RFC 7230 token
KEYRING_PREFIX = "keyring:"
DEFAULT_SEPARATOR = ":-"
"""``${VAR:-default}``: ``default`` when ``VAR`` is unset or empty (Claude Code's ``.mcp.json`` syntax)."""

Transport = Literal["stdio", "http", "sse"]
_TRANSPORTS: dict[str, Transport] = {
    "stdio": "stdio",
    "http": "http",
    "streamable-http": "http",
    "streamable_http": "http",
    "streamablehttp": "http",
    "sse": "sse",
}
TRANSPORT_NAMES = ("stdio", "http", "streamable-http", "sse")
"""The canonical spellings of ``type`` / ``transport`` (case-insensitive; ``_`` variants accepted too)."""

SecretLookup = Callable[[str], str | None]


def normalize_transport(value: str) -> Transport:
    """``stdio``, ``http`` (also ``streamable-http`` and its variants) or ``sse``; anything else raises ValueError."""
    found = _TRANSPORTS.get(value.strip().lower())
    if found is None:
        raise ValueError(f"unknown transport '{value}'; use one of {', '.join(TRANSPORT_NAMES)}")
    return found


class OAuthConfig(BaseModel):
    """The ``oauth`` object of a ``url`` server: sign in with the browser (OAuth 2.1, PKCE).

    ``"oauth": true`` is the same as ``{}``: the client registers itself dynamically. ``clientId``
    (and for confidential clients ``clientSecret``, which may be a ``${keyring:NAME}`` reference)
    use a pre-registered client; ``callbackPort`` fixes the loopback redirect port such a client was
    registered with. ``scopes`` are requested in addition to those the server asks for.
    """

    model_config = ConfigDict(frozen=True, extra="allow", populate_by_name=True, defer_build=True)

    client_id: str | None = Field(default=None, alias="clientId")
    client_secret: str | None = Field(default=None, alias="clientSecret")
    scopes: list[str] = Field(default_factory=empty_list)
    client_name: str | None = Field(default=None, alias="clientName")
    callback_port: int | None = Field(default=None, ge=1, le=65535, alias="callbackPort")


class ServerConfig(BaseModel):
    """One MCP server entry. Unknown fields stay in ``model_extra`` and are ignored."""

    model_config = ConfigDict(frozen=True, extra="allow", populate_by_name=True, defer_build=True)

    command: str | None = None
    args: list[str] = Field(default_factory=empty_list)
    env: dict[str, str] = Field(default_factory=dict)
    url: str | None = None
    headers: dict[str, str] = Field(default_factory=dict)
    declared_type: str | None = Field(default=None, alias="type", description="stdio | http | streamable-http | sse")
    declared_transport: str | None = Field(default=None, alias="transport", description="Same values as ``type``.")
    disabled: bool = False
    timeout: float | None = Field(default=None, gt=0, description="Per-call timeout in seconds.")
    startup_timeout: float | None = Field(
        default=None, gt=0, alias="startupTimeout", description="Connect timeout in seconds."
    )
    hooks: dict[str, Any] | None = Field(default=None, description="Per-server MCP message hooks.")
    trust: bool = Field(default=False, description="The user trusts this server: its tools run without asking.")
    pinned: bool | list[str] = Field(default=False, description="Tools always offered to the model (True: all).")
    excluded_tools: list[str] = Field(default_factory=empty_list, alias="excludedTools")
    allow_unsafe_env: bool = Field(
        default=False, alias="allowUnsafeEnv", description="Allow LD_PRELOAD, DYLD_*, NODE_OPTIONS … in env."
    )
    oauth: bool | OAuthConfig = Field(
        default=False, description="Sign in with the browser (OAuth 2.1); true for dynamic registration."
    )
    plugin: str | None = Field(default=None, description="The plugin that contributed this server.")
    extension: str | None = Field(
        default=None, description="An installed MCP Bundle: its variables are substituted when it starts."
    )

    @field_validator("declared_type", "declared_transport")
    @classmethod
    def _known_transport(cls, value: str | None) -> str | None:
        if value is not None:
            normalize_transport(value)
        return value

    @field_validator("headers")
    @classmethod
    def _valid_headers(cls, headers: dict[str, str]) -> dict[str, str]:
        for name, value in headers.items():
            if not _HEADER_NAME.match(name):
                raise ValueError(f"header name '{name}' is not a valid HTTP token")
            if "\r" in value or "\n" in value:
                raise ValueError(f"header '{name}' may not contain a line break")
        return headers

    @model_validator(mode="after")
    def _consistent(self) -> ServerConfig:
        if self.declared_type is not None and self.declared_transport is not None:
            kind, transport = normalize_transport(self.declared_type), normalize_transport(self.declared_transport)
            if kind != transport:
                raise ValueError(f"type '{self.declared_type}' and transport '{self.declared_transport}' disagree")
        has_command = bool(self.command and self.command.strip())
        has_url = bool(self.url and self.url.strip())
        if not has_command and not has_url:
            raise ValueError("requires either command or url")
        if has_command and has_url:
            raise ValueError(
                "has both command and url; keep command for a server started here, or url for a remote one"
            )
        if self.declared_type is not None or self.declared_transport is not None:
            if self.transport == "stdio" and not has_command:
                raise ValueError("a stdio server requires a command")
            if self.transport != "stdio" and not has_url:
                raise ValueError(f"a {self.transport} server requires a url")
        return self

    @property
    def oauth_settings(self) -> OAuthConfig | None:
        """The ``oauth`` settings, or ``None`` when OAuth sign-in is off (``false`` or absent)."""
        if isinstance(self.oauth, OAuthConfig):
            return self.oauth
        return OAuthConfig() if self.oauth else None

    @property
    def transport(self) -> Transport:
        """Explicit ``type``, else ``transport``, else ``stdio`` when a command is given, else ``http``."""
        declared = self.declared_type or self.declared_transport
        if declared is not None:
            return normalize_transport(declared)
        return "stdio" if self.command and self.command.strip() else "http"


def check_references(value: str, *, where: str) -> None:
    """Raise ``ValueError`` for an empty (``${}``) or unclosed reference; nothing is looked up."""
    rest = _REFERENCE.sub(lambda m: "" if m.group(1).strip() else "\0", value)
    if "\0" in rest:
        raise ValueError(f"{where}: empty variable reference '${{}}'")
    if "${" in rest:
        raise ValueError(f"{where}: unclosed variable reference (missing '}}')")


def expand_value(
    value: str,
    environ: Mapping[str, str],
    *,
    where: str,
    secrets: SecretLookup | None = None,
) -> str:
    """Expand ``${NAME}`` (and ``${NAME:-default}``) from ``environ`` and ``${keyring:NAME}`` through ``secrets``.

    Without ``secrets`` keyring references are left as they are. An unset variable, a missing
    keyring entry, an empty or an unclosed reference raises ``ValueError`` naming ``where``.
    """
    if "${" not in value:
        return value
    check_references(value, where=where)
    out: list[str] = []
    pos = 0
    for match in _REFERENCE.finditer(value):
        out.append(value[pos : match.start()])
        name = match.group(1).strip()
        if name.startswith(KEYRING_PREFIX):
            out.append(match.group(0) if secrets is None else _secret(name[len(KEYRING_PREFIX) :], secrets, where))
            pos = match.end()
            continue
        variable, has_default, default = name.partition(DEFAULT_SEPARATOR)
        variable = variable.strip()
        if environ.get(variable) or (variable in environ and not has_default):
            out.append(environ[variable])
        elif has_default:  # ${VAR:-default}: the default when VAR is unset or empty, as in a shell
            out.append(default)
        else:
            raise ValueError(
                f"{where}: environment variable '{variable}' is not set; set it before starting "
                "Switchboard, give a default (${" + variable + ":-value}) or put the value in mcp.json"
            )
        pos = match.end()
    out.append(value[pos:])
    return "".join(out)


def _secret(entry: str, secrets: SecretLookup, where: str) -> str:
    entry = entry.strip()
    if not entry:
        raise ValueError(f"{where}: empty keyring reference '${{keyring:}}'")
    found = secrets(entry)
    if found is None:
        raise ValueError(
            f"{where}: keyring entry '{entry}' (service 'switchboard') is not set; set it with "
            f"`keyring set switchboard {entry}` or import the server's configuration again"
        )
    return found


def expand_env_value(value: str, environ: Mapping[str, str], *, where: str) -> str:
    """Expand ``${NAME}`` from ``environ``, leaving ``${keyring:…}`` untouched (see :func:`expand_value`)."""
    return expand_value(value, environ, where=where)


def _field_path(prefix: str, loc: tuple[int | str, ...]) -> str:
    return ".".join([prefix, *(str(part) for part in loc)])


def parse_mcp_config(text: str, path: Path, *, environ: Mapping[str, str] | None = None) -> dict[str, ServerConfig]:
    """Parse the text of an ``mcp.json`` (already read); ``path`` is only used in error messages.

    ``environ`` is accepted for compatibility and ignored: references are expanded at start-up.
    """
    del environ
    text = text.removeprefix("\ufeff")
    if not text.strip():
        return {}
    from desktop_app.runtime.host.jsonfiles import parse_json

    document = parse_json(text, path)  # as import-config reads files: JSON, else JSON with comments
    if not isinstance(document, dict):
        raise ConfigError(path, f"the top level must be a JSON object, got {type(document).__name__}")
    raw_servers = document.get("mcpServers", {})
    if raw_servers is None:
        return {}
    if not isinstance(raw_servers, dict):
        raise ConfigError(path, f"mcpServers: must be an object, got {type(raw_servers).__name__}")

    servers: dict[str, ServerConfig] = {}
    problems: list[str] = []
    for raw_name, entry in raw_servers.items():
        name = raw_name.strip()
        if not name:
            continue
        prefix = f"mcpServers.{name}"
        try:
            config = ServerConfig.model_validate(entry)
        except ValidationError as exc:
            for error in exc.errors():
                where = _field_path(prefix, error["loc"])
                problems.append(f"{where}: {error['msg'].removeprefix('Value error, ')}")
            continue
        try:
            for field, values in (("env", config.env), ("headers", config.headers)):
                for key, value in values.items():
                    check_references(value, where=f"{prefix}.{field}.{key}")
        except ValueError as exc:
            problems.append(str(exc))
            continue
        servers[name] = config
    if problems:
        raise ConfigError(path, "; ".join(problems))
    return servers


def unknown_field_warnings(servers: Mapping[str, ServerConfig], path: Path) -> list[str]:
    """One warning per field of a server entry that Switchboard does not know (kept, but ignored): a typo
    such as ``"comand"`` or ``"arg"`` must not pass silently. Each names the file and the field's path."""
    warnings = []
    for name, config in servers.items():
        for field in sorted(config.model_extra or {}):
            warnings.append(f"{path}: mcpServers.{name}.{field}: unknown field, ignored; check its spelling")
    return warnings


def load_mcp_config(path: Path, *, environ: Mapping[str, str] | None = None) -> dict[str, ServerConfig]:
    """Read ``mcp.json`` at ``path``. A missing file is an empty config; a broken one raises ConfigError."""
    from desktop_app.runtime.files import read_config_text

    try:
        text = read_config_text(path)  # a regular file (never a FIFO or /dev/zero), size-capped, UTF-8
    except FileNotFoundError:
        return {}
    return parse_mcp_config(text, path, environ=environ)


__all__ = [
    "DEFAULT_SEPARATOR",
    "KEYRING_PREFIX",
    "TRANSPORT_NAMES",
    "OAuthConfig",
    "SecretLookup",
    "ServerConfig",
    "Transport",
    "check_references",
    "expand_env_value",
    "expand_value",
    "load_mcp_config",
    "normalize_transport",
    "parse_mcp_config",
    "unknown_field_warnings",
]
