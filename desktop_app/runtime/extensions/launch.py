"""Substituting a bundle's variables when its server starts.

An installed bundle's ``mcp.json`` entry carries ``"extension": "<name>"`` and the manifest's
``mcp_config`` as written (``${__dirname}/server/index.js``, ``${user_config.api_key}``). When the server
starts, :func:`resolve_launch` replaces ``${__dirname}`` (the bundle's folder), ``${HOME}``,
``${DESKTOP}``, ``${DOCUMENTS}``, ``${DOWNLOADS}``, ``${pathSeparator}`` and ``${/}``, and
``${user_config.KEY}``: sensitive values read from the keyring at that moment, others from the settings.
An argument that is exactly ``${user_config.KEY}`` of a ``multiple`` value expands into one argument per
item, as ``mcpb``'s ``replaceVariables`` does. A ``python`` command falls back to ``python3`` where only
that exists. :func:`configure` (called when the app is assembled) says where bundles and settings live.

What the spec leaves to the host, done as Claude Desktop does (:func:`fit_to_bundle`):

* an **unset optional** ``user_config`` value is left out, never passed as a literal ``${user_config.KEY}``:
  the ``env`` entry that refers to it is dropped, and so is the argument (with the option name before it
  when the argument is the bare reference: ``--database ${user_config.db}`` goes as a pair);
* the server starts **in the bundle's folder**, and a relative ``command`` (``server/my-server``) is the
  bundle's file, so relative entry points and arguments resolve against the bundle, not ``/``;
* a loader variable (``PYTHONPATH``, ``PYTHONHOME``, ``LD_LIBRARY_PATH``, ``LD_PRELOAD``, ``DYLD_*``) whose
  every path lies **inside the bundle** is allowed (the mcpb docs prescribe ``PYTHONPATH=${__dirname}/server/lib``
  for bundled Python packages: it loads nothing the bundle does not already run); pointing one outside the
  bundle, or ``NODE_OPTIONS``, is still refused unless the entry says ``allowUnsafeEnv``.
"""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from desktop_app.runtime.errors import ServerStartError
from desktop_app.runtime.extensions.variables import (
    _WHERE,
    WHOLE_USER_CONFIG,
    bundle_command,
    configure,
    extensions_dir,
    substitute,
    system_variables,
)

_USER_CONFIG = re.compile(r"\$\{(user_config\.[^}]+)\}")


def uninstall_configured(name: str, credentials: Any) -> bool:
    """Uninstall bundle ``name`` from the places :func:`configure` named (the Servers panel's Remove)."""
    from desktop_app.runtime.extensions.install import Places, uninstall

    if _WHERE.data_dir is None or _WHERE.settings_file is None:
        return False
    places = Places(_WHERE.data_dir, _WHERE.settings_file, _WHERE.data_dir / ".no-mcp-json")
    return uninstall(name, places, credentials)


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
    command, args, env = fit_to_bundle(
        name, folder, config.command or "", list(config.args), dict(config.env), variables
    )
    inside = all(inside_bundle(folder, key, value) for key, value in env.items() if is_loader_var(key))
    return config.model_copy(
        update={
            "command": command,
            "args": args,
            "env": env,
            "allow_unsafe_env": config.allow_unsafe_env or inside,
        }
    )


def bundle_folder(bundle: str) -> Path | None:
    """Where installed bundle ``bundle`` lives (its server starts there), or ``None`` outside the app."""
    return None if _WHERE.data_dir is None else extensions_dir(_WHERE.data_dir) / bundle


def _unset(text: str, variables: Mapping[str, str | list[str]]) -> list[str]:
    """The ``user_config`` keys ``text`` refers to that have no value."""
    return [match.group(1) for match in _USER_CONFIG.finditer(text) if match.group(1) not in variables]


def _is_option(text: str) -> bool:
    return text.startswith("-") and "=" not in text and "${" not in text and len(text) > 1


def fit_to_bundle(
    name: str,
    folder: Path,
    command: str,
    args: list[str],
    env: dict[str, str],
    variables: Mapping[str, str | list[str]],
) -> tuple[str, list[str], dict[str, str]]:
    """``(command, args, env)`` substituted, unset optional values left out, a relative command made the bundle's."""
    missing = _unset(command, variables)
    if missing:
        raise ServerStartError(
            f"MCP server '{name}': its command refers to {', '.join(missing)}, which is not set; "
            "set it in the Servers panel (Reconfigure…) or with `switchboard install --set`"
        )
    kept: list[str] = []
    for item in args:
        if _unset(item, variables):
            if WHOLE_USER_CONFIG.match(item) and kept and _is_option(kept[-1]):
                kept.pop()  # "--database", "${user_config.db}": the option goes with its value
            continue
        kept.append(item)
    written = {key: value for key, value in env.items() if not _unset(value, variables)}
    resolved = str(substitute(command, variables))
    if resolved in ("python", "python3") and shutil.which(resolved) is None:
        resolved = "python3" if resolved == "python" else "python"
    return bundle_command(folder, resolved), substitute(kept, variables), substitute(written, variables)


def is_loader_var(key: str) -> bool:
    """The variables the host refuses in ``env`` (:func:`~desktop_app.runtime.host.environment.is_unsafe_env_var`)."""
    from desktop_app.runtime.host.environment import is_unsafe_env_var

    return is_unsafe_env_var(key)


def inside_bundle(folder: Path, key: str, value: str) -> bool:
    """Whether loader variable ``key`` only names paths in ``folder`` (relative ones from it); never
    ``NODE_OPTIONS``, which holds options (``--inspect=…``), not paths."""
    upper = key.strip().upper()
    if upper == "NODE_OPTIONS":
        return False
    root = folder.resolve()
    parts = value.replace(":", " ").split() if upper == "LD_PRELOAD" else value.split(os.pathsep)
    for part in parts:
        if "${" in part:
            return False
        path = Path(part.strip() or ".")
        resolved = (path if path.is_absolute() else folder / path).resolve()
        if not resolved.is_relative_to(root):
            return False
    return True


__all__ = [
    "bundle_command",
    "bundle_folder",
    "configure",
    "extensions_dir",
    "fit_to_bundle",
    "inside_bundle",
    "is_loader_var",
    "resolve_launch",
    "substitute",
    "system_variables",
    "variables_for",
]
