"""``switchboard ask``: one prompt run to its end on the same Runtime as the window, the answer (or every event
as JSONL) printed, approvals asked on the terminal; SIGTERM and SIGHUP stop it as Ctrl+C does. The contract
(options, exit codes) is in the package's docstring (``desktop_app.cli``) and docs/cli.md."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import signal
from collections.abc import Coroutine, Iterator, Sequence
from pathlib import Path
from typing import Any, TextIO

from desktop_app.cli.exits import (
    EXIT_FAILED,
    EXIT_NOT_SAVED,
    EXIT_OK,
    EXIT_USAGE,
    INCOMPLETE_EXIT,
)
from desktop_app.cli.terminal import JsonlPrinter, RunEnd, TerminalApprover, TextPrinter, terminal_safe
from desktop_app.paths import HOME_ENV, app_paths
from desktop_app.runtime.redaction import redact
from desktop_app.runtime.run.approvals import ApprovalPolicy
from desktop_app.runtime.settings import ProviderSettings, Settings, infer_dialect, load_settings


def add_run_options(parser: argparse.ArgumentParser) -> None:
    """The provider, MCP config, approval, events and home options shared by ``ask`` and ``workflows run``."""
    parser.add_argument("--base-url", help="OpenAI-compatible base URL (default: the configured provider)")
    parser.add_argument("--model", help="model name (default: the configured model)")
    parser.add_argument("--api-key-env", metavar="VAR", help="read the API key from this environment variable")
    parser.add_argument(
        "--dialect", choices=["openai", "deepseek", "anthropic"], help="wire dialect (default: inferred)"
    )
    parser.add_argument("--mcp-config", type=Path, metavar="FILE", help="mcp.json to load (default: the app's)")
    parser.add_argument(
        "--approve",
        choices=["ask", "always", "never"],
        default="ask",
        help="tool calls that need approval (and server requests): ask on the terminal, approve all, or deny "
        "all (default: ask; built-in read-only tools never ask)",
    )
    parser.add_argument("--events", choices=["jsonl"], help="print every event as one JSON object per line")
    parser.add_argument("--home", type=Path, metavar="DIR", help=f"keep all files under DIR (like ${HOME_ENV})")


def add_ask_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    ask = sub.add_parser("ask", help="Run one prompt to its end and print the answer (or the events).")
    ask.add_argument("prompt", metavar="PROMPT", help="the user prompt")
    add_run_options(ask)
    ask.add_argument(
        "--attach",
        action="append",
        type=Path,
        default=[],
        metavar="FILE",
        help="attach an image (PNG/JPEG/GIF/WebP) or a text file; repeatable",
    )
    ask.add_argument(
        "--conversation", metavar="ID|last", help="continue this stored conversation (last: the latest one)"
    )


def provider_from_options(ns: argparse.Namespace, settings: Settings, err: TextIO) -> ProviderSettings | None:
    """The provider the run options (``add_run_options``) give over ``settings``; ``None`` after saying on ``err``
    why there is none usable (exit with ``EXIT_USAGE``)."""
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
        return None
    if not provider.model:
        provider = provider.model_copy(update={"model": "default"})
    if ns.api_key_env and not os.environ.get(ns.api_key_env):
        err.write(f"switchboard: environment variable {ns.api_key_env} is not set\n")
        return None
    if ns.mcp_config and not ns.mcp_config.exists():
        err.write(f"switchboard: {ns.mcp_config}: no such MCP config file\n")
        return None
    return provider


async def run_ask(ns: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from desktop_app.assembly import assemble

    paths = app_paths(ns.home).ensure()
    settings = load_settings(paths.settings_file)
    provider = provider_from_options(ns, settings, err)
    if provider is None:
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
        from desktop_app.cli.conversations import UnknownConversation, continue_conversation, resolve_conversation

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
        from desktop_app.cli.plugin_commands import expand_command  # /plugin:command: filled in, !`…` run once approved

        prompt = await expand_command(ns.prompt, paths.data_dir, settings.plugins, ns.approve, err)
        outcome = await runtime.run(conversation, prompt, attachments=ns.attach)
    finally:
        await built.aclose()
    if outcome.status != "finished":
        return EXIT_FAILED
    if store_watch.failed:
        return EXIT_NOT_SAVED
    return INCOMPLETE_EXIT.get(end.reason or "", EXIT_OK)


def bad_attachment(files: Sequence[Path]) -> str | None:
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


async def stoppable(command: Coroutine[Any, Any, int]) -> int:
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
