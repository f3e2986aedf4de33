"""What a server entry will be handed when it starts, in words, for every screen that asks before it runs.

The import preview (window and ``switchboard import-config``), the plugin enable screen and the bundle install
screen list, for each server, every ``env`` entry, every header and every argument that holds a reference:
literal values (a secret-looking one only by its length, never its text), ``${VAR}`` as "from your
environment", ``${keyring:NAME}`` as "keyring entry NAME", and a bundle's ``${user_config.KEY}`` as "your
setting KEY". A reference that will be refused when the server starts (another server's keyring entry, the
app's own key or token, see :mod:`desktop_app.runtime.secret_scope`) says so here already.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from desktop_app.runtime.host.config import DEFAULT_SEPARATOR, KEYRING_PREFIX
from desktop_app.runtime.host.secrets import is_secret
from desktop_app.runtime.secret_scope import own_prefix, reserved_name

_REFERENCE = re.compile(r"\$\{([^}]*)\}")
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")
MAX_SHOWN = 100


def printable(text: str, limit: int = MAX_SHOWN) -> str:
    """``text`` with control characters shown as ``\\xNN`` (a CR or ESC cannot hide what follows), capped."""
    shown = _CONTROL.sub(lambda m: f"\\x{ord(m.group(0)):02x}", text)
    return shown if len(shown) <= limit else shown[: limit - 1] + "…"


def _reference(server: str, name: str) -> str:
    name = name.strip()
    if name.startswith(KEYRING_PREFIX):
        entry = name[len(KEYRING_PREFIX) :].strip()
        if not entry.startswith(own_prefix(server)):
            return f"keyring entry {printable(entry)} (not this server's: refused when it starts)"
        return f"keyring entry {printable(entry)}"
    if name.startswith("user_config."):
        return f"your setting {printable(name.removeprefix('user_config.'))}"
    if name == "__dirname":
        return "the bundle's folder"
    variable, has_default, default = name.partition(DEFAULT_SEPARATOR)
    variable = variable.strip()
    if reserved_name(variable):
        return f"${{{printable(variable)}}} from your environment (Switchboard's own key or token: refused)"
    fallback = f", else {printable(default, 40)!r}" if has_default else ""
    return f"${{{printable(variable)}}} from your environment{fallback}"


def describe_value(server: str, key: str, value: Any, *, header: bool = False) -> str:
    """One value as a user should see it before it is handed to ``server``."""
    text = str(value)
    references = [_reference(server, match.group(1)) for match in _REFERENCE.finditer(text)]
    if references:
        literal = _REFERENCE.sub("", text).strip()
        extra = f" with text {printable(literal, 40)!r}" if literal else ""
        return ", ".join(references) + extra
    if is_secret(key, text, header=header):
        return f"a secret value ({len(text)} characters)"
    return f"'{printable(text)}'"


def environment_lines(server: str, entry: Mapping[str, Any]) -> list[str]:
    """Every ``env`` entry, header and referencing argument of ``entry`` (a server object as in mcp.json)."""
    lines: list[str] = []
    for field, label, header in (("env", "env", False), ("headers", "header", True)):
        values = entry.get(field)
        if isinstance(values, Mapping):
            for key, value in values.items():
                lines.append(
                    f"{label} {printable(str(key))} = {describe_value(server, str(key), value, header=header)}"
                )
    args = entry.get("args")
    for index, arg in enumerate(args if isinstance(args, list) else []):
        if isinstance(arg, str) and "${" in arg:
            lines.append(f"argument {index + 1} = {describe_value(server, '', arg)}")
    for field in ("command", "url"):
        value = entry.get(field)
        if isinstance(value, str) and "${" in value:
            lines.append(f"{field} = {describe_value(server, '', value)}")
    return lines


def command_line(entry: Mapping[str, Any]) -> str:
    """``command arg …`` exactly as written (each word quoted when it has spaces), or the URL."""
    if entry.get("command"):
        args = entry.get("args")
        words = [str(entry["command"]), *(str(a) for a in (args if isinstance(args, list) else []))]
        return " ".join(printable(w, 400) if w and not any(c.isspace() for c in w) else repr(w) for w in words)
    return printable(str(entry.get("url") or ""), 400)


__all__ = ["command_line", "describe_value", "environment_lines", "printable"]
