"""Installing, updating and uninstalling MCP Bundles.

A bundle named ``N`` lives in ``<data>/extensions/N`` (one folder each), is registered as the ``mcp.json``
server ``N`` (through :mod:`~desktop_app.runtime.host.config_edit`, which keeps the user's formatting) with
``"extension": "N"``, keeps its non-sensitive values in the settings (``extensions.N``) and its sensitive
ones in the keyring (``mcpb:N:KEY``). Installing a bundle that is already installed is an update: values
the user set are kept, new settings take their defaults; but a bundle from another publisher (its ``author``)
inherits nothing, and a value that was sensitive is never kept as a plain setting. A bundle whose signature
is invalid (changed after signing) is never installed. :func:`reconfigure` sets new values for an
installed bundle (a sensitive one left empty keeps its keyring entry). Uninstalling removes all four.
Nothing is written before every check passed (manifest, member paths, compatibility, required values).
"""

from __future__ import annotations

import shutil
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from desktop_app.runtime.credentials import Credentials
from desktop_app.runtime.extensions import compat
from desktop_app.runtime.extensions.archive import Bundle, BundleError, extract, read_bundle, read_manifest_file
from desktop_app.runtime.extensions.manifest import Manifest, parse_manifest
from desktop_app.runtime.extensions.user_config import Value, keyring_name, resolve
from desktop_app.runtime.extensions.variables import extensions_dir
from desktop_app.runtime.host import config_edit
from desktop_app.runtime.settings import load_settings, save_settings


@dataclass(frozen=True)
class Places:
    """Where an installation writes: the data folder, settings.json and mcp.json."""

    data_dir: Path
    settings_file: Path
    mcp_file: Path

    def folder(self, name: str) -> Path:
        return extensions_dir(self.data_dir) / name


@dataclass
class InstallResult:
    name: str
    version: str
    folder: Path
    updated_from: str | None = None
    secrets: list[str] = field(default_factory=list)
    settings: list[str] = field(default_factory=list)


class MissingValues(BundleError):
    """Required ``user_config`` values were not given (``keys`` names them)."""

    code = "bundle_missing_values"

    def __init__(self, manifest: Manifest, keys: list[str]) -> None:
        described = ", ".join(f"{k} ({manifest.user_config[k].title})" for k in keys)
        super().__init__(
            f"{manifest.title} needs a value for {described}; pass each as --set NAME=VALUE"
            + (" (and the others)" if len(keys) > 1 else "")
        )
        self.keys = keys


def installed(places: Places) -> dict[str, Manifest]:
    """The installed bundles by name (a folder whose manifest no longer reads is skipped)."""
    root = extensions_dir(places.data_dir)
    found: dict[str, Manifest] = {}
    if not root.is_dir():
        return found
    for folder in sorted(root.iterdir()):
        manifest_file = folder / "manifest.json"
        if folder.name.startswith(".") or not manifest_file.is_file():
            continue
        try:
            found[folder.name] = parse_manifest(read_manifest_file(manifest_file), folder)
        except BundleError:
            continue
    return found


def kept_values(places: Places, manifest: Manifest, credentials: Credentials) -> dict[str, Value]:
    """What the user set for an installed bundle: settings values and keyring entries."""
    record = load_settings(places.settings_file).extensions.get(manifest.name, {})
    kept: dict[str, Value] = dict(record.get("user_config", {}))
    for key, option in manifest.user_config.items():
        if option.sensitive:
            kept.pop(key, None)
            secret = credentials.get(keyring_name(manifest.name, key))
            if secret is not None:
                kept[key] = secret
    return kept


def check(
    bundle: Bundle, places: Places, *, platform: str | None = None, probe: compat.RuntimeProbe | None = None
) -> None:
    """Refuse what cannot run here, and a name taken by a server that is not this bundle."""
    problems = compat.refusals(bundle.manifest, platform=platform, probe=probe or compat.probe_runtime)
    if problems:
        raise BundleError(f"{bundle.path}: cannot install {bundle.manifest.title}: " + "; ".join(problems))
    entry = config_edit.read_servers(places.mcp_file).get(bundle.manifest.name)
    if isinstance(entry, dict) and entry.get("extension") != bundle.manifest.name:
        raise BundleError(
            f"{bundle.path}: mcp.json already has a server named {bundle.manifest.name!r} that is not this "
            "extension; rename or remove it first"
        )


