"""``switchboard COMMAND …``: the parser of every headless command (one module per command in this package) and
the dispatch to them; ``print_help`` is ``switchboard --help``: the window's options and every command."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import NoReturn, TextIO

from desktop_app.cli.ask import Terminated, bad_attachment, run_ask, stoppable
from desktop_app.cli.exits import (
    EXIT_FAILED,
    EXIT_USAGE,
)
from desktop_app.cli.import_config import import_config_command
from desktop_app.paths import HOME_ENV, app_paths
from desktop_app.runtime.errors import ConfigError


def build_parser() -> argparse.ArgumentParser:
    from desktop_app.cli.ask import add_ask_parser
    from desktop_app.cli.compact import add_compact_parser
    from desktop_app.cli.conversations import add_conversations_parser
    from desktop_app.cli.extensions import add_extension_parsers
    from desktop_app.cli.hooks import add_hooks_parser
    from desktop_app.cli.import_config import add_import_config_parser
    from desktop_app.cli.plugins import add_plugins_parser
    from desktop_app.cli.serve import add_serve_parser
    from desktop_app.cli.tasks import add_tasks_parser
    from desktop_app.cli.tools import add_tools_parser
    from desktop_app.cli.workflows import add_workflows_parser

    parser = argparse.ArgumentParser(prog="switchboard", description="Switchboard headless commands.")
    sub = parser.add_subparsers(dest="command", required=True)
    for add in (
        add_ask_parser,
        add_import_config_parser,
        add_conversations_parser,
        add_compact_parser,
        add_tools_parser,
        add_hooks_parser,
        add_extension_parsers,
        add_serve_parser,
        add_plugins_parser,
        add_workflows_parser,
        add_tasks_parser,
    ):
        add(sub)
    return parser


def commands() -> dict[str, str]:
    """Every headless command and its one-line summary, in ``switchboard --help``'s order."""
    sub = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    return {action.dest: action.help or "" for action in sub._choices_actions}


def print_help(out: TextIO) -> int:
    """``switchboard --help``: the window's options, then every command with its summary (no Qt is loaded)."""
    from desktop_app.launch_args import build_parser as window_parser

    rows = commands()
    width = max(map(len, rows))
    parser = window_parser()
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.usage = (
        "switchboard [options] [FILE ...]\n       switchboard COMMAND [options]   (switchboard COMMAND --help)"
    )
    parser.epilog = "commands:\n" + "".join(f"  {name:<{width}}  {summary}\n" for name, summary in rows.items())
    out.write(parser.format_help())
    return 0


def unwritable_home(home: Path | None) -> str | None:
    """Why Switchboard's folders cannot be used (read-only, not a folder, no permission), or ``None``."""
    paths = app_paths(home)
    try:
        paths.ensure()
    except OSError as exc:
        where = exc.filename or paths.config_dir
        return (
            f"{where}: cannot create Switchboard's folder ({exc.strerror or exc}); make it writable, or pass --home DIR"
        )
    for folder in (paths.config_dir, paths.data_dir, paths.log_dir):
        if not os.access(folder, os.W_OK | os.X_OK):
            return f"{folder}: the folder is read-only for Switchboard; make it writable, or pass --home DIR"
    return None


def exit_now(code: int) -> NoReturn:
    """End the ``switchboard ask`` process with ``code`` once its work is done, without the interpreter's
    teardown: freeing ~1,000 modules (the MCP SDK, pydantic, httpx) took ~0.2 s after the answer, the
    servers and the store were already closed. The log and the standard streams are flushed first."""
    import logging

    logging.shutdown()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):  # a closed pipe: nothing more can reach it anyway
            stream.flush()
    os._exit(code)


def main(argv: Sequence[str] | None = None, *, out: TextIO | None = None, err: TextIO | None = None) -> int:
    out = out or sys.stdout
    err = err or sys.stderr
    parser = build_parser()
    try:
        ns = parser.parse_args(argv)
    except SystemExit as exc:  # argparse: --help exits 0, bad usage exits 2
        return int(exc.code or 0)
    if ns.home:
        os.environ[HOME_ENV] = str(ns.home)
    from desktop_app.log import setup_logging

    unwritable = unwritable_home(ns.home)
    if unwritable is not None:
        err.write(f"switchboard: {unwritable}\n")
        return EXIT_USAGE
    setup_logging(app_paths(ns.home).log_dir)
    if ns.command == "ask":
        bad = bad_attachment(ns.attach)
        if bad is not None:
            err.write(f"switchboard: {bad}\n")
            return EXIT_USAGE
    if ns.command == "import-config":
        return import_config_command(ns, out, err)
    if ns.command in ("install", "uninstall", "extensions"):
        from desktop_app.cli import extensions as cli_extensions

        command = getattr(cli_extensions, f"{ns.command}_command")
        return int(command(ns, out, err))
    if ns.command == "plugins":
        from desktop_app.cli.plugins import plugins_command

        return plugins_command(ns, out, err)
    if ns.command == "conversations":
        from desktop_app.cli.conversations import conversations_command

        return conversations_command(ns, out, err)
    if ns.command == "hooks":
        from desktop_app.cli.hooks import hooks_command

        return hooks_command(ns, out, err)
    try:
        if ns.command == "workflows":
            from desktop_app.cli.workflows import workflows_command

            return workflows_command(ns, out, err)
        if ns.command == "tasks":
            from desktop_app.cli.tasks import tasks_main

            return tasks_main(ns, out, err)
        if ns.command == "tools":
            from desktop_app.cli.tools import tools_command

            return asyncio.run(tools_command(ns, out, err))
        if ns.command == "compact":
            from desktop_app.cli.compact import compact_command

            return asyncio.run(compact_command(ns, out, err))
        if ns.command == "serve":
            from desktop_app.cli.serve import serve_command

            return asyncio.run(serve_command(ns, out, err))
        return asyncio.run(stoppable(run_ask(ns, out, err)))
    except ConfigError as exc:
        err.write(f"switchboard: bad config: {exc}\n")
        return EXIT_USAGE
    except KeyboardInterrupt:
        err.write("\nswitchboard: interrupted\n")
        return EXIT_FAILED
    except Terminated as exc:
        err.write(f"\nswitchboard: stopped by {exc}: the MCP servers were closed and the run stored as stopped\n")
        return EXIT_FAILED
