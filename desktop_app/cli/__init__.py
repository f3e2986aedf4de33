"""Headless commands on the same Runtime as the window, one module per command: ask.py, import_config.py,
conversations.py, compact.py, tools.py, hooks.py, extensions.py (install, uninstall, extensions), serve.py and
plugins.py. main.py parses and dispatches them (``switchboard --help`` lists them all); terminal.py is the
terminal printing and approver they share, plugin_commands.py ask's ``/plugin:command``, exits.py the exit
codes. ``switchboard ask`` (ask.py) is a stable contract:

    switchboard ask [--base-url URL] [--model NAME] [--api-key-env VAR] [--dialect openai|deepseek|anthropic]
                    [--mcp-config FILE] [--approve ask|always|never] [--events jsonl] [--home DIR]
                    [--conversation ID|last] PROMPT

``--conversation`` continues a stored conversation (its id is on every event; ``last``: the latest one),
one process per turn; a conversation that does not exist is bad usage (exit 2).

Exit codes: 0 the run finished, 1 the run failed, 2 bad usage or a bad config file, and for a run that
ended incomplete (with a notice on stderr): 3 the tool-round limit was reached, 4 the answer hit the token
limit (``finish_reason: length``), 5 the provider's content filter stopped it; 6 the run ended but the
store could not write it (stderr says so at once; stdout is the only copy). Ctrl+C, SIGTERM and SIGHUP stop
the run (stored as stopped), close the MCP servers and exit 1.

    switchboard import-config FILE [--home DIR] [--replace] [--dry-run] [--json]
    switchboard tools [--json] [--mcp-config FILE] [--home DIR] [QUERY]     (see tools.py)

imports another app's MCP servers (Claude Desktop, Claude Code, VS Code, Cursor, Goose, nanobot, Whale) into
mcp.json, moving secrets into the keyring, with one compatibility line per part of the source (``--dry-run``
only shows them). Exit codes: 0 imported, 1 no usable keyring, 2 a bad file.

    switchboard hooks [list|trust|revoke|disable|enable] [KEY…|--all]

reviews hooks and their trust (see hooks.py).

    switchboard install FILE.mcpb [--set KEY=VALUE …] [--yes] | uninstall NAME | extensions

installs, removes and lists MCP Bundles (see extensions.py).

    switchboard plugins list|install FOLDER|enable ID|disable ID|remove ID

manages plugins (Claude Code layout or whale-plugin.toml; see plugins.py).

    switchboard conversations [--json] [--limit N] [--home DIR]

lists the stored conversations, most recent first (see conversations.py).

    switchboard compact --conversation ID|last [--undo] [--json]

summarises a stored conversation's older turns, or undoes it (see compact.py).

    switchboard serve [--port N] [--home DIR] [--token-env VAR] [--approve ask|always|never]

serves the host's agents as MCP over streamable HTTP on 127.0.0.1 (see serve.py).

    switchboard workflows list [--json] | run NAME [--input KEY=VALUE …] [ask's provider, approval, events options]

lists the workflows (broken files with path:line and field) or runs one step by step, printing its Output
(see workflows.py).
"""

from __future__ import annotations

from desktop_app.cli.exits import (
    EXIT_CONTENT_FILTER,
    EXIT_FAILED,
    EXIT_MAX_TOKENS,
    EXIT_NOT_SAVED,
    EXIT_OK,
    EXIT_TOOL_ROUND_LIMIT,
    EXIT_USAGE,
    INCOMPLETE_EXIT,
)
from desktop_app.cli.main import build_parser, exit_now, main

__all__ = [
    "EXIT_CONTENT_FILTER",
    "EXIT_FAILED",
    "EXIT_MAX_TOKENS",
    "EXIT_NOT_SAVED",
    "EXIT_OK",
    "EXIT_TOOL_ROUND_LIMIT",
    "EXIT_USAGE",
    "INCOMPLETE_EXIT",
    "build_parser",
    "exit_now",
    "main",
]
