"""``switchboard serve``: the host without a window, served as MCP over streamable HTTP (a stable contract):

    switchboard serve [--port N] [--home DIR] [--token-env VAR] [--approve ask|always|never]

Binds 127.0.0.1 only (``--port``, default a free port) and prints its URL (``http://127.0.0.1:PORT/mcp``) as
the first line of stdout. Clients send ``Authorization: Bearer <token>``: the token is read from ``VAR``
with ``--token-env``, else from the keyring (service ``switchboard``, entry ``serve-token``; created on first
use, never printed). Tool calls follow ``--approve`` (default ``ask``: asked on the terminal; with no terminal
they are denied with a reason the client sees), then pass hooks through ``Host.call``. SIGINT/SIGTERM stop
it cleanly (exit 0): open calls are cancelled, the MCP servers closed. Exit 2: bad usage, a bad config, no
token; 1: the port cannot be bound. Scheduled tasks run in the background while it serves; each run's start
and end is a ``switchboard: task <id> <status>: …`` line on stderr.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import secrets
import signal
import sys
from collections.abc import Callable, Iterator
from typing import Any, TextIO

from desktop_app.paths import HOME_ENV, app_paths

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2


def add_serve_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    serve = sub.add_parser("serve", help="Serve the host's agents as MCP over streamable HTTP on 127.0.0.1.")
    serve.add_argument("--port", type=int, default=0, metavar="N", help="port on 127.0.0.1 (default: a free one)")
    serve.add_argument("--home", metavar="DIR", help=f"keep all files under DIR (like ${HOME_ENV})")
    serve.add_argument("--token-env", metavar="VAR", help="read the bearer token from this environment variable")
    serve.add_argument(
        "--approve",
        choices=["ask", "always", "never"],
        default="ask",
        help="tool calls that need approval: ask on the terminal (denied when there is none), approve all, or "
        "deny all (default: ask)",
    )


MIN_TOKEN_LENGTH = 16
"""The shortest bearer token ``--token-env`` may hold (the generated one has 43 characters)."""


def _token(ns: argparse.Namespace, err: TextIO) -> str | None:
    from desktop_app.runtime.secret_scope import reserve

    if ns.token_env:
        value = os.environ.get(ns.token_env, "").strip()
        reserve(name=ns.token_env, value=value)  # no server or hook may read the bearer token
        if not value:
            err.write(f"switchboard: environment variable {ns.token_env} is not set (it holds the bearer token)\n")
            return None
        if len(value) < MIN_TOKEN_LENGTH:  # a short token is guessed in moments by any local process
            err.write(
                f"switchboard: the bearer token in {ns.token_env} is {len(value)} characters; use at least "
                f"{MIN_TOKEN_LENGTH} (e.g. `python -c 'import secrets; print(secrets.token_urlsafe(32))'`)\n"
            )
            return None
        return value
    from desktop_app.runtime.credentials import Credentials
    from desktop_app.runtime.serve.host import TOKEN_NAME

    credentials = Credentials()
    if not credentials.check():
        err.write(
            "switchboard: no working system keyring to keep the bearer token in; pass --token-env VAR with the "
            "token in that environment variable\n"
        )
        return None
    token = credentials.get(TOKEN_NAME)
    if not token:
        token = secrets.token_urlsafe(32)
        credentials.set(TOKEN_NAME, token)
        err.write(f"switchboard: created a bearer token in the keyring (service 'switchboard', entry '{TOKEN_NAME}')\n")
    reserve(value=token)
    return token


@contextlib.contextmanager
def _stop_on(stop: Callable[[], None]) -> Iterator[None]:
    loop = asyncio.get_running_loop()
    installed = []
    for signum in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError, RuntimeError):  # Windows: no loop signal handlers
            loop.add_signal_handler(signum, stop)
            installed.append(signum)
    try:
        yield
    finally:
        for signum in installed:
            loop.remove_signal_handler(signum)


async def _terminal_ask(err: TextIO, lock: asyncio.Lock, tool: str, arguments: dict[str, Any]) -> tuple[bool, str]:
    import json

    from desktop_app.cli.terminal import terminal_safe

    async with lock:
        err.write(terminal_safe(f"\nAn MCP client asks to call {tool} {json.dumps(arguments)}. Allow? [y/N] "))
        err.flush()
        line = (await asyncio.to_thread(sys.stdin.readline)).strip().lower()
    return line in {"y", "yes"}, "the user said no on the terminal"


def _task_line(err: TextIO, run: Any) -> None:
    """A task run's start and end on stderr: ``switchboard: task <id> finished: <first line of the answer>``."""
    from desktop_app.cli.terminal import terminal_safe
    from desktop_app.runtime.tasks.server import result_text

    err.write(terminal_safe(f"switchboard: task {run.task_id} {result_text(run)}") + "\n")
    err.flush()


async def serve_command(ns: argparse.Namespace, out: TextIO, err: TextIO, *, auth: bool = True) -> int:
    """``switchboard serve``. ``auth=False`` leaves out the bearer check and nothing else: only the
    conformance suite's stand-in (``tests/conformance/serve_host.py``) runs it so, as the suite cannot
    send a token."""
    from desktop_app.assembly import assemble
    from desktop_app.cli.terminal import TerminalApprover, terminal_safe
    from desktop_app.runtime.redaction import redact
    from desktop_app.runtime.run.approvals import ApprovalPolicy
    from desktop_app.runtime.serve.service import HttpHostError, HttpHostService

    token = _token(ns, err) if auth else None
    if auth and token is None:
        return EXIT_USAGE
    built = assemble(
        app_paths(ns.home).ensure(), strict=True, policy=ApprovalPolicy(ns.approve), serve_default_agent=True
    )
    try:
        for problem in built.problems:
            err.write(f"switchboard: {terminal_safe(redact(str(problem)))}\n")
        runtime, host = built.runtime, built.host
        await host.start()
        # any approval raised in a run (a sub-agent's at any depth, or an agent stricter than --approve
        # always): on the terminal, or denied without one (--approve never raises none)
        approver = TerminalApprover(runtime, err)
        runtime.subscribe(approver)
        if ns.approve == "ask":  # sampling and elicitation: asked as before
            host.subscribe(approver.on_host_event)
        has_terminal = bool(sys.stdin) and sys.stdin.isatty()
        lock = asyncio.Lock()

        async def ask(tool: str, arguments: dict[str, Any]) -> tuple[bool, str]:
            return await _terminal_ask(err, lock, tool, arguments)

        if built.tasks is not None:  # scheduled tasks run in the background while it serves (issue 25)
            built.tasks.runner.add_listener(lambda run: _task_line(err, run))
            built.tasks.start()
        service = HttpHostService(runtime, host, runtime.credentials, ask=ask if has_terminal else None)
        try:
            url = await service.start(ns.port, runtime.settings.http_host.expose, bearer=token)
        except HttpHostError as exc:
            err.write(f"switchboard: {exc} (pick another --port)\n")
            return EXIT_FAILED
        out.write(f"{url}\n")
        out.flush()
        with _stop_on(service.request_stop):
            await service.wait()
        await service.stop()
    finally:
        await built.aclose()
    err.write("switchboard: stopped\n")
    return EXIT_OK
