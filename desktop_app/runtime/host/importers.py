"""Importing other apps' MCP configurations into Switchboard's ``mcp.json``.

Recognised sources (see :func:`read_source`):

* **Claude Desktop** ``{"mcpServers": {name: {command, args, env}}}``;
* **Cursor** the same shape plus ``url`` (+ ``headers``) servers (``.cursor/mcp.json``);
* **VS Code** ``{"servers": {name: {type, command, args, env, url, headers}}, "inputs": [...]}``
  (JSON with comments); ``inputs`` are not imported: ``${input:ID}`` becomes a keyring reference
  that the user sets, ``${env:NAME}`` becomes ``${NAME}``;
* **nanobot** ``mcp-servers.yaml|json`` (a bare map ``name → server``), a ``nanobot.yaml`` with
  ``mcpServers``, or a folder holding one of them;
* **Whale** ``servers`` and/or ``mcpServers`` (on a name collision ``mcpServers`` wins),
  ``disabled_tools`` → ``excludedTools``, ``timeout`` → ``timeout`` and ``startupTimeout``.

:func:`import_config` merges the servers into the target file (an existing server of the same
name is kept and reported as a conflict unless ``replace``), moves secret-looking ``env`` and
``headers`` values into the keyring (:mod:`.secrets`), and writes the target atomically. A server's
``hooks`` are not written to the target (which is trusted): they go to ``imported-hooks/<source>.json``
beside it, where they stay untrusted until the user trusts them. A broken
source or target raises :class:`~desktop_app.runtime.errors.ConfigError` and nothing is written.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Collection
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from desktop_app.runtime.credentials import Credentials
from desktop_app.runtime.errors import ConfigError, CredentialError
from desktop_app.runtime.files import read_config_text
from desktop_app.runtime.host.config import ServerConfig, check_references, load_mcp_config, normalize_transport
from desktop_app.runtime.host.config_edit import put_server, remove_server
from desktop_app.runtime.host.jsonfiles import parse_json, parse_yaml, write_json_atomically
from desktop_app.runtime.host.secrets import (
    keyring_name,
    keyring_reference,
    move_secret_args,
    move_secrets,
    secret_looking_args,
)

CLAUDE, CURSOR, VSCODE, NANOBOT, WHALE = "Claude Desktop", "Cursor", "VS Code", "nanobot", "Whale"
_FOLDER_CANDIDATES = (
    "mcp-servers.yaml",
    "mcp-servers.yml",
    "mcp-servers.json",
    "nanobot.yaml",
    ".vscode/mcp.json",
    ".cursor/mcp.json",
    "mcp.json",
)
_NANOBOT_KEYS = frozenset({"agents", "publish", "llmProviders", "profiles", "extends", "workspaceId"})
_NANOBOT_UNSUPPORTED = ("image", "dockerfile", "source", "sandboxed", "unsandboxed", "ports", "reversePorts")
_VSCODE_INPUT = re.compile(r"\$\{input:([^}]*)\}")
_VSCODE_ENV = re.compile(r"\$\{env:([^}]*)\}")


@dataclass
class ImportReport:
    """What an import did. ``secrets`` holds keyring entry names only, never values."""

    source: Path
    target: Path
    format: str
    imported: list[str] = field(default_factory=list)
    replaced: list[str] = field(default_factory=list)
    conflicts: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    secrets: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    written: bool = False
    session_only: bool = False
    """No usable keyring: the moved secrets are kept in memory for this session only (the UI says so first)."""


# -- reading a source ---------------------------------------------------------------------------


def _source_file(source: Path) -> Path:
    if source.is_dir():
        for candidate in _FOLDER_CANDIDATES:
            if (source / candidate).is_file():
                return source / candidate
        raise ConfigError(
            source, f"no MCP configuration found in this folder (looked for {', '.join(_FOLDER_CANDIDATES)})"
        )
    return source


def _is_server_map(value: Any) -> bool:
    return isinstance(value, dict) and all(
        isinstance(e, dict) and ("command" in e or "url" in e) for e in value.values()
    )


def detect_format(path: Path, document: Any) -> str:
    """Which app wrote ``document`` (read from ``path``); raises ConfigError if it is no MCP config."""
    if not isinstance(document, dict):
        raise ConfigError(path, f"the top level must be an object, got {type(document).__name__}")
    parts = {part.lower() for part in path.parts}
    name = path.name.lower()
    if name == "claude_desktop_config.json" and isinstance(document.get("mcpServers", {}), dict):
        return CLAUDE  # Claude Desktop's own file, whatever its entries look like (remote ones too)
    if name.startswith("mcp-servers.") or (
        "mcpServers" in document and (path.suffix.lower() in {".yaml", ".yml"} or _NANOBOT_KEYS & document.keys())
    ):
        return NANOBOT
    entries = [
        e for key in ("servers", "mcpServers") if isinstance(document.get(key), dict) for e in document[key].values()
    ]
    whale_fields = any(isinstance(e, dict) and ("transport" in e or "disabled_tools" in e) for e in entries)
    if ".whale" in parts or ("servers" in document and "mcpServers" in document) or whale_fields:
        return WHALE
    if "servers" in document:
        return VSCODE
    if "mcpServers" in document:
        has_url = any(isinstance(e, dict) and "url" in e for e in entries)
        claude_keys = {"globalShortcut", "preferences"} & document.keys()  # settings only Claude Desktop writes
        return CURSOR if ".cursor" in parts or (has_url and not claude_keys) else CLAUDE
    if document and _is_server_map(document):
        return NANOBOT
    raise ConfigError(path, "not an MCP configuration: expected 'mcpServers' or 'servers' (or a nanobot server map)")


def _servers_of(document: dict[str, Any], key: str, path: Path) -> dict[str, Any]:
    value = document.get(key)
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise ConfigError(path, f"{key}: must be an object, got {type(value).__name__}")
    return value


def read_source(source: Path) -> tuple[str, dict[str, dict[str, Any]], list[str], Path]:
    """Read and convert ``source``: (format, servers in our shape, notes, the file actually read)."""
    path = _source_file(source)
    try:
        text = read_config_text(path)  # as ask reads mcp.json: a regular file, size-capped, UTF-8
    except FileNotFoundError:
        raise ConfigError(path, "no such file") from None
    document = parse_yaml(text, path) if path.suffix.lower() in {".yaml", ".yml"} else parse_json(text, path)
    if document is None:
        document = {}
    kind = detect_format(path, document)
    notes: list[str] = []
    raw: dict[str, Any] = {}
    if kind == WHALE:
        raw = {**_servers_of(document, "servers", path), **_servers_of(document, "mcpServers", path)}
    elif kind == VSCODE:
        raw = _servers_of(document, "servers", path)
        if document.get("inputs"):
            notes.append(
                f"{len(document['inputs'])} VS Code input(s) were not imported; values that used ${{input:…}} now "
                "refer to keyring entries you need to set (see below)"
            )
    elif kind == NANOBOT:
        raw = _servers_of(document, "mcpServers", path) if "mcpServers" in document else document
        if isinstance(document.get("env"), dict) and "mcpServers" in document:
            notes.append("nanobot's top-level 'env' declarations were not imported; set those variables yourself")
    else:
        raw = _servers_of(document, "mcpServers", path)
    servers: dict[str, dict[str, Any]] = {}
    for raw_name, entry in raw.items():
        name = str(raw_name).strip()
        if not name:
            continue
        if not isinstance(entry, dict):
            notes.append(f"{name}: skipped, the entry is not an object")
            continue
        servers[name] = _convert(kind, name, copy.deepcopy(entry), notes)
    return kind, servers, notes, path


# -- converting one entry -----------------------------------------------------------------------


def _stringify(name: str, entry: dict[str, Any], notes: list[str]) -> None:
    for key in ("env", "headers"):
        values = entry.get(key)
        if isinstance(values, dict):
            for var, value in list(values.items()):
                if isinstance(value, bool):
                    values[var] = "true" if value else "false"
                elif isinstance(value, int | float):
                    values[var] = str(value)
                elif value is None:
                    values[var] = ""
    if isinstance(entry.get("args"), str):
        entry["args"] = entry["args"].split()
        notes.append(f"{name}: 'args' was a single string and was split on spaces; check it")


def _convert_vscode(name: str, entry: dict[str, Any], notes: list[str]) -> None:
    for key in ("envFile", "dev"):
        if entry.pop(key, None) is not None:
            notes.append(f"{name}: VS Code's '{key}' is not supported and was dropped")
    for field_name, header in (("env", False), ("headers", True)):
        values = entry.get(field_name)
        if not isinstance(values, dict):
            continue
        for key, value in list(values.items()):
            if not isinstance(value, str):
                continue
            value = _VSCODE_ENV.sub(lambda m: "${" + m.group(1).strip() + "}", value)
            if _VSCODE_INPUT.search(value):
                secret = keyring_name(name, key, header=header)
                value = _VSCODE_INPUT.sub(keyring_reference(secret), value)
                notes.append(
                    f"{name}: {field_name}.{key} used a VS Code input; set it with `keyring set switchboard {secret}`"
                )
            values[key] = value


def _convert_whale(entry: dict[str, Any]) -> None:
    if "disabled_tools" in entry:
        entry["excludedTools"] = entry.pop("disabled_tools")
    if "timeout" in entry and "startupTimeout" not in entry:
        entry["startupTimeout"] = entry["timeout"]  # Whale's timeout covers start-up and calls


def _convert_nanobot(name: str, entry: dict[str, Any], notes: list[str]) -> None:
    if "workdir" in entry and "cwd" not in entry:
        entry["cwd"] = entry.pop("workdir")
    unsupported = [key for key in _NANOBOT_UNSUPPORTED if key in entry]
    if unsupported:
        notes.append(f"{name}: nanobot's {', '.join(unsupported)} are not supported; the command runs directly")
    if "toolOverrides" in entry:
        notes.append(f"{name}: nanobot's toolOverrides are not applied; use 'excludedTools' to hide tools")


def _convert(kind: str, name: str, entry: dict[str, Any], notes: list[str]) -> dict[str, Any]:
    _stringify(name, entry, notes)
    if kind == VSCODE:
        _convert_vscode(name, entry, notes)
    elif kind == WHALE:
        _convert_whale(entry)
    elif kind == NANOBOT:
        _convert_nanobot(name, entry, notes)
    for key in ("type", "transport"):
        value = entry.get(key)
        if isinstance(value, str):
            try:
                canonical = normalize_transport(value)
            except ValueError:
                continue  # validation reports it
            entry[key] = "streamable-http" if canonical == "http" and value.lower() != "http" else canonical
    return entry


def _problem(name: str, entry: dict[str, Any]) -> str | None:
    try:
        config = ServerConfig.model_validate(entry)
        for field_name, values in (("env", config.env), ("headers", config.headers)):
            for key, value in values.items():
                check_references(value, where=f"{field_name}.{key}")
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first["loc"])
        return f"{name}: skipped, {where + ': ' if where else ''}{first['msg'].removeprefix('Value error, ')}"
    except ValueError as exc:
        return f"{name}: skipped, {exc}"
    return None


# -- merging and writing ------------------------------------------------------------------------


def _read_target(target: Path) -> dict[str, Any]:
    load_mcp_config(target)  # raises ConfigError for a broken file, which is then never touched
    try:
        text = read_config_text(target)
    except FileNotFoundError:
        return {}
    document = parse_json(text, target) if text.strip() else {}
    assert isinstance(document, dict)
    return document


def import_config(
    source: Path,
    target: Path,
    credentials: Credentials,
    *,
    replace: bool = False,
    require_keyring: bool = False,
    only: Collection[str] | None = None,
) -> ImportReport:
    """Merge the servers of ``source`` into the ``mcp.json`` at ``target``; see the module docstring.

    ``only`` names the servers to import (the preview's ticked ones); the others are left out and
    listed as skipped. Each imported entry is written through :mod:`.config_edit`, so the target's
    other entries keep their formatting.

    With ``require_keyring`` (the CLI), an import that would leave secrets only in memory (no usable
    keyring) raises :class:`CredentialError`, forgets them again and writes nothing.
    """
    kind, servers, notes, read_path = read_source(Path(source))
    check = getattr(credentials, "check", None)
    if check is not None:
        check()  # a keyring that stores nothing (the "null" backend) becomes an honest session-only store
    document = _read_target(target)
    existing = document.get("mcpServers")
    if not isinstance(existing, dict):
        existing = {}
    existing_names = {str(key).strip(): key for key in existing}
    report = ImportReport(source=read_path, target=target, format=kind, notes=notes)
    merged = dict(existing)
    stored: list[str] = []
    lost: list[str] = []
    renamed: list[str] = []  # existing keys replaced by an import (their spelling may differ)
    imported_hooks: dict[str, Any] = {}

    def store(key: str, value: str) -> None:
        credentials.set(key, value)
        if credentials.get(key) != value:  # e.g. the "null" keyring backend accepts and forgets
            lost.append(key)

    for name, entry in servers.items():
        if only is not None and name not in only:
            report.skipped.append(name)
            continue
        problem = _problem(name, entry)
        if problem is not None:
            report.skipped.append(name)
            report.notes.append(problem)
            continue
        if name in existing_names and not replace:
            report.conflicts.append(name)
            continue
        if name in existing_names:
            merged.pop(existing_names[name])
            renamed.append(existing_names[name])
            report.replaced.append(name)
        else:
            report.imported.append(name)
        hooks = entry.pop("hooks", None) if isinstance(entry, dict) else None
        if hooks:  # never trusted by being imported: they go to imported-hooks/, untrusted until reviewed
            imported_hooks[name] = hooks
        stored.extend(move_secrets(name, entry, store))
        stored.extend(move_secret_args(name, entry, store))
        if secret_looking_args(entry):  # pragma: no cover - move_secret_args leaves none; kept as a guard
            report.notes.append(
                f"{name}: 'args' seem to contain a token; it stays in mcp.json — prefer an env variable"
            )
        merged[name] = entry
    report.secrets = stored
    if lost:
        for key in stored:
            credentials.delete(key)
        raise CredentialError(
            f"The keyring did not keep the secret(s) {', '.join(lost)}; configure a working keyring backend. "
            "Nothing was imported, so that no secret is lost."
        )
    if stored and not credentials.persistent:
        if require_keyring:
            for key in stored:
                credentials.delete(key)
            raise CredentialError(
                f"{credentials.problem or 'No usable keyring.'} Nothing was imported, so that no secret is lost."
            )
        report.session_only = True
        report.notes.append("no usable keyring: the moved secrets are kept in memory for this session only")
    if report.imported or report.replaced:
        for key in renamed:
            if key not in merged:
                remove_server(target, key)
        for name in [*report.replaced, *report.imported]:
            put_server(target, name, merged[name])
        report.written = True
        if imported_hooks:
            hooks_file = imported_hooks_path(target, read_path)
            write_json_atomically(
                hooks_file, {"mcpServers": {name: {"hooks": hooks} for name, hooks in imported_hooks.items()}}
            )
            report.notes.append(
                f"hooks of {', '.join(sorted(imported_hooks))} were saved to {hooks_file}; they stay off until "
                "you trust them in Settings → Hooks (or `switchboard hooks trust`)"
            )
    return report


def imported_hooks_path(target: Path, source: Path) -> Path:
    """Where an import keeps the source's hooks: ``<config>/imported-hooks/<source name>.json``."""
    stem = re.sub(r"[^A-Za-z0-9._-]+", "-", source.stem if source.is_file() else source.name).strip("-") or "import"
    return target.parent / "imported-hooks" / f"{stem}.json"


__all__ = [
    "CLAUDE",
    "CURSOR",
    "NANOBOT",
    "VSCODE",
    "WHALE",
    "ImportReport",
    "detect_format",
    "import_config",
    "read_source",
    "write_json_atomically",
]
