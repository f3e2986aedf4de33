"""Goose's ``config.yaml`` ``extensions:`` as Switchboard server entries (Goose's configuration reference).

Each extension is ``{type, name, enabled, timeout, …}``:

* ``stdio``: ``cmd`` → ``command``, ``args``, ``envs`` → ``env``; each name in ``env_keys`` (a variable whose
  value Goose keeps in its own keyring) becomes ``${keyring:mcp:<server>:<NAME>}``, an entry the user enters once;
* ``streamable_http``: ``uri`` → ``url`` (``type: http``), ``headers``; the older ``sse`` → ``type: sse``;
* ``enabled: false`` → ``disabled: true``; ``timeout`` (seconds) → ``timeout`` and ``startupTimeout``;
* ``builtin`` and ``platform`` extensions run inside Goose: reported as not available here, never imported;
  so are unknown types. ``available_tools`` (a tool allowlist) is reported, not applied.

Every field gets a line in the compatibility report (:mod:`.import_compat`).
"""

from __future__ import annotations

from typing import Any

from desktop_app.runtime.host.import_compat import CompatLog, enter_it
from desktop_app.runtime.host.secrets import keyring_name, keyring_reference

GOOSE = "Goose"
_INFO_FIELDS = ("name", "display_name", "description", "bundled")
_IN_GOOSE = frozenset({"builtin", "platform", "frontend", "inline_python"})


def is_goose(document: dict[str, Any]) -> bool:
    """A Goose ``config.yaml``: an ``extensions`` map whose entries carry Goose's ``type``/``cmd``/``uri``."""
    extensions = document.get("extensions")
    return (
        isinstance(extensions, dict)
        and bool(extensions)
        and all(isinstance(e, dict) and ({"type", "cmd", "uri"} & e.keys()) for e in extensions.values())
    )


def _env_keys(server: str, ext: dict[str, Any], entry: dict[str, Any], log: CompatLog, to_enter: list[str]) -> None:
    keys = ext.pop("env_keys", None)
    if not keys:
        if keys is not None:
            log.works("env_keys", "empty")
        return
    if not isinstance(keys, list):
        log.unavailable("env_keys", "not a list; ignored")
        return
    env = entry.setdefault("env", {})
    for key in keys:
        key = str(key)
        if key in env:
            log.works(f"env_keys {key}", "its value is in envs", field="env_keys")
            continue
        name = keyring_name(server, key)
        env[key] = keyring_reference(name)
        to_enter.append(name)
        log.translated(
            f"env_keys {key}",
            f"Goose keeps its value in Goose's own keyring → keyring entry {name}; {enter_it(name)}",
            field="env_keys",
        )


def convert_extension(
    key: str, ext: dict[str, Any], log: CompatLog, to_enter: list[str]
) -> tuple[dict[str, Any], str | None]:
    """One extension as a server entry, and why it cannot be imported (``None`` when it can)."""
    ext = dict(ext)
    kind = str(ext.pop("type", "stdio" if "cmd" in ext else "streamable_http")).strip().lower()
    entry: dict[str, Any] = {}
    if kind in _IN_GOOSE:
        log.unavailable("type", f"a Goose {kind} extension runs inside Goose; there is no server to start here")
        return entry, f"Goose's {kind} extension '{key}' runs inside Goose; not available here"
    if kind == "stdio":
        log.translated("type", "stdio")
        if "cmd" in ext:
            entry["command"] = ext.pop("cmd")
            log.translated("cmd", "command")
        if "args" in ext:
            entry["args"] = ext.pop("args")
            log.works("args")
    elif kind in {"streamable_http", "sse"}:
        entry["type"] = "http" if kind == "streamable_http" else "sse"
        log.translated("type", f"{kind} → type {entry['type']}")
        if "uri" in ext:
            entry["url"] = ext.pop("uri")
            log.translated("uri", "url")
        if "headers" in ext:
            entry["headers"] = ext.pop("headers") or {}
            log.works("headers")
    else:
        log.unavailable("type", f"Goose extension type '{kind}' is not known here")
        return entry, f"Goose extension type '{kind}' is not available here"
    envs = ext.pop("envs", None)
    if envs:
        entry["env"] = dict(envs) if isinstance(envs, dict) else {}
        log.translated("envs", "env" if kind == "stdio" else "env (a remote server does not read it)")
    elif envs is not None:
        log.works("envs", "empty")
    _env_keys(key, ext, entry, log, to_enter)
    if "enabled" in ext:
        enabled = ext.pop("enabled")
        if enabled is False:
            entry["disabled"] = True
            log.translated("enabled", "false → disabled (imported, not started)")
        else:
            log.works("enabled")
    timeout = ext.pop("timeout", None)
    if isinstance(timeout, int | float) and not isinstance(timeout, bool) and timeout > 0:
        entry["timeout"] = entry["startupTimeout"] = timeout
        log.translated("timeout", f"{timeout} s → timeout and startupTimeout")
    elif timeout is not None:
        log.unavailable("timeout", f"{timeout!r} is not a number of seconds; the default applies")
    tools = ext.pop("available_tools", None)
    if tools:
        log.unavailable(
            "available_tools",
            f"Switchboard cannot limit a server to {', '.join(map(str, tools))}; every tool is offered (hide the "
            "others with excludedTools)",
        )
    elif tools is not None:
        log.works("available_tools", "empty: every tool, as in Goose")
    for info in _INFO_FIELDS:
        if info in ext:
            ext.pop(info)
            log.translated(info, "information only; the server is named by its key", field=info)
    for rest in sorted(ext):
        log.unavailable(rest, "not a field Switchboard knows; dropped")
    log.parts.update(entry)  # each field of the entry was reported under its Goose name
    return entry, None


__all__ = ["GOOSE", "convert_extension", "is_goose"]
