"""Installing, enabling, disabling and removing plugins, leaving nothing behind.

A plugin ``P`` is copied into ``<data>/plugin-files/P`` (its ``${CLAUDE_PLUGIN_ROOT}``) and recorded in the
settings (``plugins.P``) as disabled. Enabling it puts its servers into ``mcp.json`` as ``P.<server>``
(with ``"plugin": "P"``, through the one writer that keeps the user's formatting), writes its hooks to
``<data>/plugins/P/hooks/hooks.json`` — where the hook runner reads plugin hooks, untrusted until the user
trusts them by content hash, and inactive again once edited; a server's own ``hooks`` in the plugin's
``.mcp.json`` go there too, never into ``mcp.json``, whose hooks are trusted — and adds its ``skills/`` to
the skill roots.
Disabling takes the servers and hooks away (trust is kept for an unchanged hook). Removing also forgets
the hooks' trust entries, the settings record and the files.
"""

from __future__ import annotations

import json
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from desktop_app.runtime.hooks.model import PLUGIN_ROOT_VARIABLES
from desktop_app.runtime.hooks.sources import PLUGIN_FILES_DIR
from desktop_app.runtime.host import config_edit
from desktop_app.runtime.plugins.model import Plugin, PluginError, read_plugin, substitute_root
from desktop_app.runtime.settings import load_settings, save_settings

FILES_DIR = PLUGIN_FILES_DIR


@dataclass(frozen=True)
class Places:
    data_dir: Path
    settings_file: Path
    mcp_file: Path

    def files(self, plugin_id: str) -> Path:
        return self.data_dir / FILES_DIR / plugin_id

    def hooks_file(self, plugin_id: str) -> Path:
        from desktop_app.runtime.hooks.config import PLUGIN_HOOKS_FILE
        from desktop_app.runtime.hooks.sources import PLUGINS_DIR

        return self.data_dir / PLUGINS_DIR / plugin_id / PLUGIN_HOOKS_FILE


def server_name(plugin_id: str, server: str) -> str:
    return f"{plugin_id}.{server}"


def _records(places: Places) -> dict[str, dict[str, Any]]:
    return dict(load_settings(places.settings_file).plugins)


def _save_records(places: Places, records: dict[str, dict[str, Any]]) -> None:
    settings = load_settings(places.settings_file)
    save_settings(places.settings_file, settings.model_copy(update={"plugins": records}))


def installed(places: Places) -> dict[str, tuple[Plugin | None, bool]]:
    """Installed plugins: ``id → (plugin or None when its files are gone, enabled)``."""
    found: dict[str, tuple[Plugin | None, bool]] = {}
    for plugin_id, record in sorted(_records(places).items()):
        try:
            plugin: Plugin | None = read_plugin(places.files(plugin_id))
        except PluginError:
            plugin = None
        found[plugin_id] = (plugin, bool(record.get("enabled")))
    return found


def install(source: Path, places: Places) -> Plugin:
    """Copy the plugin in ``source`` in, disabled (an update keeps its enabled state and re-applies it)."""
    plugin = read_plugin(source)
    check_contained(plugin.folder)
    target = places.files(plugin.id)
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{plugin.id}-", dir=target.parent))
    try:
        shutil.copytree(plugin.folder, staging / "p", symlinks=True, ignore=shutil.ignore_patterns(".git"))
        if target.exists():
            shutil.rmtree(target)
        (staging / "p").rename(target)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    records = _records(places)
    enabled = bool(records.get(plugin.id, {}).get("enabled"))
    records[plugin.id] = {"enabled": enabled, "format": plugin.format, "version": plugin.version}
    _save_records(places, records)
    installed_plugin = read_plugin(target)
    if enabled:
        _apply(installed_plugin, places)
    return installed_plugin


def check_contained(folder: Path) -> None:
    """Refuse a plugin holding a symlink that resolves outside its folder, or a file that is not a regular
    file (a FIFO, a device): every file a plugin contributes (skills, agents, commands, hooks, the scripts they
    run) must be its own."""
    import os
    import stat

    root = folder.resolve()
    for current, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if d != ".git"]
        for name in [*dirs, *files]:
            path = Path(current) / name
            mode = path.lstat().st_mode
            if stat.S_ISLNK(mode):
                try:
                    real = path.resolve(strict=True)
                except (OSError, RuntimeError):
                    raise PluginError(f"{path}: refused: a broken or looping symbolic link") from None
                if not real.is_relative_to(root):
                    raise PluginError(f"{path}: refused: a symbolic link to {real}, outside the plugin's folder")
            elif not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
                raise PluginError(f"{path}: refused: not a regular file (a FIFO, device or socket)")


def _plugin(plugin_id: str, places: Places) -> Plugin:
    if plugin_id not in _records(places):
        raise PluginError(f"no plugin named {plugin_id!r} is installed (see `switchboard plugins list`)")
    return read_plugin(places.files(plugin_id))


