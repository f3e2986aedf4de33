"""Substituting a bundle's variables when its server starts.

An installed bundle's ``mcp.json`` entry carries ``"extension": "<name>"`` and the manifest's
``mcp_config`` as written (``${__dirname}/server/index.js``, ``${user_config.api_key}``). When the server
starts, :func:`resolve_launch` replaces ``${__dirname}`` (the bundle's folder), ``${HOME}``,
``${DESKTOP}``, ``${DOCUMENTS}``, ``${DOWNLOADS}``, ``${pathSeparator}`` and ``${/}``, and
``${user_config.KEY}``: sensitive values read from the keyring at that moment, others from the settings.
An argument that is exactly ``${user_config.KEY}`` of a ``multiple`` value expands into one argument per
item, as ``mcpb``'s ``replaceVariables`` does. A ``python`` command falls back to ``python3`` where only
that exists. :func:`configure` (called when the app is assembled) says where bundles and settings live.
"""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from desktop_app.runtime.errors import ServerStartError

_VARIABLE = re.compile(r"\$\{([^}]+)\}")
_WHOLE_USER_CONFIG = re.compile(r"^\$\{(user_config\.[^}]+)\}$")
EXTENSIONS_FOLDER = "extensions"


@dataclass
class _Where:
    data_dir: Path | None = None
    settings_file: Path | None = None


_WHERE = _Where()


def configure(data_dir: Path, settings_file: Path) -> None:
    """Where installed bundles (``<data>/extensions/<name>``) and their non-sensitive values live."""
    _WHERE.data_dir, _WHERE.settings_file = data_dir, settings_file


def uninstall_configured(name: str, credentials: Any) -> bool:
    """Uninstall bundle ``name`` from the places :func:`configure` named (the Servers panel's Remove)."""
    from desktop_app.runtime.extensions.install import Places, uninstall

    if _WHERE.data_dir is None or _WHERE.settings_file is None:
        return False
    places = Places(_WHERE.data_dir, _WHERE.settings_file, _WHERE.data_dir / ".no-mcp-json")
    return uninstall(name, places, credentials)


def extensions_dir(data_dir: Path) -> Path:
    return data_dir / EXTENSIONS_FOLDER


def system_variables() -> dict[str, str]:
    home = Path.home()
    return {
        "HOME": str(home),
        "DESKTOP": str(home / "Desktop"),
        "DOCUMENTS": str(home / "Documents"),
        "DOWNLOADS": str(home / "Downloads"),
        "pathSeparator": os.sep,
        "/": os.sep,
    }


def substitute(value: Any, variables: Mapping[str, str | list[str]]) -> Any:
    """``value`` (a string, list or dict) with each known ``${NAME}`` replaced; unknown ones stay."""
    if isinstance(value, str):

        def one(match: re.Match[str]) -> str:
            found = variables.get(match.group(1))
            if found is None:
                return match.group(0)
            return ",".join(found) if isinstance(found, list) else found

        return _VARIABLE.sub(one, value)
    if isinstance(value, list):
        out: list[Any] = []
        for item in value:
            whole = _WHOLE_USER_CONFIG.match(item) if isinstance(item, str) else None
            found = variables.get(whole.group(1)) if whole else None
            if isinstance(found, list):
                out.extend(found)
            else:
                out.append(substitute(item, variables))
        return out
    if isinstance(value, dict):
        return {key: substitute(item, variables) for key, item in value.items()}
    return value


def _text(value: Any) -> str | list[str]:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        return [str(item) for item in value]
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def variables_for(
    name: str, folder: Path, record: Mapping[str, Any], secret: Callable[[str], str | None]
) -> dict[str, str | list[str]]:
    """All variables of bundle ``name`` installed in ``folder`` with its settings ``record``."""
    from desktop_app.runtime.extensions.archive import BundleError, read_manifest_file
    from desktop_app.runtime.extensions.manifest import parse_manifest
    from desktop_app.runtime.extensions.user_config import default_of, keyring_name

    try:
        manifest = parse_manifest(read_manifest_file(folder / "manifest.json"), folder)
    except BundleError as exc:
        raise ServerStartError(f"MCP server '{name}': {exc}") from None
    variables: dict[str, str | list[str]] = {**system_variables(), "__dirname": str(folder)}
    stored = record.get("user_config", {})
    for key, option in manifest.user_config.items():
        value: Any
        value = secret(keyring_name(name, key)) if option.sensitive else stored.get(key)
        if value is None:
            value = default_of(key, option)
        if value is None:
            if option.required:
                raise ServerStartError(
                    f"MCP server '{name}': the extension's setting '{key}' ({option.title}) is not set; "
                    f"set it with `switchboard install` again or in the Servers panel"
                )
            continue
        variables[f"user_config.{key}"] = _text(value)
    return variables


def resolve_launch(name: str, config: Any, secret: Callable[[str], str | None]) -> Any:
    """``config`` (a ServerConfig with ``extension``) with its variables substituted, ready to start."""
    from desktop_app.runtime.settings import load_settings

    bundle = config.extension
    if _WHERE.data_dir is None or _WHERE.settings_file is None:
        raise ServerStartError(f"MCP server '{name}': extension {bundle!r} cannot start outside the app")
    folder = extensions_dir(_WHERE.data_dir) / bundle
    if not (folder / "manifest.json").is_file():
        raise ServerStartError(
            f"MCP server '{name}': the extension {bundle!r} is not installed in {folder}; install it again"
        )
    try:
        record = load_settings(_WHERE.settings_file).extensions.get(bundle, {})
    except Exception as exc:  # a broken settings file: say so, never start half-configured
        raise ServerStartError(f"MCP server '{name}': {exc}") from None
    variables = variables_for(bundle, folder, record, secret)
    command = substitute(config.command or "", variables)
    if command in ("python", "python3") and shutil.which(command) is None:
        command = "python3" if command == "python" else "python"
    return config.model_copy(
        update={
            "command": command,
            "args": substitute(list(config.args), variables),
            "env": substitute(dict(config.env), variables),
        }
    )


__all__ = ["configure", "extensions_dir", "resolve_launch", "substitute", "system_variables", "variables_for"]
