"""The desktop app's command-line options (``switchboard [--quick] [--background] [FILE…]``), in a module of
their own: ``desktop_app.app`` parses its launch with them, and the desktop shell parses the arguments a second
launch forwards (``ui.tray.desktop``) without importing the composition root."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from desktop_app.paths import HOME_ENV


class _VersionAction(argparse.Action):
    """``--version``: the version is read only when asked for (see ``desktop_app.__version__``)."""

    def __init__(self, option_strings: Sequence[str], dest: str, help: str | None = None) -> None:
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, help=help)

    def __call__(self, parser: argparse.ArgumentParser, *_args: Any, **_kwargs: Any) -> None:
        from desktop_app import __version__

        print(f"switchboard {__version__}")  # on stdout, as argparse's own "version" action does
        parser.exit()


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="switchboard", description="Switchboard desktop AI assistant.")
    parser.add_argument("--home", type=Path, metavar="DIR", help=f"keep all files under DIR (like ${HOME_ENV})")
    parser.add_argument("--log-level", default="INFO", choices=["DEBUG", "INFO", "WARNING", "ERROR"])
    parser.add_argument(
        "--smoke-test", action="store_true", help="start, report the time to first paint, shut down, exit"
    )
    parser.add_argument("--version", action=_VersionAction, help="show the version and exit")
    parser.add_argument("--quick", action="store_true", help="open the quick prompt (in the running instance if any)")
    parser.add_argument("--background", action="store_true", help="start in the tray without showing the window")
    parser.add_argument(
        "--no-single-instance", action="store_true", help="do not look for, or become, the running instance"
    )
    parser.add_argument("files", nargs="*", metavar="FILE", help="files to attach to the next prompt")
    return parser
