"""Managing the user's MCP servers: add, edit, enable or disable, remove, and reload ``mcp.json``.

:class:`ServerManager` keeps three things in step: the file (edited entry by entry through
:mod:`.config_edit`, so the user's formatting of other entries stays), the keyring (secret ``env`` and
``headers`` values are stored there and the file holds ``${keyring:NAME}`` references), and the running
:class:`~desktop_app.runtime.host.Host` (every change ends with :meth:`ServerManager.reload`, which
applies the whole re-read file with ``Host.apply_servers(..., remove_missing=True)``). The same reload
serves an ``mcp.json`` edited outside the app. A broken file raises ``ConfigError`` and is never written.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from pydantic import ValidationError

from desktop_app.runtime.errors import ConfigError
from desktop_app.runtime.host.config import ServerConfig, load_mcp_config
from desktop_app.runtime.host.config_edit import put_server, read_servers, remove_server, set_server_fields
from desktop_app.runtime.host.secrets import keyring_name, keyring_reference

_KEYRING_REF = re.compile(r"\$\{keyring:([^}]+)\}")
BUILTIN_PREFIX = "switchboard."


class SecretStore(Protocol):
    def set(self, name: str, value: str) -> None: ...

    def delete(self, name: str) -> None: ...


class ManagedHost(Protocol):
    async def apply_servers(self, servers: Mapping[str, ServerConfig], *, remove_missing: bool = False) -> list[str]:
        """Apply the re-read file."""
        ...


@dataclass
class ServerDraft:
    """What the server form produces: the entry in mcp.json spelling, and the secrets to store.

    ``secrets`` maps ``("env" | "headers", key)`` to the value; the entry's own value for that key is
    replaced by a keyring reference on save. A key whose value is already a ``${keyring:…}`` reference
    keeps the stored secret.
    """

    name: str
    entry: dict[str, Any]
    secrets: dict[tuple[str, str], str] = field(default_factory=dict)


def keyring_references(entry: Mapping[str, Any]) -> list[str]:
    """The keyring names an entry refers to (in ``env``, ``headers``, ``args`` and ``oauth``)."""
    found: list[str] = []

    def walk(value: Any) -> None:
        if isinstance(value, str):
            found.extend(m.group(1) for m in _KEYRING_REF.finditer(value))
        elif isinstance(value, Mapping):
            for item in value.values():
                walk(item)
        elif isinstance(value, list):
            for item in value:
                walk(item)

    walk(entry)
    return found


def validate_draft(draft: ServerDraft, existing: Mapping[str, Any], *, previous: str | None = None) -> str | None:
    """A sentence saying what is wrong with ``draft``, or ``None``."""
    name = draft.name.strip()
    if not name:
        return "Give the server a name."
    if name.startswith(BUILTIN_PREFIX):
        return f"Names starting with '{BUILTIN_PREFIX}' belong to the built-in servers; choose another name."
    if name != previous and name in existing:
        return f"A server named '{name}' already exists; choose another name or edit that one."
    try:
        ServerConfig.model_validate(draft.entry)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first["loc"])
        return f"{where + ': ' if where else ''}{first['msg'].removeprefix('Value error, ')}"
    return None


class ServerManager:
    """Add, edit, enable/disable and remove servers in ``path`` (the user's mcp.json) and the host."""

    def __init__(self, host: ManagedHost, path: Path, credentials: SecretStore) -> None:
        self.host = host
        self.path = path
        self.credentials = credentials
        self.on_written: Callable[[], None] | None = None
        """Called right after each write of the file (a file watcher uses it to skip its own writes)."""

    def _written(self) -> None:
        if self.on_written is not None:
            self.on_written()

    def entries(self) -> dict[str, Any]:
        """The raw entries of the file (``{}`` when it does not exist)."""
        return read_servers(self.path)

    async def reload(self) -> list[str]:
        """Apply the file as it is now: new servers start, changed ones restart, removed ones stop."""
        return await self.host.apply_servers(load_mcp_config(self.path), remove_missing=True)

    async def save(self, draft: ServerDraft, *, previous: str | None = None) -> list[str]:
        """Add ``draft`` (or replace ``previous``, which may be renamed); secrets go to the keyring first."""
        existing = self.entries()
        problem = validate_draft(draft, existing, previous=previous)
        if problem is not None:
            raise ValueError(problem)
        name = draft.name.strip()
        entry = _copy(draft.entry)
        stored: list[str] = []
        for (section, key), value in draft.secrets.items():
            secret_name = keyring_name(name, key, header=section == "headers")
            self.credentials.set(secret_name, value)
            stored.append(secret_name)
            entry.setdefault(section, {})[key] = keyring_reference(secret_name)
        old_entry = existing.get(previous) if previous is not None else None
        if previous is not None and previous != name and previous in existing:
            entry = _renamed_references(entry, previous, name, self.credentials, stored)
            remove_server(self.path, previous)
        put_server(self.path, name, entry)
        self._written()
        if isinstance(old_entry, Mapping):  # secrets the old entry used and the new one does not
            self._forget(previous or name, set(keyring_references(old_entry)) - set(keyring_references(entry)))
        return await self.reload()

    async def set_enabled(self, name: str, enabled: bool) -> list[str]:
        """Enable (the ``disabled`` field goes) or disable a server; the host starts or stops it."""
        set_server_fields(self.path, name, disabled=None if enabled else True)
        self._written()
        return await self.reload()

    async def remove(self, name: str) -> None:
        """Remove a server from the file and the host, and its own keyring entries."""
        entry = self.entries().get(name)
        if entry is None:
            raise ConfigError(self.path, f"there is no MCP server named '{name}' in this file")
        remove_server(self.path, name)
        self._written()
        self._forget(name, set(keyring_references(entry)))
        if isinstance(entry, dict) and entry.get("extension") == name:  # an MCP Bundle: uninstall it all
            from desktop_app.runtime.extensions.launch import uninstall_configured

            uninstall_configured(name, self.credentials)
        await self.reload()

    def _forget(self, server: str, names: set[str]) -> None:
        for secret in sorted(names):
            if secret.startswith(f"mcp:{server}:"):  # only the entries Switchboard made for this server
                self.credentials.delete(secret)


def _copy(entry: Mapping[str, Any]) -> dict[str, Any]:
    return copy.deepcopy(dict(entry))


def _renamed_references(
    entry: dict[str, Any], old: str, new: str, credentials: SecretStore, stored: list[str]
) -> dict[str, Any]:
    """A renamed server keeps its secrets: references to ``mcp:<old>:…`` move to ``mcp:<new>:…``."""
    getter = getattr(credentials, "get", None)
    if getter is None:
        return entry
    prefix = f"mcp:{old}:"

    def rename(value: Any) -> Any:
        if isinstance(value, str):

            def move(match: re.Match[str]) -> str:
                secret = match.group(1)
                if not secret.startswith(prefix):
                    return match.group(0)
                target = f"mcp:{new}:" + secret[len(prefix) :]
                current = getter(secret)
                if isinstance(current, str) and target not in stored:
                    credentials.set(target, current)
                return keyring_reference(target)

            return _KEYRING_REF.sub(move, value)
        if isinstance(value, dict):
            return {k: rename(v) for k, v in value.items()}
        if isinstance(value, list):
            return [rename(v) for v in value]
        return value

    result: dict[str, Any] = rename(entry)
    return result


__all__ = ["ManagedHost", "SecretStore", "ServerDraft", "ServerManager", "keyring_references", "validate_draft"]
