"""Putting a plugin change into force in a running app (the plugin screen), without a restart.

After :mod:`.manage` enabled, disabled or removed a plugin, :func:`apply_live` makes the running host match
the files: the servers in ``mcp.json`` (new ones start, the plugin's removed ones stop and their tools leave
the catalog), its hooks file followed by the hook runner (untrusted until the user trusts them; a removed
plugin's file is gone, so its hooks are too), and the plugin prompts served again. :func:`plugin_hooks` lists
a plugin's hooks with their trust state for the screen, and :func:`trust_plugin_hooks` trusts them by content
hash. Skills follow from the settings the runtime holds (the screen hands it the new ``plugins`` records).
"""

from __future__ import annotations

from typing import Any

from desktop_app.runtime.plugins.manage import Places


def follow_hooks(host: Any, places: Places) -> None:
    """Have the host's hook runner follow every installed plugin's hooks file (a missing file has no hooks)."""
    from desktop_app.runtime.hooks.sources import plugin_source
    from desktop_app.runtime.plugins.manage import installed

    runner = getattr(host, "hooks", None)
    if runner is None:
        return
    for plugin_id in installed(places):
        runner.add_file(places.hooks_file(plugin_id), plugin_source(places.data_dir, plugin_id))


async def apply_live(host: Any, places: Places, *, reload_servers: Any = None) -> list[str]:
    """Make the running ``host`` match the plugins on disk; returns the servers started or restarted.

    ``reload_servers`` (the Servers panel's reload, which also says what changed) replaces the plain
    ``host.apply_servers`` of the whole mcp.json."""
    from desktop_app.runtime.host import load_mcp_config
    from desktop_app.runtime.plugins.prompts import refresh

    follow_hooks(host, places)
    if reload_servers is not None:
        started = list(await reload_servers())
    else:
        started = list(await host.apply_servers(load_mcp_config(places.mcp_file), remove_missing=True))
    await refresh(host, places.data_dir, places.settings_file)
    return started


def plugin_hooks(host: Any, places: Places, plugin_id: str) -> list[Any]:
    """The plugin's hooks as the hook runner reviews them (``entry`` and ``state``), once it is enabled."""
    runner = getattr(host, "hooks", None)
    if runner is None:
        return []
    follow_hooks(host, places)
    path = places.hooks_file(plugin_id)
    return [item for item in runner.review() if item.entry.source.path == path]


def trust_plugin_hooks(host: Any, places: Places, plugin_id: str) -> list[str]:
    """Trust every hook of the plugin that is not trusted (by its content hash); the keys trusted."""
    trusted = []
    for item in plugin_hooks(host, places, plugin_id):
        if item.state in ("untrusted", "modified"):  # a disabled hook stays off
            host.hooks.trust_hook(item.entry.key)
            trusted.append(item.entry.key)
    return trusted


def sync_records(runtime: Any, settings_file: Any) -> None:
    """Give ``runtime`` the ``plugins`` and ``extensions`` records on disk (written by an install, a plugin
    change or an uninstall), so its skills see them and a later Settings save never writes stale ones back."""
    from desktop_app.runtime.settings import load_settings

    if runtime is None or not hasattr(runtime, "update_settings"):
        return
    fresh = load_settings(settings_file)
    held = runtime.settings
    if held.plugins != fresh.plugins or held.extensions != fresh.extensions:
        runtime.update_settings(plugins=fresh.plugins, extensions=fresh.extensions)


__all__ = ["apply_live", "follow_hooks", "plugin_hooks", "sync_records", "trust_plugin_hooks"]
