"""Reading ``mcp.json``: Claude Desktop's ``mcpServers`` shape plus Switchboard's optional fields.

This module owns turning the file into validated :class:`ServerConfig` models. It never writes
the file. A broken file raises :class:`~desktop_app.runtime.errors.ConfigError` naming the path,
with line and column for JSON syntax errors and the field path (``mcpServers.time.args``) for
invalid values. ``${NAME}`` references in ``env`` values are expanded from the process
environment; ``${keyring:NAME}`` references are left untouched for the secrets layer.

    {"mcpServers": {"time": {"command": "uvx", "args": ["mcp-server-time"], "env": {"TZ": "${TZ}"},
                             "disabled": false, "timeout": 30, "startupTimeout": 90}}}
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from desktop_app.runtime.errors import ConfigError

_REFERENCE = re.compile(r"\$\{([^}]*)\}")
_KEYRING_PREFIX = "keyring:"


class ServerConfig(BaseModel):
    """One MCP server entry. Unknown fields (``hooks``, ``trust``, ``headers`` …) stay in ``model_extra``."""

    model_config = ConfigDict(frozen=True, extra="allow", populate_by_name=True)

    command: str | None = None
    args: list[str] = Field(default_factory=list)
    env: dict[str, str] = Field(default_factory=dict)
    url: str | None = None
    disabled: bool = False
    timeout: float | None = Field(default=None, gt=0, description="Per-call timeout in seconds.")
    startup_timeout: float | None = Field(
        default=None, gt=0, alias="startupTimeout", description="Connect timeout in seconds."
    )

    @model_validator(mode="after")
    def _needs_command_or_url(self) -> ServerConfig:
        if not (self.command and self.command.strip()) and not (self.url and self.url.strip()):
            raise ValueError("requires either command or url")
        return self

    @property
    def transport(self) -> str:
        """``stdio`` when a command is given, else ``http``."""
        return "stdio" if self.command and self.command.strip() else "http"


def expand_env_value(value: str, environ: Mapping[str, str], *, where: str) -> str:
    """Expand ``${NAME}`` from ``environ``. Unset, empty or unclosed references raise ``ValueError``."""
    start = value.find("${")
    if start == -1:
        return value
    out: list[str] = []
    pos = 0
    for match in _REFERENCE.finditer(value):
        out.append(value[pos : match.start()])
        name = match.group(1).strip()
        if not name:
            raise ValueError(f"{where}: empty variable reference '${{}}'")
        if name.startswith(_KEYRING_PREFIX):
            out.append(match.group(0))
        elif name in environ:
            out.append(environ[name])
        else:
            raise ValueError(
                f"{where}: environment variable '{name}' is not set; set it before starting "
                "Switchboard or put the value in mcp.json"
            )
        pos = match.end()
    rest = value[pos:]
    if "${" in rest:
        raise ValueError(f"{where}: unclosed variable reference (missing '}}')")
    out.append(rest)
    return "".join(out)


def _field_path(prefix: str, loc: tuple[int | str, ...]) -> str:
    return ".".join([prefix, *(str(part) for part in loc)])


def parse_mcp_config(text: str, path: Path, *, environ: Mapping[str, str] | None = None) -> dict[str, ServerConfig]:
    """Parse the text of an ``mcp.json`` (already read); ``path`` is only used in error messages."""
    env_source = os.environ if environ is None else environ
    text = text.removeprefix("\ufeff")
    if not text.strip():
        return {}
    try:
        document = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ConfigError(path, f"invalid JSON: {exc.msg}", line=exc.lineno, column=exc.colno) from None
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
            expanded = {
                key: expand_env_value(value, env_source, where=f"{prefix}.env.{key}")
                for key, value in config.env.items()
            }
        except ValueError as exc:
            problems.append(str(exc))
            continue
        servers[name] = config.model_copy(update={"env": expanded})
    if problems:
        raise ConfigError(path, "; ".join(problems))
    return servers


def load_mcp_config(path: Path, *, environ: Mapping[str, str] | None = None) -> dict[str, ServerConfig]:
    """Read ``mcp.json`` at ``path``. A missing file is an empty config; a broken one raises ConfigError."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return {}
    except OSError as exc:
        raise ConfigError(path, f"cannot read the file: {exc.strerror or exc}") from None
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ConfigError(path, f"the file is not valid UTF-8 (byte {exc.start})") from None
    return parse_mcp_config(text, path, environ=environ)
