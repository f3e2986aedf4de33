"""Printers of ``switchboard import-config``: the compatibility report (one line per part of the source: works /
translated / not available), the ``--dry-run`` preview, and both as ``--json``. Keyring entry names only, never
secret values."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, TextIO

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


__all__ = ["print_compatibility", "print_preview", "report_json"]
