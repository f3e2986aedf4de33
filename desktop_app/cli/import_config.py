"""``switchboard import-config FILE [--home DIR] [--replace] [--dry-run] [--json]``: imports another app's MCP
servers (Claude Desktop, Claude Code, VS Code, Cursor, Goose, nanobot, Whale) into mcp.json, moving secrets into
the keyring, and prints servers, keyring entry names (never values), conflicts and one compatibility line per
part of the source (``--dry-run`` only shows them). Exit codes: 0 imported, 1 no usable keyring, 2 a bad file.

Printers of ``switchboard import-config``: the compatibility report (one line per part of the source: works /
translated / not available), the ``--dry-run`` preview, and both as ``--json``. Keyring entry names only, never
secret values.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from desktop_app.cli.exits import (
    EXIT_FAILED,
    EXIT_OK,
    EXIT_USAGE,
)
from desktop_app.paths import HOME_ENV, app_paths
from desktop_app.runtime.errors import ConfigError

if TYPE_CHECKING:
    from desktop_app.runtime.host.import_compat import CompatLine
    from desktop_app.runtime.host.import_preview import ImportPreview
    from desktop_app.runtime.host.importers import ImportReport


def print_compatibility(lines: Sequence[CompatLine], to_enter: Sequence[str], out: TextIO) -> None:
    if lines:
        out.write("Compatibility (works / translated / not available):\n")
        out.write("".join(f"  {line.text()}\n" for line in lines))
    if to_enter:
        out.write(
            "Enter these before the servers that use them start (Enter secret… in View → Servers, or "
            "`keyring set switchboard NAME`):\n" + "".join(f"  {name}\n" for name in to_enter)
        )


def print_preview(preview: ImportPreview, out: TextIO, *, as_json: bool) -> None:
    if as_json:
        out.write(json.dumps({"dry_run": True, **preview.as_dict()}, indent=2, ensure_ascii=False) + "\n")
        return
    out.write(f"Would read {preview.source} ({preview.format}); nothing is written (--dry-run).\n")
    for server in preview.servers:
        state = f"not importable: {server.problem}" if server.problem else "replaces yours" if server.conflict else ""
        out.write(f"{server.name}: {server.summary}" + (f"  [{state}]" if state else "") + "\n")
        if server.secrets:
            out.write(f"  moves to the keyring: {', '.join(server.secrets)}\n")
        out.write("".join(f"  {line}\n" for line in server.environment))
    if preview.notes:
        out.write("Notes:\n" + "".join(f"  {note}\n" for note in preview.notes))
    print_compatibility(preview.lines, preview.to_enter, out)


def report_json(report: ImportReport) -> str:
    return json.dumps(
        {
            "source": str(report.source),
            "target": str(report.target),
            "format": report.format,
            "imported": report.imported,
            "replaced": report.replaced,
            "conflicts": report.conflicts,
            "skipped": report.skipped,
            "secrets": report.secrets,
            "to_enter": report.to_enter,
            "notes": report.notes,
            "lines": [line.as_dict() for line in report.lines],
            "written": report.written,
        },
        indent=2,
        ensure_ascii=False,
    )


def add_import_config_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    imp = sub.add_parser(
        "import-config",
        help="Import MCP servers from Claude Desktop, Claude Code, VS Code, Cursor, Goose, nanobot or Whale.",
    )
    imp.add_argument("file", type=Path, metavar="FILE", help="the configuration file (or nanobot folder) to import")
    imp.add_argument("--home", type=Path, metavar="DIR", help=f"keep all files under DIR (like ${HOME_ENV})")
    imp.add_argument("--replace", action="store_true", help="replace existing servers that have the same name")
    imp.add_argument("--dry-run", action="store_true", help="show what would be imported, and how; change nothing")
    imp.add_argument("--json", action="store_true", help="print the result (or the --dry-run preview) as JSON")


def import_config_command(ns: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """``switchboard import-config``: prints servers, keyring entry names (never values) and conflicts."""
    from desktop_app.runtime.credentials import Credentials
    from desktop_app.runtime.errors import CredentialError
    from desktop_app.runtime.host.importers import import_config

    target = app_paths(ns.home).ensure().mcp_config_file
    if ns.dry_run:
        return _import_preview(ns, target, out, err)
    try:
        report = import_config(ns.file, target, Credentials(), replace=ns.replace, require_keyring=True)
    except ConfigError as exc:
        err.write(f"switchboard: bad config: {exc}\n")
        return EXIT_USAGE
    except CredentialError as exc:
        err.write(f"switchboard: {exc}\n")
        return EXIT_FAILED
    if ns.json:
        out.write(report_json(report) + "\n")
        return EXIT_OK
    out.write(f"Read {report.source} ({report.format}).\n")
    sections = [
        ("Imported into " + str(report.target), report.imported),
        ("Replaced", report.replaced),
        ("Secrets moved to the keyring (service 'switchboard')", report.secrets),
        ("Conflicts: kept the existing server (use --replace to overwrite)", report.conflicts),
        ("Skipped", report.skipped),
        ("Notes", report.notes),
    ]
    for title, items in sections:
        if items:
            out.write(f"{title}:\n" + "".join(f"  {item}\n" for item in items))
    _print_environments(target, [*report.imported, *report.replaced], out)
    print_compatibility(report.lines, report.to_enter, out)
    if not report.written:
        out.write(f"Nothing new to import; {report.target} is unchanged.\n")
    return EXIT_OK


def _import_preview(ns: argparse.Namespace, target: Path, out: TextIO, err: TextIO) -> int:
    """``import-config --dry-run``: the preview and its compatibility report; nothing is written or stored."""
    from desktop_app.runtime.host.import_preview import preview_import

    try:
        preview = preview_import(ns.file, target)
    except ConfigError as exc:
        err.write(f"switchboard: bad config: {exc}\n")
        return EXIT_USAGE
    print_preview(preview, out, as_json=ns.json)
    return EXIT_OK


def _print_environments(target: Path, names: list[str], out: TextIO) -> None:
    """Every env entry, header and secret reference each imported server will be handed when it starts."""
    from desktop_app.runtime.host.config_edit import read_servers
    from desktop_app.runtime.host.launch_view import environment_lines

    entries = read_servers(target)
    for name in names:
        lines = environment_lines(name, entries.get(name, {}))
        if lines:
            out.write(f"{name} will start with:\n" + "".join(f"  {line}\n" for line in lines))
