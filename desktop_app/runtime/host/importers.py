"""Importing other apps' MCP configurations into Switchboard's ``mcp.json``.

Recognised sources (see :func:`read_source`):

* **Claude Desktop** ``{"mcpServers": {name: {command, args, env}}}``;
* **Claude Code** ``.mcp.json`` (and ``~/.claude.json``'s user servers): ``type``, ``command``, ``args``, ``env``,
  ``url``, ``headers``; ``${VAR}`` and ``${VAR:-default}`` work as written;
* **Cursor** the same shape plus ``url`` (+ ``headers``) servers (``.cursor/mcp.json``);
* **VS Code** ``{"servers": {name: {type, command, args, env, envFile, url, headers, dev}}, "inputs": [...]}``
  (JSON with comments); the variables of VS Code and Cursor (``${input:ID}``, ``${env:NAME}``,
  ``${workspaceFolder}`` …) and ``envFile`` are translated by :mod:`.import_variables`;
* **Goose** ``config.yaml`` ``extensions:`` (:mod:`.import_goose`);
* **nanobot** ``mcp-servers.yaml|json`` (a bare map ``name → server``), a ``nanobot.yaml`` with
  ``mcpServers``, or a folder holding one of them;
* **Whale** ``servers`` and/or ``mcpServers`` (on a name collision ``mcpServers`` wins),
  ``disabled_tools`` → ``excludedTools``, ``timeout`` → ``timeout`` and ``startupTimeout``.

:func:`import_config` merges the servers into the target file (an existing server of the same
name is kept and reported as a conflict unless ``replace``), moves literal secrets in ``env``, ``headers``,
``args`` and ``url`` into the keyring (:mod:`.secrets`), and writes the target atomically. Each field of each
server gets a compatibility line (:mod:`.import_compat`, converted by :mod:`.import_formats`). A server's
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
from desktop_app.runtime.host.config import ServerConfig, check_references, load_mcp_config
from desktop_app.runtime.host.config_edit import put_server, remove_server
from desktop_app.runtime.host.import_compat import CompatLine, CompatLog
from desktop_app.runtime.host.import_formats import convert_entry, move_all_secrets, secret_lines
from desktop_app.runtime.host.import_goose import GOOSE, convert_extension, is_goose
from desktop_app.runtime.host.import_variables import VariableContext, VariableProblem, inputs_of
from desktop_app.runtime.host.jsonfiles import parse_json, parse_yaml, write_json_atomically

CLAUDE, CURSOR, VSCODE, NANOBOT, WHALE = "Claude Desktop", "Cursor", "VS Code", "nanobot", "Whale"
CLAUDE_CODE = "Claude Code"
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
    lines: list[CompatLine] = field(default_factory=list)
    """The compatibility report: one line per part of the source (:mod:`.import_compat`)."""
    to_enter: list[str] = field(default_factory=list)
    """Keyring entries the user must enter (values the source app asked for or kept in its own keyring)."""
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
    if is_goose(document):
        return GOOSE
    if name in {".mcp.json", ".claude.json"} and isinstance(document.get("mcpServers", {}), dict):
        return CLAUDE_CODE  # a project's .mcp.json, or the user's ~/.claude.json
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


@dataclass
class SourceRead:
    """One source file read and converted: its servers in our shape, why some cannot be imported, the notes
    and the compatibility lines."""

    format: str
    servers: dict[str, dict[str, Any]]
    problems: dict[str, str]
    notes: list[str]
    lines: list[CompatLine]
    to_enter: list[str]
    path: Path


def _raw_servers(kind: str, document: dict[str, Any], path: Path, file_log: CompatLog) -> dict[str, Any]:
    if kind == WHALE:
        return {**_servers_of(document, "servers", path), **_servers_of(document, "mcpServers", path)}
    if kind == VSCODE:
        return _servers_of(document, "servers", path)
    if kind == GOOSE:
        others = sorted(str(key) for key in document if key != "extensions")
        if others:
            file_log.unavailable(
                "settings",
                f"Goose's own settings ({', '.join(others[:6])}"
                f"{', …' if len(others) > 6 else ''}) are not MCP servers; not imported",
            )
        return _servers_of(document, "extensions", path)
    if kind == NANOBOT:
        if isinstance(document.get("env"), dict) and "mcpServers" in document:
            file_log.unavailable(
                "env", "nanobot's top-level env declarations are not imported; set those variables yourself"
            )
        return _servers_of(document, "mcpServers", path) if "mcpServers" in document else document
    if kind == CLAUDE_CODE and isinstance(document.get("projects"), dict):
        file_log.unavailable(
            "projects",
            "the per-project servers of ~/.claude.json are not imported; import the project's .mcp.json instead",
        )
    return _servers_of(document, "mcpServers", path)


def read_source_full(source: Path) -> SourceRead:
    """Read and convert ``source`` with its compatibility report; raises ConfigError for a broken file."""
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
    lines: list[CompatLine] = []
    file_log = CompatLog(lines, "")
    raw = _raw_servers(kind, document, path, file_log)
    ctx = VariableContext(kind=kind, source=path.resolve(), inputs=inputs_of(document) if kind == VSCODE else {})
    servers: dict[str, dict[str, Any]] = {}
    problems: dict[str, str] = {}
    for raw_name, entry in raw.items():
        name = str(raw_name).strip()
        if not name:
            continue
        if not isinstance(entry, dict):
            notes.append(f"{name}: skipped, the entry is not an object")
            continue
        log = CompatLog(lines, name)
        try:
            if kind == GOOSE:
                converted, problem = convert_extension(name, entry, log, ctx.to_enter)
                if problem is not None:
                    servers[name], problems[name] = converted, problem
                    continue
                entry = converted
            servers[name] = convert_entry(ctx, name, copy.deepcopy(entry), log)
        except VariableProblem as exc:
            servers[name], problems[name] = copy.deepcopy(entry), str(exc)
            log.unavailable("server", f"not imported: {exc}")
    used = str(raw)
    for ident, spec in ctx.inputs.items():
        kind_text = "password input" if spec.get("password") else str(spec.get("type") or "input")
        if "${input:" + ident + "}" in used:
            file_log.translated(f"input {ident}", f"{kind_text}; see the lines of the servers that use it")
        else:
            file_log.works(f"input {ident}", f"{kind_text}, used by no server; nothing to do")
    return SourceRead(kind, servers, problems, notes, lines, ctx.to_enter, path)


def read_source(source: Path) -> tuple[str, dict[str, dict[str, Any]], list[str], Path]:
    """Read and convert ``source``: (format, servers in our shape, notes, the file actually read)."""
    read = read_source_full(source)
    return read.format, read.servers, read.notes, read.path


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
    read = read_source_full(Path(source))
    kind, servers, notes, read_path = read.format, read.servers, read.notes, read.path
    check = getattr(credentials, "check", None)
    if check is not None:
        check()  # a keyring that stores nothing (the "null" backend) becomes an honest session-only store
    document = _read_target(target)
    existing = document.get("mcpServers")
    if not isinstance(existing, dict):
        existing = {}
    existing_names = {str(key).strip(): key for key in existing}
    report = ImportReport(source=read_path, target=target, format=kind, notes=notes, lines=read.lines)
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
        problem = f"{name}: skipped, {read.problems[name]}" if name in read.problems else _problem(name, entry)
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
        moved = move_all_secrets(name, entry, store)
        stored.extend(moved)
        report.lines.extend(secret_lines(name, entry, moved))
        report.to_enter.extend(e for e in read.to_enter if e.startswith(f"mcp:{name}:"))
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
    "CLAUDE_CODE",
    "CURSOR",
    "GOOSE",
    "NANOBOT",
    "VSCODE",
    "WHALE",
    "ImportReport",
    "SourceRead",
    "detect_format",
    "import_config",
    "move_all_secrets",
    "read_source",
    "read_source_full",
    "secret_lines",
    "write_json_atomically",
]