def _apply(plugin: Plugin, places: Places) -> None:
    root = places.files(plugin.id)
    current = config_edit.read_servers(places.mcp_file)
    wanted = {
        server_name(plugin.id, n): with_root_env(
            {k: v for k, v in substitute_root(entry, root).items() if k != "hooks"}, root
        )
        for n, entry in plugin.servers.items()
    }  # a server's own message hooks go to the plugin's hooks file below: untrusted until reviewed
    for name in wanted:  # checked before anything is written
        existing = current.get(name)
        if isinstance(existing, dict) and existing.get("plugin") != plugin.id:
            raise PluginError(
                f"mcp.json already has a server named {name!r} that is not from this plugin; rename it first"
            )
    for name, entry in current.items():  # servers the new version dropped
        if isinstance(entry, dict) and entry.get("plugin") == plugin.id and name not in wanted:
            config_edit.remove_server(places.mcp_file, name)
    for name, entry in wanted.items():
        config_edit.put_server(places.mcp_file, name, {**entry, "plugin": plugin.id})
    hooks_file = places.hooks_file(plugin.id)
    document = hooks_document(plugin, root)
    if document:
        from desktop_app.runtime.settings import write_text_atomically

        text = json.dumps(document, indent=2, sort_keys=True) + "\n"
        if not hooks_file.is_file() or hooks_file.read_text(encoding="utf-8") != text:
            write_text_atomically(hooks_file, text)
    elif hooks_file.parent.parent.exists():
        shutil.rmtree(hooks_file.parent.parent)


def with_root_env(entry: dict[str, Any], root: Path) -> dict[str, Any]:
    """A stdio server of the plugin gets ``CLAUDE_PLUGIN_ROOT`` and ``WHALE_PLUGIN_ROOT`` (its folder) in its
    ``env``, as Claude Code and Whale start a plugin's servers; a value the plugin sets itself wins."""
    if not entry.get("command"):
        return entry
    declared = entry.get("env")
    env: dict[str, Any] = declared if isinstance(declared, dict) else {}
    return {**entry, "env": {**dict.fromkeys(PLUGIN_ROOT_VARIABLES, str(root)), **env}}


def hooks_document(plugin: Plugin, root: Path) -> dict[str, Any]:
    """The plugin's hooks file: its lifecycle hooks and each server's message hooks (``mcpServers.<P.server>
    .hooks``), read by the runner as plugin hooks, never as the user's own. Empty when it has none."""
    document: dict[str, Any] = {}
    if plugin.hooks:
        document["hooks"] = substitute_root(plugin.hooks, root)
    per_server = {
        server_name(plugin.id, name): {"hooks": substitute_root(entry["hooks"], root)}
        for name, entry in plugin.servers.items()
        if entry.get("hooks")
    }
    if per_server:
        document["mcpServers"] = per_server
    return document


def enable(plugin_id: str, places: Places) -> Plugin:
    plugin = _plugin(plugin_id, places)
    _apply(plugin, places)
    records = _records(places)
    records[plugin_id] = {**records[plugin_id], "enabled": True}
    _save_records(places, records)
    return plugin


def _withdraw(plugin_id: str, places: Places) -> None:
    for name, entry in config_edit.read_servers(places.mcp_file).items():
        if isinstance(entry, dict) and entry.get("plugin") == plugin_id:
            config_edit.remove_server(places.mcp_file, name)
    shutil.rmtree(places.hooks_file(plugin_id).parent.parent, ignore_errors=True)


def disable(plugin_id: str, places: Places) -> None:
    _plugin(plugin_id, places)
    _withdraw(plugin_id, places)
    records = _records(places)
    records[plugin_id] = {**records[plugin_id], "enabled": False}
    _save_records(places, records)


def _forget_trust(plugin: Plugin | None, places: Places) -> None:
    from desktop_app.runtime.hooks.config import read_config_hooks
    from desktop_app.runtime.hooks.model import HookSource
    from desktop_app.runtime.hooks.sources import TRUST_FILE
    from desktop_app.runtime.hooks.trust import TrustStore, lifecycle_entry, message_entry

    document = hooks_document(plugin, places.files(plugin.id)) if plugin is not None else {}
    if plugin is None or not document:
        return
    path = places.hooks_file(plugin.id)
    found = read_config_hooks(document, HookSource("plugin", path))
    keys = [lifecycle_entry(h).key for h in found.lifecycle]
    for mapping in found.mappings:
        keys += [message_entry(mapping, i, t).key for i, t in enumerate(mapping.targets)]
    TrustStore(places.data_dir / TRUST_FILE).forget(keys)


def remove(plugin_id: str, places: Places) -> None:
    """Remove everything the plugin contributed: mcp.json servers, hooks and their trust, settings, files."""
    if plugin_id not in _records(places):
        raise PluginError(f"no plugin named {plugin_id!r} is installed (see `switchboard plugins list`)")
    try:
        plugin: Plugin | None = read_plugin(places.files(plugin_id))
    except PluginError:
        plugin = None
    _forget_trust(plugin, places)
    _withdraw(plugin_id, places)
    records = _records(places)
    records.pop(plugin_id, None)
    _save_records(places, records)
    shutil.rmtree(places.files(plugin_id), ignore_errors=True)


def enabled_skill_roots(data_dir: Path, records: dict[str, dict[str, Any]]) -> list[tuple[Path, str, bool]]:
    """The ``skills/`` folders of the enabled plugins, for skill discovery."""
    return [
        (data_dir / FILES_DIR / plugin_id / "skills", f"plugin {plugin_id}", True)
        for plugin_id, record in sorted(records.items())
        if record.get("enabled")
    ]


__all__ = ["Places", "disable", "enable", "enabled_skill_roots", "install", "installed", "remove", "server_name"]
