"""Editing one server's entry in ``mcp.json`` while keeping the rest of the file as the user wrote it.

Every change the app makes to ``mcp.json`` (the Servers panel's add, edit, enable/disable and remove;
``pinned`` and ``excludedTools``; import) goes through here:

* :func:`put_server` adds or replaces one entry of ``mcpServers``;
* :func:`set_server_fields` sets (or, with ``None``, removes) fields of one entry;
* :func:`remove_server` removes one entry.

Only the text of the entry being changed is rewritten (indented like its neighbours); every other byte
(other entries, their key order and spacing, other top-level keys) stays as it was. The file is parsed
first: a broken file raises :class:`ConfigError` with its line and column and is never written.
The result is checked to parse before it replaces the file, atomically.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from desktop_app.runtime.errors import ConfigError
from desktop_app.runtime.host.jsonfiles import parse_json, strip_jsonc, write_bytes_atomically

SERVERS_KEY = "mcpServers"


@dataclass(frozen=True)
class _Member:
    key: str
    key_start: int
    value_start: int
    value_end: int


@dataclass(frozen=True)
class _Object:
    start: int  # the "{"
    end: int  # one past the "}"
    members: tuple[_Member, ...]


class _Scanner:
    """Finds value spans in JSON text (comments already blanked by :func:`strip_jsonc`)."""

    def __init__(self, text: str) -> None:
        self.text = text

    def skip_ws(self, i: int) -> int:
        while i < len(self.text) and self.text[i] in " \t\r\n":
            i += 1
        return i

    def string_end(self, i: int) -> int:
        i += 1
        while self.text[i] != '"':
            i += 2 if self.text[i] == "\\" else 1
        return i + 1

    def value_end(self, i: int) -> int:
        c = self.text[i]
        if c == '"':
            return self.string_end(i)
        if c in "{[":
            close = "}" if c == "{" else "]"
            i = self.skip_ws(i + 1)
            while self.text[i] != close:
                if c == "{":
                    i = self.skip_ws(self.string_end(i))
                    i = self.skip_ws(i + 1)  # the ":"
                i = self.skip_ws(self.value_end(i))
                if self.text[i] == ",":
                    i = self.skip_ws(i + 1)
            return i + 1
        while i < len(self.text) and self.text[i] not in ",}] \t\r\n":
            i += 1
        return i

    def object_at(self, i: int) -> _Object:
        start = i
        members = []
        i = self.skip_ws(i + 1)
        while self.text[i] != "}":
            key_start = i
            key_end = self.string_end(i)
            key = json.loads(self.text[key_start:key_end])
            i = self.skip_ws(self.skip_ws(key_end) + 1)
            value_end = self.value_end(i)
            members.append(_Member(key, key_start, i, value_end))
            i = self.skip_ws(value_end)
            if self.text[i] == ",":
                i = self.skip_ws(i + 1)
        return _Object(start, i + 1, tuple(members))


def _line_indent(text: str, position: int) -> str:
    line_start = text.rfind("\n", 0, position) + 1
    line = text[line_start:position]
    return line[: len(line) - len(line.lstrip(" \t"))]


def _read(path: Path) -> tuple[str, dict[str, Any]]:
    from desktop_app.runtime.files import read_config_text

    try:
        text = read_config_text(path)
    except FileNotFoundError:
        return "", {}
    if not text.strip():
        return "", {}
    document = parse_json(text, path)
    if not isinstance(document, dict):
        raise ConfigError(path, "the MCP config file must hold a JSON object")
    servers = document.get(SERVERS_KEY, {})
    if not isinstance(servers, dict):
        raise ConfigError(path, f"'{SERVERS_KEY}' must be an object of servers")
    return text, document


def read_servers(path: Path) -> dict[str, Any]:
    """The raw ``mcpServers`` entries (``{}`` for a missing file); a broken file raises ``ConfigError``."""
    _text, document = _read(path)
    servers = document.get(SERVERS_KEY, {})
    return dict(servers)


def _dump(value: Any, indent: str, unit: str) -> str:
    return json.dumps(value, indent=unit or None, ensure_ascii=False).replace("\n", "\n" + indent)


def _edit(path: Path, name: str, entry: dict[str, Any] | None) -> None:
    text, _document = _read(path)
    if not text:
        if entry is None:
            return
        body = json.dumps({SERVERS_KEY: {name: entry}}, indent=2, ensure_ascii=False) + "\n"
        write_bytes_atomically(path, body.encode("utf-8"))
        return
    stripped = strip_jsonc(text)
    scanner = _Scanner(stripped)
    root = scanner.object_at(scanner.skip_ws(0))
    servers_member = next((m for m in root.members if m.key == SERVERS_KEY), None)
    if servers_member is None:
        if entry is None:
            return
        new_text = _insert_member(text, root, SERVERS_KEY, {name: entry}, unit="  ")
    else:
        servers = scanner.object_at(servers_member.value_start)
        outer = _line_indent(text, servers_member.key_start)
        member = next((m for m in servers.members if m.key == name), None)
        first = servers.members[0] if servers.members else None
        indent = _line_indent(text, first.key_start) if first is not None else outer + (outer or "  ")
        unit = indent[len(outer) :] if indent.startswith(outer) and len(indent) > len(outer) else "  "
        if entry is None:
            if member is None:
                return
            new_text = _remove_member(text, servers, member)
        elif member is not None:
            value_indent = _line_indent(text, member.key_start)
            new_text = text[: member.value_start] + _dump(entry, value_indent, unit) + text[member.value_end :]
        else:
            new_text = _insert_member(text, servers, name, entry, unit=unit, indent=indent, outer=outer)
    try:
        json.loads(strip_jsonc(new_text))
    except json.JSONDecodeError as exc:  # pragma: no cover - a bug here must never reach the user's file
        raise ConfigError(path, f"the edit would break the file ({exc.msg}); nothing was written") from exc
    write_bytes_atomically(path, new_text.encode("utf-8"))


def _insert_member(
    text: str, obj: _Object, name: str, value: Any, *, unit: str, indent: str | None = None, outer: str | None = None
) -> str:
    if outer is None:
        outer = _line_indent(text, obj.start)
    if indent is None:
        indent = _line_indent(text, obj.members[0].key_start) if obj.members else outer + unit
    member = f"{json.dumps(name, ensure_ascii=False)}: {_dump(value, indent, unit)}"
    if obj.members:
        last = obj.members[-1]
        return text[: last.value_end] + f",\n{indent}{member}" + text[last.value_end :]
    return text[: obj.start] + "{\n" + indent + member + "\n" + outer + "}" + text[obj.end :]


def _remove_member(text: str, obj: _Object, member: _Member) -> str:
    index = obj.members.index(member)
    if len(obj.members) == 1:
        return text[: obj.start] + "{}" + text[obj.end :]
    if index < len(obj.members) - 1:
        start = text.rfind("\n", 0, member.key_start) + 1
        following = obj.members[index + 1]
        end = text.rfind("\n", 0, following.key_start) + 1
        if end <= start:  # both on one line
            start, end = member.key_start, following.key_start
        return text[:start] + text[end:]
    previous = obj.members[index - 1]
    return text[: previous.value_end] + text[member.value_end :]


def put_server(path: Path, name: str, entry: dict[str, Any]) -> None:
    """Add ``name`` to ``mcpServers`` (or replace its entry) as ``entry``; nothing else in the file changes."""
    _edit(path, name, entry)


def remove_server(path: Path, name: str) -> None:
    """Remove ``name`` from ``mcpServers`` (no change if it is not there)."""
    _edit(path, name, None)


def set_server_fields(path: Path, name: str, **fields: Any) -> None:
    """Set fields of ``name``'s entry in its mcp.json spelling (e.g. ``disabled=True``,
    ``excludedTools=[...]``); ``None`` removes a field. The server must exist."""
    servers = read_servers(path)
    entry = servers.get(name)
    if not isinstance(entry, dict):
        raise ConfigError(path, f"there is no MCP server named '{name}' in this file")
    updated = dict(entry)
    for key, value in fields.items():
        if value is None:
            updated.pop(key, None)
        else:
            updated[key] = value
    if updated != entry:
        _edit(path, name, updated)


__all__ = ["SERVERS_KEY", "put_server", "read_servers", "remove_server", "set_server_fields"]
