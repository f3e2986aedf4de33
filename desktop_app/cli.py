"""Headless commands on the same Runtime as the window. ``switchboard ask`` is a stable contract:

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
    switchboard tools [--json] [--mcp-config FILE] [--home DIR] [QUERY]     (see cli_tools.py)

imports another app's MCP servers (Claude Desktop, Claude Code, VS Code, Cursor, Goose, nanobot, Whale) into
mcp.json, moving secrets into the keyring, with one compatibility line per part of the source (``--dry-run``
only shows them). Exit codes: 0 imported, 1 no usable keyring, 2 a bad file.

    switchboard hooks [list|trust|revoke|disable|enable] [KEY…|--all]

reviews hooks and their trust (see cli_hooks.py).

    switchboard install FILE.mcpb [--set KEY=VALUE …] [--yes] | uninstall NAME | extensions

installs, removes and lists MCP Bundles (see cli_extensions.py).

    switchboard plugins list|install FOLDER|enable ID|disable ID|remove ID

manages plugins (Claude Code layout or whale-plugin.toml; see cli_plugins.py).

    switchboard conversations [--json] [--limit N] [--home DIR]

lists the stored conversations, most recent first (see cli_conversations.py).

    switchboard compact --conversation ID|last [--undo] [--json]

summarises a stored conversation's older turns, or undoes it (see cli_compact.py).

    switchboard serve [--port N] [--home DIR] [--token-env VAR] [--approve ask|always|never]

serves the host's agents as MCP over streamable HTTP on 127.0.0.1 (see cli_serve.py).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import signal
import sys
from collections.abc import Coroutine, Iterator, Sequence
from pathlib import Path
from typing import Any, NoReturn, TextIO

from desktop_app.cli_terminal import JsonlPrinter, RunEnd, TerminalApprover, TextPrinter, terminal_safe
from desktop_app.paths import HOME_ENV, app_paths
from desktop_app.runtime.errors import ConfigError
from desktop_app.runtime.redaction import redact
from desktop_app.runtime.run.approvals import ApprovalPolicy
from desktop_app.runtime.settings import infer_dialect, load_settings

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2
EXIT_TOOL_ROUND_LIMIT, EXIT_MAX_TOKENS, EXIT_CONTENT_FILTER = 3, 4, 5
EXIT_NOT_SAVED = 6
"""The run ended, but the store could not write it (disk full, read-only, I/O error): stdout is the only copy."""
INCOMPLETE_EXIT = {
    "tool_round_limit": EXIT_TOOL_ROUND_LIMIT,
    "max_tokens": EXIT_MAX_TOKENS,
    "content_filter": EXIT_CONTENT_FILTER,
}


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="switchboard", description="Switchboard headless commands.")
    sub = parser.add_subparsers(dest="command", required=True)
    ask = sub.add_parser("ask", help="Run one prompt to its end and print the answer (or the events).")
    ask.add_argument("prompt", metavar="PROMPT", help="the user prompt")
    ask.add_argument("--base-url", help="OpenAI-compatible base URL (default: the configured provider)")
    ask.add_argument("--model", help="model name (default: the configured model)")
    ask.add_argument("--api-key-env", metavar="VAR", help="read the API key from this environment variable")
    ask.add_argument("--dialect", choices=["openai", "deepseek", "anthropic"], help="wire dialect (default: inferred)")
    ask.add_argument("--mcp-config", type=Path, metavar="FILE", help="mcp.json to load (default: the app's)")
    ask.add_argument(
        "--approve",
        choices=["ask", "always", "never"],
        default="ask",
        help="tool calls that need approval (and server requests): ask on the terminal, approve all, or deny "
        "all (default: ask; built-in read-only tools never ask)",
    )
    ask.add_argument(
        "--attach",
        action="append",
        type=Path,
        default=[],
        metavar="FILE",
        help="attach an image (PNG/JPEG/GIF/WebP) or a text file; repeatable",
    )
    ask.add_argument("--events", choices=["jsonl"], help="print every event as one JSON object per line")
    ask.add_argument("--home", type=Path, metavar="DIR", help=f"keep all files under DIR (like ${HOME_ENV})")
    ask.add_argument(
        "--conversation", metavar="ID|last", help="continue this stored conversation (last: the latest one)"
    )
    add_import_config_parser(sub)
    from desktop_app.cli_conversations import add_conversations_parser

    add_conversations_parser(sub)
    from desktop_app.cli_compact import add_compact_parser

    add_compact_parser(sub)
    from desktop_app.cli_tools import add_tools_parser

    add_tools_parser(sub)
    from desktop_app.cli_hooks import add_hooks_parser

    add_hooks_parser(sub)
    from desktop_app.cli_extensions import add_extension_parsers

    add_extension_parsers(sub)
    from desktop_app.cli_serve import add_serve_parser

    add_serve_parser(sub)
    from desktop_app.cli_plugins import add_plugins_parser

    add_plugins_parser(sub)
    return parser


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
        from desktop_app.cli_import import report_json

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
    from desktop_app.cli_import import print_compatibility

    print_compatibility(report.lines, report.to_enter, out)
    if not report.written:
        out.write(f"Nothing new to import; {report.target} is unchanged.\n")
    return EXIT_OK


def _import_preview(ns: argparse.Namespace, target: Path, out: TextIO, err: TextIO) -> int:
    """``import-config --dry-run``: the preview and its compatibility report; nothing is written or stored."""
    from desktop_app.cli_import import print_preview
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


async def _ask(ns: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from desktop_app.assembly import assemble

    paths = app_paths(ns.home).ensure()
    settings = load_settings(paths.settings_file)
    provider = settings.provider
    updates: dict[str, object] = {}
    if ns.base_url:
        updates["base_url"] = ns.base_url
    if ns.model:
        updates["model"] = ns.model
    if ns.api_key_env:
        updates["api_key_env"] = ns.api_key_env
    if ns.dialect:
        updates["dialect"] = ns.dialect
    elif ns.base_url:
        updates["dialect"] = infer_dialect(ns.base_url)
    provider = provider.model_copy(update=updates)
    if not provider.base_url:
        err.write("switchboard: no provider configured; pass --base-url (and --model) or set one in the app\n")
        return EXIT_USAGE
    if not provider.model:
        provider = provider.model_copy(update={"model": "default"})
    if ns.api_key_env and not os.environ.get(ns.api_key_env):
        err.write(f"switchboard: environment variable {ns.api_key_env} is not set\n")
        return EXIT_USAGE
    if ns.mcp_config and not ns.mcp_config.exists():
        err.write(f"switchboard: {ns.mcp_config}: no such MCP config file\n")
        return EXIT_USAGE
    built = assemble(
        paths,
        strict=True,
        settings=settings.model_copy(update={"provider": provider}),
        mcp_config=ns.mcp_config,
        policy=ApprovalPolicy(ns.approve),
    )
    for problem in built.problems:
        err.write(f"switchboard: {terminal_safe(redact(str(problem)))}\n")
    runtime, host = built.runtime, built.host
    conversation = ""
    if ns.conversation:
        from desktop_app.cli_conversations import UnknownConversation, continue_conversation, resolve_conversation

        try:
            if built.store is None:
                raise UnknownConversation("conversation history is off, so there is nothing to continue")
            conversation = resolve_conversation(built.store, ns.conversation)
            continue_conversation(runtime, built.store, conversation)
        except UnknownConversation as exc:
            await built.aclose()
            err.write(f"switchboard: {exc}\n")
            return EXIT_USAGE
    try:
        await host.start()
        for name, status in host.states().items():
            if status.state == "failed":
                err.write(
                    f"switchboard: MCP server {name!r} failed to start: {terminal_safe(redact(status.error or ''))}\n"
                )
        runtime.subscribe(JsonlPrinter(out) if ns.events == "jsonl" else TextPrinter(out, err))
        end = RunEnd(err)
        runtime.subscribe(end)
        store_watch = _StoreWatch(err)
        runtime.subscribe(store_watch)
        # any approval raised in the run, whatever --approve says (an agent stricter than --approve always
        # asks in its sub-run): on the terminal, or denied without one, as `serve` does; never left waiting
        approver = TerminalApprover(runtime, err)
        runtime.subscribe(approver)
        if ns.approve == "ask":  # sampling and elicitation: asked only under --approve ask
            host.subscribe(approver.on_host_event)
        conversation = conversation or runtime.new_conversation()
        from desktop_app.cli_commands import expand_command  # /plugin:command: filled in, !`…` run once approved

        prompt = await expand_command(ns.prompt, paths.data_dir, settings.plugins, ns.approve, err)
        outcome = await runtime.run(conversation, prompt, attachments=ns.attach)
    finally:
        await built.aclose()
    if outcome.status != "finished":
        return EXIT_FAILED
    if store_watch.failed:
        return EXIT_NOT_SAVED
    return INCOMPLETE_EXIT.get(end.reason or "", EXIT_OK)


def _unwritable_home(home: Path | None) -> str | None:
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


def _bad_attachment(files: Sequence[Path]) -> str | None:
    """Why an ``--attach`` path cannot be attached before anything runs (missing, a FIFO, a device, a folder)."""
    import stat

    from desktop_app.runtime.files import file_kind

    for file in files:
        try:
            mode = file.stat().st_mode
        except FileNotFoundError:
            return f"{file}: no such file to attach; check the path"
        except OSError as exc:
            return f"{file}: cannot attach it ({exc.strerror or exc})"
        if not stat.S_ISREG(mode):
            return f"{file}: cannot attach it: it is {file_kind(mode)}; attach a regular file"
    return None


async def _stoppable(command: Coroutine[Any, Any, int]) -> int:
    with _stop_on_signals():  # SIGTERM/SIGHUP: stop the run and close the servers, as Ctrl+C does
        return await command


class Terminated(Exception):
    """SIGTERM or SIGHUP stopped ``ask``: the run was stopped (and stored so) and the MCP servers were closed."""

    def __init__(self, signum: int) -> None:
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


@contextlib.contextmanager
def _stop_on_signals() -> Iterator[None]:
    """SIGTERM and SIGHUP stop the run as Ctrl+C does: the run task is cancelled (the runtime records it as
    stopped), the caller's ``finally`` closes the MCP servers, and ``Terminated`` says which signal it was."""
    loop = asyncio.get_running_loop()
    task = asyncio.current_task()
    received: list[int] = []
    signals = [s for s in (getattr(signal, "SIGTERM", None), getattr(signal, "SIGHUP", None)) if s is not None]

    def on_signal(signum: int) -> None:
        received.append(signum)
        if task is not None:
            task.cancel()

    installed = []
    for signum in signals:
        with contextlib.suppress(NotImplementedError, RuntimeError):  # Windows: no loop signal handlers
            loop.add_signal_handler(signum, on_signal, signum)
            installed.append(signum)
    try:
        yield
    except asyncio.CancelledError:
        if received and task is not None and task.uncancel() == 0:
            raise Terminated(received[0]) from None
        raise
    finally:
        for signum in installed:
            loop.remove_signal_handler(signum)


