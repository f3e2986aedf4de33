"""``switchboard tools [--json] [QUERY]``: the tool catalog as the model would get it, on the terminal.

Connects every configured server (and the built-ins), then lists each tool grouped by server with its
state (``loaded``, ``pinned``, ``deferred``, ``excluded``, ``builtin``, ``hook_target``), what the model
sees of it (``schema``, ``named`` in the deferred index, ``search_only``, ``not_offered``) and estimated
tokens, followed by what deferral saves. ``QUERY`` is words (each in the name or description) or
``tool_search``'s syntax (``select:a,b``, ``+must extra…``, a regular expression), uncapped. ``--json``
prints one JSON object (see :meth:`Overview.to_json`).
Exit codes: 0 listed, 1 nothing matched the query, 2 bad usage (a regular expression that takes longer than
its time bound, too) or a bad config file.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import TextIO

from desktop_app.paths import HOME_ENV, app_paths

EXIT_OK, EXIT_NO_MATCH, EXIT_USAGE = 0, 1, 2


def add_tools_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    tools = sub.add_parser(
        "tools", help="List the MCP tools and what deferral sends (QUERY: words or tool_search syntax)."
    )
    tools.add_argument("query", nargs="?", default="", metavar="QUERY", help="words | select:a,b | +word extra | regex")
    tools.add_argument("--json", action="store_true", help="print one JSON object instead of text")
    tools.add_argument("--mcp-config", type=Path, metavar="FILE", help="mcp.json to load (default: the app's)")
    tools.add_argument("--home", type=Path, metavar="DIR", help=f"keep all files under DIR (like ${HOME_ENV})")


async def tools_command(ns: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from desktop_app.assembly import assemble
    from desktop_app.cli.terminal import terminal_safe
    from desktop_app.runtime.host.bounded_regex import SearchTimeout
    from desktop_app.runtime.tools.overview import overview

    paths = app_paths(ns.home).ensure()
    built = assemble(paths, strict=True, mcp_config=ns.mcp_config, persist=False)
    for problem in built.problems:
        err.write(f"switchboard: {terminal_safe(str(problem))}\n")
    try:
        await built.host.start()
        await built.host.ensure_builtins()
        for name, status in built.host.states().items():
            if status.state == "failed":
                err.write(f"switchboard: MCP server {name!r} failed to start: {terminal_safe(status.error or '')}\n")
        deferral = built.runtime.deferral
        assert deferral is not None  # assemble() always attaches one
        view = deferral.view("switchboard-tools-cli")
        try:
            result = overview(deferral, view, ns.query)
        except SearchTimeout as exc:
            err.write(f"switchboard: {terminal_safe(str(exc))}\n")
            return EXIT_USAGE
    finally:
        await built.aclose()
    if ns.json:
        out.write(json.dumps(result.to_json(), ensure_ascii=False, indent=2) + "\n")
    else:
        for server, rows in result.grouped().items():
            out.write(f"[{terminal_safe(server)}]\n")
            for row in rows:
                description = " ".join(row.description.split())
                if len(description) > 80:
                    description = description[:79] + "…"
                line = f"  {row.name:<48} {row.state:<11} {row.visibility:<12} ~{row.tokens:>5} tok  {description}"
                out.write(f"{terminal_safe(line)}\n")  # a server's names and descriptions: no raw control codes
        if ns.query.strip():
            out.write(f"{result.matched} of {result.total} tools match {terminal_safe(repr(ns.query))}.\n")
        state = "on" if result.deferring else "off"
        out.write(
            f"Deferral {state}: {result.reason}. Definitions ~{result.total_tokens:,} tokens; a request carries "
            f"~{result.sent_tokens:,} (saves ~{result.saved_tokens:,}).\n"
        )
        if result.search_only:
            out.write(
                f"The model sees {result.named:,} deferred tools by name; {result.search_only:,} are not named in "
                "its index (only tool_search finds them).\n"
            )
    return EXIT_NO_MATCH if ns.query.strip() and not result.rows else EXIT_OK


__all__ = ["add_tools_parser", "tools_command"]
