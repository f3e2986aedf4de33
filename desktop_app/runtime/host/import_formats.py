"""One server entry of another app's config, converted to Switchboard's shape, with a compatibility line for
each of its fields (:mod:`.import_compat`).

:func:`convert_entry` applies the source format's own fields (VS Code's ``dev``, Cursor's ``auth``, Whale's
``disabled_tools``, nanobot's container fields), its variable syntax and ``envFile`` (:mod:`.import_variables`),
normalises ``type``/``transport``, and then reports every remaining field: a field Switchboard reads "works", any
other is dropped with a line saying so. :func:`move_all_secrets` moves every literal secret of an entry to the
keyring, :func:`secret_lines` reports them (and those it could not move), :func:`secret_part` names what a keyring
entry the importer filled holds.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from desktop_app.runtime.host.config import ServerConfig, normalize_transport
from desktop_app.runtime.host.import_compat import CompatLine, CompatLog
from desktop_app.runtime.host.import_variables import VariableContext, read_env_file, translate_variables
from desktop_app.runtime.host.secrets import (
    keyring_reference,
    move_secret_args,
    move_secrets,
    move_url_secrets,
    secret_looking_args,
    url_secrets,
)

NANOBOT_UNSUPPORTED = ("image", "dockerfile", "source", "sandboxed", "unsandboxed", "ports", "reversePorts")
KNOWN_FIELDS = frozenset(
    {info.alias or name for name, info in ServerConfig.model_fields.items()} | set(ServerConfig.model_fields)
)
_WHY_DROPPED = {
    "headersHelper": "Switchboard runs no helper command to make headers; set the headers with Edit… instead",
    "cwd": "Switchboard starts servers in its own folder; give absolute paths in args instead",
    "toolOverrides": "tool overrides are not applied; hide tools with excludedTools",
}


def _stringify(entry: dict[str, Any], log: CompatLog) -> None:
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
        log.translated("args", "a single string, split on spaces; check it")


def _convert_vscode(entry: dict[str, Any], log: CompatLog) -> None:
    if entry.pop("dev", None) is not None:
        log.unavailable(
            "dev", "VS Code's development mode (watch, debug) is not available here; the server runs normally"
        )


def _convert_cursor(name: str, entry: dict[str, Any], log: CompatLog) -> None:
    auth = entry.pop("auth", None)
    if not isinstance(auth, dict):
        if auth is not None:
            log.unavailable("auth", "not an object; ignored")
        return
    oauth: dict[str, Any] = {}
    if auth.get("CLIENT_ID"):
        oauth["clientId"] = str(auth["CLIENT_ID"])
    if auth.get("CLIENT_SECRET"):
        oauth["clientSecret"] = str(auth["CLIENT_SECRET"])  # a literal one moves to the keyring on import
    if isinstance(auth.get("scopes"), list):
        oauth["scopes"] = [str(scope) for scope in auth["scopes"]]
    entry["oauth"] = oauth or True
    log.translated("auth", "Cursor's OAuth client → oauth (sign in with the browser when the server starts)")


def _convert_whale(entry: dict[str, Any], log: CompatLog) -> None:
    if "disabled_tools" in entry:
        entry["excludedTools"] = entry.pop("disabled_tools")
        log.translated("disabled_tools", "excludedTools")
    if "timeout" in entry and "startupTimeout" not in entry:
        entry["startupTimeout"] = entry["timeout"]  # Whale's timeout covers start-up and calls
        log.translated("timeout", "timeout and startupTimeout (Whale's covers both)")


def _convert_nanobot(entry: dict[str, Any], log: CompatLog) -> None:
    if "workdir" in entry:
        entry.pop("workdir")
        log.unavailable("workdir", _WHY_DROPPED["cwd"])
    for key in NANOBOT_UNSUPPORTED:
        if key in entry:
            entry.pop(key)
            log.unavailable(
                key, "nanobot's container and sandbox settings are not available; the command runs directly"
            )


def _normalize_transport(entry: dict[str, Any], log: CompatLog) -> None:
    for key in ("type", "transport"):
        value = entry.get(key)
        if isinstance(value, str):
            try:
                canonical = normalize_transport(value)
            except ValueError:
                continue  # validation reports it
            entry[key] = "streamable-http" if canonical == "http" and value.lower() != "http" else canonical
            if key not in log.parts:
                log.works(key, value)


def convert_entry(ctx: VariableContext, name: str, entry: dict[str, Any], log: CompatLog) -> dict[str, Any]:
    """``entry`` (a copy of the source's) in Switchboard's shape; raises ``VariableProblem``."""
    _stringify(entry, log)
    if ctx.kind == "VS Code":
        _convert_vscode(entry, log)
    if ctx.kind == "Cursor":
        _convert_cursor(name, entry, log)
    elif ctx.kind == "Whale":
        _convert_whale(entry, log)
    elif ctx.kind == "nanobot":
        _convert_nanobot(entry, log)
    if ctx.kind in {"VS Code", "Cursor"}:
        read_env_file(ctx, name, entry, log)
    translate_variables(ctx, name, entry, log)
    _normalize_transport(entry, log)
    for key in sorted(entry, key=str):
        if key in log.parts:
            continue
        if key in KNOWN_FIELDS:
            log.works(str(key))
        else:
            entry.pop(key)
            log.unavailable(str(key), _WHY_DROPPED.get(str(key), "not a field Switchboard knows; dropped"))
    return entry


def move_all_secrets(name: str, entry: dict[str, Any], store: Callable[[str, str], None]) -> list[str]:
    """Every literal secret of ``entry`` to the keyring (in place): env, headers, args, url, oauth.clientSecret."""
    moved = (
        move_secrets(name, entry, store) + move_secret_args(name, entry, store) + move_url_secrets(name, entry, store)
    )
    oauth = entry.get("oauth")
    if isinstance(oauth, dict) and isinstance(oauth.get("clientSecret"), str) and "${" not in oauth["clientSecret"]:
        secret = f"mcp:{name}:oauth:clientSecret"
        store(secret, oauth["clientSecret"])
        oauth["clientSecret"] = keyring_reference(secret)
        moved.append(secret)
    return moved


def secret_lines(name: str, entry: dict[str, Any], moved: list[str]) -> list[CompatLine]:
    """A line for each secret moved to the keyring, and one for each that could not be moved."""
    found = [
        CompatLine(name, secret_part(name, secret), "translated", f"the literal secret moved to keyring entry {secret}")
        for secret in moved
    ]
    for index in secret_looking_args(entry):
        found.append(
            CompatLine(
                name,
                f"argument {index + 1}",
                "not available",
                "seems to hold a secret that could not be moved; it stays in mcp.json as written",
            )
        )
    url = entry.get("url")
    if isinstance(url, str) and url_secrets(url):
        found.append(
            CompatLine(
                name,
                "url",
                "not available",
                "seems to hold a secret that could not be moved; it stays in mcp.json as written",
            )
        )
    return found


def secret_part(server: str, secret: str) -> str:
    """What keyring entry ``secret`` (``mcp:<server>:…``) holds, in words: ``env X``, ``header X``,
    ``argument N``, ``url``."""
    rest = secret.removeprefix(f"mcp:{server}:")
    if rest.startswith("header:"):
        return f"header {rest.removeprefix('header:')}"
    if rest.startswith("arg:"):
        index, _, label = rest.removeprefix("arg:").partition(":")
        return f"argument {int(index) + 1}" + (f" ({label.replace('query:', 'query ')})" if label else "")
    if rest.startswith("url:"):
        return f"url ({rest.removeprefix('url:').replace('query:', 'query ')})"
    if rest.startswith("oauth:"):
        return "oauth.clientSecret"
    return f"env {rest}"


__all__ = ["KNOWN_FIELDS", "convert_entry", "move_all_secrets", "secret_lines", "secret_part"]