class _StoreWatch:
    """Says on stderr, at once, that the store could not write the run (the exit code then says it too)."""

    def __init__(self, err: TextIO) -> None:
        self._err = err
        self.failed = False

    def __call__(self, event: object) -> None:
        if getattr(event, "kind", None) == "store_failed" and not self.failed:
            self.failed = True
            message = str(getattr(event, "message", ""))
            self._err.write(
                f"switchboard: not saved: {terminal_safe(message)} What is printed here is the only copy.\n"
            )
            self._err.flush()


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

    unwritable = _unwritable_home(ns.home)
    if unwritable is not None:
        err.write(f"switchboard: {unwritable}\n")
        return EXIT_USAGE
    setup_logging(app_paths(ns.home).log_dir)
    if ns.command == "ask":
        bad = _bad_attachment(ns.attach)
        if bad is not None:
            err.write(f"switchboard: {bad}\n")
            return EXIT_USAGE
    if ns.command == "import-config":
        return import_config_command(ns, out, err)
    if ns.command in ("install", "uninstall", "extensions"):
        from desktop_app import cli_extensions

        command = getattr(cli_extensions, f"{ns.command}_command")
        return int(command(ns, out, err))
    if ns.command == "plugins":
        from desktop_app.cli_plugins import plugins_command

        return plugins_command(ns, out, err)
    if ns.command == "conversations":
        from desktop_app.cli_conversations import conversations_command

        return conversations_command(ns, out, err)
    if ns.command == "hooks":
        from desktop_app.cli_hooks import hooks_command

        return hooks_command(ns, out, err)
    try:
        if ns.command == "tools":
            from desktop_app.cli_tools import tools_command

            return asyncio.run(tools_command(ns, out, err))
        if ns.command == "compact":
            from desktop_app.cli_compact import compact_command

            return asyncio.run(compact_command(ns, out, err))
        if ns.command == "serve":
            from desktop_app.cli_serve import serve_command

            return asyncio.run(serve_command(ns, out, err))
        return asyncio.run(_stoppable(_ask(ns, out, err)))
    except ConfigError as exc:
        err.write(f"switchboard: bad config: {exc}\n")
        return EXIT_USAGE
    except KeyboardInterrupt:
        err.write("\nswitchboard: interrupted\n")
        return EXIT_FAILED
    except Terminated as exc:
        err.write(f"\nswitchboard: stopped by {exc}: the MCP servers were closed and the run stored as stopped\n")
        return EXIT_FAILED
