"""Where hooks come from, and the runner built from them for the app and the CLI.

* trusted: ``settings.json`` ``hooks`` (source ``user``) and the ``hooks`` of ``mcp.json`` — the app's own,
  or the file passed with ``--mcp-config`` (source ``mcp-config``), top level and per server;
* untrusted until the user trusts them: ``<project>/.switchboard/hooks.json`` (``project``; the project
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
IMPORTED_DIR = "imported-hooks"
PLUGINS_DIR = "plugins"


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
        path = (folder / PROJECT_HOOKS_FILE).resolve()
        if path not in seen:
            seen.add(path)
            runner.add_file(path, HookSource("project", path))
    if data_dir is not None:
        for plugin in sorted((data_dir / PLUGINS_DIR).glob("*")):
            path = plugin / PLUGIN_HOOKS_FILE
            runner.add_file(path, HookSource("plugin", path))
    if config_dir is not None:
        for path in sorted((config_dir / IMPORTED_DIR).glob("*.json")):
            runner.add_file(path, HookSource("imported", path))
    return runner
