"""The MCP Bundle manifest (``manifest.json``), as ``MANIFEST.md`` of modelcontextprotocol/mcpb specifies it.

Versions 0.1 to 0.4 are read (``manifest_version``, or the deprecated ``dxt_version``); server type ``uv``
exists from 0.4. Like the official schemas, unknown keys are refused inside the manifest's parts (a typo such
as ``server.comand`` is an error); at the top level an unknown key (``id``, ``scripts``: two of the official
examples carry them) is kept aside, not used, and named on the install screen. A problem raises
:class:`~desktop_app.runtime.extensions.archive.BundleError` naming the bundle, ``manifest.json`` and the
field at fault (``server.entry_point: field required``).
"""

from __future__ import annotations

import json
import re
from pathlib import Path, PurePosixPath
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from desktop_app.runtime.extensions.errors import BundleError
from desktop_app.runtime.model_defaults import empty_list

SUPPORTED_VERSIONS = ("0.1", "0.2", "0.3", "0.4")
Platform = Literal["darwin", "win32", "linux"]
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Author(_Strict):
    name: str
    email: str | None = None
    url: str | None = None


class Repository(_Strict):
    type: str
    url: str


class McpConfig(_Strict):
    command: str
    args: list[str] = Field(default_factory=empty_list)
    env: dict[str, str] = Field(default_factory=dict)
    platform_overrides: dict[str, dict[str, Any]] = Field(default_factory=dict)

    def for_platform(self, platform: str) -> tuple[str, list[str], dict[str, str]]:
        """``(command, args, env)`` with the platform's override applied: each field it gives replaces the base one,
        an empty ``args`` or ``env`` too (as mcpb's ``getMcpConfigForManifest`` does); an empty command does not."""
        override = self.platform_overrides.get(platform, {})
        command = override.get("command") or self.command
        args = override["args"] if isinstance(override.get("args"), list) else self.args
        env = override["env"] if isinstance(override.get("env"), dict) else self.env
        return str(command), [str(a) for a in args], {str(k): str(v) for k, v in dict(env).items()}


class Server(_Strict):
    type: Literal["python", "node", "binary", "uv"]
    entry_point: str
    mcp_config: McpConfig | None = None

    @field_validator("entry_point")
    @classmethod
    def _inside_the_bundle(cls, value: str) -> str:
        """A relative path without a ``..`` step: the entry point is a file of the bundle, never outside it."""
        clean = value.strip().replace("\\", "/")
        if not clean or clean.startswith("/") or re.match(r"^[A-Za-z]:", clean) or ".." in PurePosixPath(clean).parts:
            raise ValueError(f"{value!r} is outside the bundle; it must be a relative path inside it")
        return value

    def launch(self) -> McpConfig:
        """``mcp_config``, or the host's own way to run the entry point when it is left out (for ``uv`` the
        spec leaves execution to the host: ``uv run --directory ${__dirname} ENTRY``)."""
        if self.mcp_config is not None:
            return self.mcp_config
        entry = f"${{__dirname}}/{self.entry_point.removeprefix('./')}"
        if self.type == "uv":
            return McpConfig(command="uv", args=["run", "--directory", "${__dirname}", self.entry_point])
        if self.type == "binary":
            return McpConfig(command=entry)
        return McpConfig(command="python" if self.type == "python" else "node", args=[entry])


class Runtimes(_Strict):
    python: str | None = None
    node: str | None = None


class Compatibility(_Strict):
    claude_desktop: str | None = None
    platforms: list[Platform] | None = None
    runtimes: Runtimes | None = None


class Tool(_Strict):
    name: str
    description: str | None = None


class Prompt(_Strict):
    name: str
    description: str | None = None
    arguments: list[str] = Field(default_factory=empty_list)
    text: str


class UserConfigOption(_Strict):
    type: Literal["string", "number", "boolean", "directory", "file"]
    title: str
    description: str
    required: bool = False
    default: str | float | bool | list[str] | None = None
    multiple: bool = False
    sensitive: bool = False
    min: float | None = None
    max: float | None = None

    @model_validator(mode="after")
    def _range(self) -> UserConfigOption:
        if self.min is not None and self.max is not None and self.min > self.max:
            raise ValueError(f"min ({self.min:g}) is greater than max ({self.max:g})")
        return self


