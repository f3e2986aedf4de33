"""Variable syntax on import: each source app's ``${…}`` forms turned into Switchboard's, and ``envFile`` read.

Switchboard expands ``${NAME}``, ``${NAME:-default}`` and ``${keyring:NAME}`` in ``command``, ``args``, ``env``,
``url`` and ``headers`` when a server starts (:mod:`.environment`). On import, per source format
(:func:`translate_variables`):

* **VS Code** ``${input:id}`` with its ``inputs`` entry: an input with a ``default`` (not a password) takes it;
  a password input, one without a default, or an undeclared one becomes a keyring entry of the server
  (``mcp:<server>:<VAR>`` for a whole ``env`` value, ``mcp:<server>:header:<Name>`` for a header, else
  ``mcp:<server>:input:<id>``) that the user enters once; ``${env:NAME}`` becomes ``${NAME}``;
* **VS Code and Cursor** ``${userHome}``, ``${workspaceFolder}``, ``${workspaceFolderBasename}``,
  ``${pathSeparator}`` / ``${/}`` are filled in (the workspace is the folder holding ``.vscode/`` or
  ``.cursor/``; a user-wide file has none, and a server that needs it is not imported);
* **Claude Code, nanobot, Whale, Goose** ``${NAME}`` and ``${NAME:-default}`` work as written;
* **Claude Desktop** passes ``${…}`` as written; here it is read from the environment, and the line says so.

Any other ``${…}`` (``${command:…}``, ``${config:…}``, an editor variable) is a problem: the server is not
imported, so no literal ``${…}`` ever reaches a server unannounced. ``envFile`` (VS Code, Cursor) is read once
and its variables are copied into ``env``, where ``env`` wins (:func:`read_env_file`).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from desktop_app.runtime.errors import SwitchboardError
from desktop_app.runtime.files import read_config_text
from desktop_app.runtime.host.config import DEFAULT_SEPARATOR, KEYRING_PREFIX
from desktop_app.runtime.host.import_compat import CompatLog, enter_it
from desktop_app.runtime.host.secrets import keyring_name, keyring_reference

_REFERENCE = re.compile(r"\$\{([^}]*)\}")
_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_ENV_LINE = re.compile(r"^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_.-]*)\s*=\s*(.*)$")
EDITOR_APPS = frozenset({"VS Code", "Cursor"})
EXPANDING_APPS = frozenset({"Claude Code", "nanobot", "Whale", "Goose"})
FIELDS = ("command", "args", "env", "url", "headers")


class VariableProblem(ValueError):
    """A variable this server needs that cannot be had here; the server is not imported."""


@dataclass
class VariableContext:
    """What the variables of one source file resolve against."""

    kind: str
    source: Path
    inputs: dict[str, dict[str, Any]] = field(default_factory=dict)
    home: Path = field(default_factory=Path.home)
    to_enter: list[str] = field(default_factory=list)
    """Keyring entries the user must enter (VS Code password inputs, Goose env_keys), in order found."""

    @property
    def workspace(self) -> Path | None:
        """The folder a ``.vscode/mcp.json`` or ``.cursor/mcp.json`` belongs to; ``None`` for a user-wide file
        (``~/.cursor/mcp.json`` and VS Code's profile ``mcp.json`` belong to no workspace)."""
        parent = self.source.parent
        if parent.name in {".vscode", ".cursor"} and parent.parent != self.home:
            return parent.parent
        return None


def inputs_of(document: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """VS Code's ``inputs`` array as ``id → input``."""
    found: dict[str, dict[str, Any]] = {}
    for item in document.get("inputs") or []:
        if isinstance(item, dict) and isinstance(item.get("id"), str):
            found[item["id"]] = item
    return found


def _location(field_name: str, key: str | int | None) -> str:
    if key is None:
        return field_name
    if isinstance(key, int):
        return f"argument {key + 1}"
    return f"{'header' if field_name == 'headers' else field_name} {key}"


def _input(
    ctx: VariableContext, server: str, where: tuple[str, str | int | None], whole: bool, ident: str, log: CompatLog
) -> str:
    field_name, key = where
    spec = ctx.inputs.get(ident)
    part = _location(field_name, key)
    description = f" ({spec['description']})" if spec and isinstance(spec.get("description"), str) else ""
    default = spec.get("default") if spec else None
    if spec and not spec.get("password") and isinstance(default, str):
        log.translated(
            part,
            f"VS Code input '{ident}'{description} → its default {default!r} (VS Code would "
            "have asked, offering it; change it with Edit… in View → Servers)",
            field=field_name,
        )
        return default
    if whole and field_name == "env" and isinstance(key, str):
        entry = keyring_name(server, key)
    elif whole and field_name == "headers" and isinstance(key, str):
        entry = keyring_name(server, key, header=True)
    else:
        entry = f"mcp:{server}:input:{ident}"
    if entry not in ctx.to_enter:
        ctx.to_enter.append(entry)
    kind = "password input" if spec and spec.get("password") else "input" if spec else "undeclared input"
    log.translated(
        part, f"VS Code {kind} '{ident}'{description} → keyring entry {entry}; {enter_it(entry)}", field=field_name
    )
    return keyring_reference(entry)


def _editor_variable(ctx: VariableContext, token: str, part: str, log: CompatLog, field_name: str) -> str | None:
    """``${userHome}`` and the other editor variables VS Code and Cursor fill in, or ``None``."""
    if token == "userHome":
        value = str(ctx.home)
    elif token in {"pathSeparator", "/"}:
        value = os.sep
    elif token in {"workspaceFolder", "workspaceFolderBasename"}:
        if ctx.workspace is None:
            raise VariableProblem(
                f"{part} uses ${{{token}}}, but {ctx.source} belongs to no workspace folder; import the project's "
                f".vscode/mcp.json or .cursor/mcp.json instead, or give the path after importing"
            )
        value = str(ctx.workspace) if token == "workspaceFolder" else ctx.workspace.name
    else:
        return None
    log.translated(part, f"{ctx.kind}'s ${{{token}}} → {value!r}", field=field_name)
    return value


def _translate_value(
    ctx: VariableContext, server: str, where: tuple[str, str | int | None], value: str, log: CompatLog
) -> str:
    field_name, _key = where
    part = _location(*where)
    whole = _REFERENCE.fullmatch(value.strip()) is not None

    def replace(match: re.Match[str]) -> str:
        token = match.group(1).strip()
        if token.startswith(KEYRING_PREFIX):
            return match.group(0)
        if ctx.kind in EDITOR_APPS:
            if token.startswith("env:"):
                variable = token.removeprefix("env:").strip()
                log.translated(
                    part,
                    f"${{env:{variable}}} → ${{{variable}}}, read from your environment when the server starts",
                    field=field_name,
                )
                return "${" + variable + "}"
            if token.startswith("input:") and ctx.kind == "VS Code":
                return _input(ctx, server, where, whole, token.removeprefix("input:").strip(), log)
            filled = _editor_variable(ctx, token, part, log, field_name)
            if filled is not None:
                return filled
        variable = token.partition(DEFAULT_SEPARATOR)[0].strip()
        if not _NAME.match(variable):
            raise VariableProblem(f"{part} uses ${{{token}}}, which {ctx.kind} fills in and Switchboard cannot")
        if ctx.kind in EXPANDING_APPS:
            log.works(part, f"${{{token}}} is read from your environment when the server starts", field=field_name)
        else:
            log.translated(
                part,
                f"${{{token}}}: {ctx.kind} passes it as written; Switchboard reads the variable "
                "from your environment when the server starts",
                field=field_name,
            )
        return match.group(0)

    return _REFERENCE.sub(replace, value)


def translate_variables(ctx: VariableContext, server: str, entry: dict[str, Any], log: CompatLog) -> None:
    """Rewrite every ``${…}`` of ``entry`` (in place) into Switchboard's syntax; raises :class:`VariableProblem`
    for one that cannot be had here."""
    for field_name in FIELDS:
        value = entry.get(field_name)
        if isinstance(value, str) and "${" in value:
            entry[field_name] = _translate_value(ctx, server, (field_name, None), value, log)
        elif isinstance(value, list):
            for index, item in enumerate(value):
                if isinstance(item, str) and "${" in item:
                    value[index] = _translate_value(ctx, server, (field_name, index), item, log)
        elif isinstance(value, dict):
            for key, item in value.items():
                if isinstance(item, str) and "${" in item:
                    value[key] = _translate_value(ctx, server, (field_name, str(key)), item, log)


def parse_env_file(text: str) -> dict[str, str]:
    """A dotenv file: ``KEY=value`` lines (``export`` allowed), ``#`` comments, single or double quotes."""
    values: dict[str, str] = {}
    for line in text.splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        match = _ENV_LINE.match(line)
        if match is None:
            continue
        key, raw = match.group(1), match.group(2).strip()
        if len(raw) >= 2 and raw[0] == raw[-1] and raw[0] in "'\"":
            value = raw[1:-1]
            if raw[0] == '"':
                value = value.replace("\\n", "\n").replace('\\"', '"')
        else:
            value = re.split(r"\s+#", raw, maxsplit=1)[0].strip()
        values[key] = value
    return values


def read_env_file(ctx: VariableContext, server: str, entry: dict[str, Any], log: CompatLog) -> None:
    """Copy the variables of ``entry["envFile"]`` into ``env`` (``env``'s own values win) and drop the field."""
    written = entry.pop("envFile", None)
    if written is None:
        return
    if not isinstance(written, str) or not written.strip():
        log.unavailable("envFile", "not a file name; ignored")
        return
    translated = _translate_value(ctx, server, ("envFile", None), written, log)
    path = Path(os.path.expanduser(translated))
    if not path.is_absolute():
        path = (ctx.workspace or ctx.source.parent) / path
    try:
        values = parse_env_file(read_config_text(path))
    except (OSError, ValueError, SwitchboardError) as exc:
        log.unavailable(
            "envFile",
            f"{path} could not be read ({exc}); its variables are not set here — add them "
            "to env with Edit… in View → Servers",
        )
        return
    env = entry.setdefault("env", {})
    if not isinstance(env, dict):
        log.unavailable("envFile", "env is not an object; the file's variables were not copied")
        return
    added = [key for key in values if key not in env]
    for key in added:
        env[key] = values[key]
    names = ", ".join(added) or "none new"
    log.translated(
        "envFile",
        f"{path}: its variables were copied into env ({names}); secret ones go to the keyring "
        "below; later edits to the file are not seen",
    )


__all__ = [
    "VariableContext",
    "VariableProblem",
    "inputs_of",
    "parse_env_file",
    "read_env_file",
    "translate_variables",
]