def install(
    bundle: Bundle,
    places: Places,
    credentials: Credentials,
    given: Mapping[str, str | list[str]] | None = None,
    *,
    platform: str | None = None,
    probe: compat.RuntimeProbe | None = None,
) -> InstallResult:
    """Install (or update) ``bundle``; raises :class:`BundleError` (:class:`MissingValues`) before writing."""
    from desktop_app.runtime.extensions.review import same_publisher
    from desktop_app.runtime.extensions.signature import verify

    manifest = bundle.manifest
    check(bundle, places, platform=platform, probe=probe)
    signature = verify(bundle)
    if signature.state == "invalid":  # tampered after signing: never installed, whatever was confirmed
        raise BundleError(f"{bundle.path}: refused: the signature is {signature.summary}; nothing was installed")
    previous = installed(places).get(manifest.name)
    kept = kept_values(places, previous, credentials) if previous is not None else {}
    kept = {k: v for k, v in kept.items() if k in manifest.user_config}
    if previous is not None:
        other = not same_publisher(previous, manifest)
        was_secret = {k for k, o in previous.user_config.items() if o.sensitive}
        # another publisher inherits nothing; a secret never moves to the settings file in plain text
        kept = (
            {} if other else {k: v for k, v in kept.items() if k not in was_secret or manifest.user_config[k].sensitive}
        )
    try:
        values, absent = resolve(manifest, dict(given or {}), kept)
    except ValueError as exc:
        raise BundleError(f"{bundle.path}: {exc}") from None
    if absent:
        raise MissingValues(manifest, absent)
    if any(manifest.user_config[k].sensitive for k in values) and not credentials.check():
        raise BundleError(
            f"{manifest.title} has sensitive settings, and there is no usable keyring to keep them in; "
            "set up a keyring (Secret Service, KWallet, Keychain, Credential Manager) and install again"
        )
    folder = places.folder(manifest.name)
    extract(bundle, folder)
    result = InstallResult(manifest.name, manifest.version, folder, previous.version if previous else None)
    _store_values(manifest, values, places, credentials, result)
    if previous is not None:  # secrets the new version no longer declares as secrets leave the keyring too
        for key, option in previous.user_config.items():
            now = manifest.user_config.get(key)
            if option.sensitive and (now is None or not now.sensitive):
                credentials.delete(keyring_name(manifest.name, key))
    command, args, env = manifest.server.launch().for_platform(compat.current_platform())
    entry: dict[str, Any] = {"command": command, "args": args}
    if env:
        entry["env"] = env
    entry["extension"] = manifest.name
    old_entry = config_edit.read_servers(places.mcp_file).get(manifest.name)
    if isinstance(old_entry, dict) and old_entry.get("disabled"):
        entry["disabled"] = True
    config_edit.put_server(places.mcp_file, manifest.name, entry)
    return result


def _store_values(
    manifest: Manifest, values: Mapping[str, Value], places: Places, credentials: Credentials, result: InstallResult
) -> None:
    """Sensitive values to the keyring (an unset one leaves it), the others to ``extensions.<name>``."""
    plain: dict[str, Any] = {}
    for key, option in manifest.user_config.items():
        if key not in values:
            if option.sensitive:
                credentials.delete(keyring_name(manifest.name, key))
            continue
        if option.sensitive:
            credentials.set(keyring_name(manifest.name, key), str(values[key]))
            result.secrets.append(keyring_name(manifest.name, key))
        else:
            plain[key] = values[key]
            result.settings.append(key)
    settings = load_settings(places.settings_file)
    extensions = dict(settings.extensions)
    extensions[manifest.name] = {"version": manifest.version, "user_config": plain}
    save_settings(places.settings_file, settings.model_copy(update={"extensions": extensions}))


def stored_secrets(places: Places, manifest: Manifest, credentials: Credentials) -> set[str]:
    """The sensitive settings of an installed bundle that have a keyring entry."""
    return {
        key
        for key, option in manifest.user_config.items()
        if option.sensitive and credentials.get(keyring_name(manifest.name, key)) is not None
    }


def reconfigure(
    name: str, places: Places, credentials: Credentials, given: Mapping[str, str | list[str]]
) -> InstallResult:
    """New values for installed bundle ``name`` (its files and mcp.json entry stay as they are).

    ``given`` holds every non-sensitive value the user wants (one left out goes back to its default, or is
    unset); a sensitive value left out keeps the keyring entry. The server reads them when it next starts.
    """
    manifest = installed(places).get(name)
    if manifest is None:
        raise BundleError(f"no extension named {name!r} is installed; install its .mcpb first")
    kept = {
        key: value
        for key, value in kept_values(places, manifest, credentials).items()
        if manifest.user_config[key].sensitive
    }
    try:
        values, absent = resolve(manifest, dict(given), kept)
    except ValueError as exc:
        raise BundleError(str(exc)) from None
    if absent:
        raise MissingValues(manifest, absent)
    if any(manifest.user_config[k].sensitive for k in given) and not credentials.check():
        raise BundleError(f"{manifest.title}: there is no usable keyring to keep its sensitive settings in")
    result = InstallResult(name, manifest.version, places.folder(name), manifest.version)
    _store_values(manifest, values, places, credentials, result)
    return result


def uninstall(name: str, places: Places, credentials: Credentials) -> bool:
    """Remove bundle ``name``'s files, its mcp.json entry, its settings and its keyring entries."""
    manifest = installed(places).get(name)
    entry = config_edit.read_servers(places.mcp_file).get(name)
    is_ours = isinstance(entry, dict) and entry.get("extension") == name
    if manifest is None and not is_ours:
        return False
    if manifest is not None:
        for key, option in manifest.user_config.items():
            if option.sensitive:
                credentials.delete(keyring_name(name, key))
    if is_ours:
        config_edit.remove_server(places.mcp_file, name)
    settings = load_settings(places.settings_file)
    if name in settings.extensions:
        extensions = {k: v for k, v in settings.extensions.items() if k != name}
        save_settings(places.settings_file, settings.model_copy(update={"extensions": extensions}))
    shutil.rmtree(places.folder(name), ignore_errors=True)
    return True


__all__ = [
    "InstallResult",
    "MissingValues",
    "Places",
    "check",
    "install",
    "installed",
    "kept_values",
    "read_bundle",
    "reconfigure",
    "stored_secrets",
    "uninstall",
]
