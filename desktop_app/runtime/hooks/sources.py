"""Where hooks come from, and the runner built from them for the app and the CLI.

* trusted: ``settings.json`` ``hooks`` (source ``user``) and the ``hooks`` of ``mcp.json`` — the app's own,
  or the file passed with ``--mcp-config`` (source ``mcp-config``), top level and per server;
* untrusted until the user trusts them: ``<project>/.switchboard/hooks.json`` and Claude Code's
  ``<project>/.claude/settings.json`` / ``settings.local.json`` (``project``; the project
  folders are the working directory and the roots granted to servers), ``<data>/plugins/*/hooks/hooks.json``
  (``plugin``) and ``<config>/imported-hooks/*.json`` (``imported``).

Files are re-read when they change. Trust lives in ``<data>/hooks/trust.json``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from desktop_app.runtime.hooks.config import PLUGIN_HOOKS_FILE, PROJECT_HOOKS_FILE, parse_hooks
from desktop_app.runtime.hooks.model import HookSource
from desktop_app.runtime.hooks.runner import HookRunner
from desktop_app.runtime.hooks.trust import TrustStore

TRUST_FILE = Path("hooks") / "trust.json"
CLAUDE_PROJECT_FILES = (Path(".claude") / "settings.json", Path(".claude") / "settings.local.json")
"""A project's Claude Code settings: their ``hooks`` run as Claude Code runs them (hooks/claude.py)."""
IMPORTED_DIR = "imported-hooks"
PLUGINS_DIR = "plugins"
PLUGIN_FILES_DIR = "plugin-files"
"""An installed plugin's own files (``<data>/plugin-files/<id>``, its ``${CLAUDE_PLUGIN_ROOT}``)."""


def plugin_source(data_dir: Path, plugin_id: str) -> HookSource:
    """The source of an installed plugin's hooks file; its folder is the plugin's own (``CLAUDE_PLUGIN_ROOT``)."""
    return HookSource(
        "plugin", data_dir / PLUGINS_DIR / plugin_id / PLUGIN_HOOKS_FILE, folder=data_dir / PLUGIN_FILES_DIR / plugin_id
    )


def build_runner(
    *,
    settings_hooks: Mapping[str, Any] | None,
    settings_path: Path | None,
    mcp_config: Path | None,
    project_dirs: Iterable[Path] = (),
    config_dir: Path | None = None,
    data_dir: Path | None = None,
    cwd: Path | None = None,
) -> HookRunner:
    """The runner with every source; ``runner.problems`` lists what could not be read."""
    trust = TrustStore(data_dir / TRUST_FILE if data_dir is not None else None)
    runner = HookRunner(trust, cwd=cwd)
    runner.add_hooks(parse_hooks(settings_hooks or {}, HookSource("user", settings_path)))
    if mcp_config is not None:
        runner.add_file(mcp_config, HookSource("mcp-config", mcp_config))
    seen: set[Path] = set()
    for folder in project_dirs:
        for name in (PROJECT_HOOKS_FILE, *CLAUDE_PROJECT_FILES):
            path = (folder / name).resolve()
            if path not in seen:
                seen.add(path)
                runner.add_file(path, HookSource("project", path, folder=folder.resolve()))
    if data_dir is not None:
        for plugin in sorted((data_dir / PLUGINS_DIR).glob("*")):
            runner.add_file(plugin / PLUGIN_HOOKS_FILE, plugin_source(data_dir, plugin.name))
    if config_dir is not None:
        for path in sorted((config_dir / IMPORTED_DIR).glob("*.json")):
            runner.add_file(path, HookSource("imported", path))
    return runner
