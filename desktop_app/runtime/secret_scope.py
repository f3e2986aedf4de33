"""Which secrets a server entry may ask for: its own keyring entries, never the app's.

A ``${keyring:NAME}`` reference in a server's ``env``, ``args`` or ``headers`` expands only when ``NAME`` is one
of that server's entries, ``mcp:<server>:…`` (what the importer, the server form and Enter secret… store for
it). Anything else (a provider key ``api-key:<url>``, the HTTP host's ``serve-token``, another server's entry)
is refused with a message naming the entry, so a plugin's ``.mcp.json``, a bundle's ``env`` or an imported
config cannot lift a secret the user stored for something else.

A ``${VAR}`` reference may not name a variable that holds one of the app's own secrets: the provider's
``api_key_env`` (``--api-key-env``) and the HTTP host's ``--token-env``. Those names and values are
registered with :func:`reserve` where the app reads them; an expanded value that contains a reserved value
is refused too (a ``${A}${B}`` split or a copy of the key under another name).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

MIN_RESERVED_LENGTH = 6
"""Shorter values are not reserved: refusing every value that contains "abc" would refuse ordinary text."""

_lock = threading.Lock()
_names: set[str] = set()
_values: set[str] = set()


def reserve(*, name: str | None = None, value: str | None = None) -> None:
    """Mark environment variable ``name`` and/or secret ``value`` as the app's own: no server may read them."""
    with _lock:
        if name and name.strip():
            _names.add(name.strip().upper())
        if value and len(value.strip()) >= MIN_RESERVED_LENGTH:
            _values.add(value.strip())


def reserve_settings(document: Any) -> None:
    """Reserve every ``api_key_env`` named anywhere in the settings (a pydantic model or its dump): the default
    provider's, the vision provider's, each agent's own."""
    if hasattr(document, "model_dump"):
        document = document.model_dump()
    if isinstance(document, dict):
        for key, value in document.items():
            if key == "api_key_env" and isinstance(value, str):
                reserve(name=value)
            else:
                reserve_settings(value)
    elif isinstance(document, list):
        for item in document:
            reserve_settings(item)


def forget_reserved() -> None:
    """Drop every reservation (tests)."""
    with _lock:
        _names.clear()
        _values.clear()


def reserved_name(name: str) -> bool:
    with _lock:
        return name.strip().upper() in _names


def holds_reserved_value(text: str) -> bool:
    with _lock:
        return any(value in text for value in _values)


def own_prefix(server: str) -> str:
    """The keyring entries that belong to ``server``: ``mcp:<server>:``."""
    return f"mcp:{server}:"


def scoped_lookup(server: str, lookup: Callable[[str], str | None]) -> Callable[[str], str | None]:
    """``lookup`` restricted to ``server``'s own entries; any other name raises ``ValueError`` with the reason."""
    prefix = own_prefix(server)

    def scoped(name: str) -> str | None:
        if not name.startswith(prefix):
            raise ValueError(
                f"the keyring entry '{name}' does not belong to this server (its entries are '{prefix}…'); "
                "a server may only read the secrets stored for it. Store the value it needs with Edit… in "
                "View → Servers, or `switchboard import-config` again"
            )
        value = lookup(name)
        if value is not None and holds_reserved_value(value):
            raise ValueError(f"the keyring entry '{name}' holds one of Switchboard's own secrets; refusing to pass it")
        return value

    return scoped


def check_environment_reference(name: str, *, where: str) -> None:
    """Raise ``ValueError`` when ``${name}`` names a variable holding one of the app's own secrets."""
    if reserved_name(name):
        raise ValueError(
            f"{where}: environment variable '{name}' holds Switchboard's own provider key or bearer token; "
            "a server may not read it. Give the server its own key (Edit… in View → Servers)"
        )


def check_expanded(value: str, *, where: str) -> None:
    """Raise ``ValueError`` when an expanded value carries one of the app's own secrets."""
    if holds_reserved_value(value):
        raise ValueError(
            f"{where}: the value would carry Switchboard's own provider key or bearer token; refusing to pass it"
        )


__all__ = [
    "check_environment_reference",
    "check_expanded",
    "forget_reserved",
    "holds_reserved_value",
    "own_prefix",
    "reserve",
    "reserve_settings",
    "reserved_name",
    "scoped_lookup",
]
