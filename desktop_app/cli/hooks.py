"""``switchboard hooks``: review and trust hooks headlessly (the same trust store as Settings → Hooks).

    switchboard hooks [list]                      every hook: key, state, event, type, source, full body
    switchboard hooks trust|revoke|disable|enable KEY… | --all   [--home DIR] [--mcp-config FILE] [--project DIR]

Exit codes: 0 done, 2 bad usage or an unknown key.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TextIO

from desktop_app.paths import HOME_ENV, app_paths

ACTIONS = ("list", "trust", "revoke", "disable", "enable")


def add_hooks_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    hooks = sub.add_parser("hooks", help="List hooks, or trust, revoke, disable or enable them by key.")
    hooks.add_argument("action", nargs="?", default="list", choices=ACTIONS)
    hooks.add_argument("keys", nargs="*", metavar="KEY", help="hook keys as `hooks list` prints them")
    hooks.add_argument("--all", action="store_true", help="apply to every hook listed")
    hooks.add_argument("--mcp-config", type=Path, metavar="FILE", help="mcp.json to read (default: the app's)")
    hooks.add_argument("--project", type=Path, metavar="DIR", help="project folder (default: the current one)")
    hooks.add_argument("--home", type=Path, metavar="DIR", help=f"keep all files under DIR (like ${HOME_ENV})")


def _shown_body(body: str) -> str:
    """A hook's body as the user reviews it: control characters escaped (a CR or an erase-line sequence cannot
    hide part of the command), each further line indented under it (none can pass for another hook's entry)."""
    from desktop_app.cli.terminal import terminal_safe

    return "\n    ".join(terminal_safe(line) for line in body.split("\n"))


def hooks_command(ns: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from desktop_app.cli.terminal import terminal_safe
    from desktop_app.runtime.errors import ConfigError
    from desktop_app.runtime.hooks.sources import build_runner
    from desktop_app.runtime.settings import Settings, load_settings

    paths = app_paths(ns.home).ensure()
    try:
        settings = load_settings(paths.settings_file)
    except ConfigError as exc:
        err.write(f"switchboard: bad config: {exc}; its hooks are not listed\n")
        settings = Settings()
    project = ns.project or Path.cwd()
    runner = build_runner(
        settings_hooks=settings.hooks,
        settings_path=paths.settings_file,
        mcp_config=ns.mcp_config or paths.mcp_config_file,
        project_dirs=[project, *(Path(root) for root in settings.roots)],
        config_dir=paths.config_dir,
        data_dir=paths.data_dir,
        cwd=project,
    )
    for problem in runner.problems:
        err.write(f"switchboard: {terminal_safe(str(problem))}\n")
    reviewed = runner.review()
    if ns.action == "list":
        if not reviewed:
            out.write("No hooks configured.\n")
        for item in reviewed:
            entry = item.entry
            scope = f" [server {entry.scope}]" if entry.scope else ""
            match = f" match={entry.match}" if entry.match else ""
            head = f"{entry.key}  {item.state:<9}  {entry.event}{scope}  {entry.type}{match}  {entry.source.describe()}"
            out.write(f"{terminal_safe(head)}\n    {_shown_body(entry.body)}\n")
        return 0
    keys = [item.entry.key for item in reviewed] if ns.all else list(ns.keys)
    if not keys:
        err.write("switchboard: name hook keys (see `switchboard hooks list`) or pass --all\n")
        return 2
    known = {item.entry.key for item in reviewed}
    unknown = [key for key in keys if key not in known]
    if unknown:
        err.write(f"switchboard: no hook with key {', '.join(unknown)}; see `switchboard hooks list`\n")
        return 2
    for key in keys:
        if ns.action == "trust":
            runner.trust_hook(key)
        elif ns.action == "revoke":
            runner.revoke_hook(key)
        else:
            runner.set_enabled(key, ns.action == "enable")
    states = {item.entry.key: item.state for item in runner.review()}
    for key in keys:
        out.write(f"{key}  {states[key]}\n")
    return 0