class Icon(_Strict):
    src: str
    size: str
    theme: str | None = None


class Manifest(BaseModel):
    model_config = ConfigDict(extra="allow", frozen=True, populate_by_name=True)

    schema_: str | None = Field(default=None, alias="$schema")
    dxt_version: str | None = None
    manifest_version: str | None = None
    name: str
    display_name: str | None = None
    version: str
    description: str
    long_description: str | None = None
    author: Author
    repository: Repository | None = None
    homepage: str | None = None
    documentation: str | None = None
    support: str | None = None
    icon: str | None = None
    icons: list[Icon] = Field(default_factory=empty_list)
    screenshots: list[str] = Field(default_factory=empty_list)
    localization: dict[str, Any] | None = None
    server: Server
    tools: list[Tool] = Field(default_factory=empty_list)
    tools_generated: bool = False
    prompts: list[Prompt] = Field(default_factory=empty_list)
    prompts_generated: bool = False
    keywords: list[str] = Field(default_factory=empty_list)
    license: str | None = None
    privacy_policies: list[str] = Field(default_factory=empty_list)
    compatibility: Compatibility | None = None
    user_config: dict[str, UserConfigOption] = Field(default_factory=dict)
    meta: dict[str, dict[str, Any]] | None = Field(default=None, alias="_meta")

    @field_validator("name")
    @classmethod
    def _safe_name(cls, value: str) -> str:
        if not _NAME.match(value) or ".." in value:
            raise ValueError("must start with a letter or digit and hold only letters, digits, '.', '_' and '-'")
        return value

    @model_validator(mode="after")
    def _version(self) -> Manifest:
        version = self.manifest_version or self.dxt_version
        if version is None:
            raise ValueError("either 'manifest_version' or the deprecated 'dxt_version' must be given")
        if version not in SUPPORTED_VERSIONS:
            raise ValueError(
                f"manifest version {version!r} is not supported (use one of {', '.join(SUPPORTED_VERSIONS)})"
            )
        if self.server.type == "uv" and version != "0.4":
            raise ValueError("server.type 'uv' needs manifest_version '0.4'")
        return self

    @property
    def unknown_fields(self) -> list[str]:
        """Top-level keys the spec does not define (not used here; the report names each)."""
        return sorted(self.model_extra or {})

    @property
    def version_of_manifest(self) -> str:
        return self.manifest_version or self.dxt_version or ""

    @property
    def title(self) -> str:
        return self.display_name or self.name


def _where(loc: tuple[int | str, ...]) -> str:
    return ".".join(str(part) for part in loc) or "(top level)"


def parse_manifest(data: bytes | str, source: str | Path) -> Manifest:
    """Validate ``manifest.json``'s text; ``source`` (the bundle or folder) names it in errors."""
    where = f"{source}: manifest.json"
    try:
        document = json.loads(data)
    except json.JSONDecodeError as exc:
        raise BundleError(f"{where}:{exc.lineno}:{exc.colno}: not valid JSON ({exc.msg})") from None
    except UnicodeDecodeError:
        raise BundleError(f"{where}: not UTF-8 text") from None
    except RecursionError:
        raise BundleError(f"{where}: nested too deeply to be a manifest") from None
    if not isinstance(document, dict):
        raise BundleError(f"{where}: must hold a JSON object")
    try:
        return Manifest.model_validate(document)
    except ValidationError as exc:
        problems = []
        for error in exc.errors():
            message = error["msg"].removeprefix("Value error, ")
            if error["type"] == "extra_forbidden":
                message = "unknown field"
            problems.append(f"{_where(error['loc'])}: {message}")
        raise BundleError(f"{where}: " + "; ".join(problems)) from None


__all__ = ["SUPPORTED_VERSIONS", "Manifest", "UserConfigOption", "parse_manifest"]
