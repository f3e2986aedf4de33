"""Running one lifecycle hook: a command (a real subprocess), an HTTP POST, or an MCP tool call.

Each executor returns a :class:`HookOutcome` and never raises for a hook's failure: a command that cannot
be spawned is ``error``, one that outlives its timeout is killed (with its process group) and is
``timeout``; an HTTP status outside 2xx is ``error``; an MCP tool that fails is ``error``.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import sys
from collections.abc import Awaitable, Callable, Mapping
from pathlib import Path
from typing import Any, Protocol

from desktop_app.runtime.child_env import minimal_environment
from desktop_app.runtime.hooks.decisions import (
    OUTPUT_CAP,
    HookOutcome,
    answer_from_object,
    cap,
    normalise,
    parse_answer,
)
from desktop_app.runtime.hooks.decisions import process_decision as decide
from desktop_app.runtime.hooks.model import HookPayload, LifecycleHook, effective_timeout, hook_variables
from desktop_app.runtime.secret_scope import holds_reserved_value, reserved_name


class ToolCallResult(Protocol):
    @property
    def text(self) -> str: ...

    @property
    def is_error(self) -> bool: ...

    @property
    def structured(self) -> dict[str, Any] | None: ...


ToolCaller = Callable[[str, str, dict[str, Any]], Awaitable[ToolCallResult]]
"""Calls ``server``'s ``tool`` with arguments, bypassing hooks (the host's raw call path)."""


def shell_argv(command: str, shell: str | None) -> list[str]:
    """How a command hook is started: ``bash``/``sh``/``zsh`` as ``<sh> -lc``, else the platform shell."""
    name = (shell or "").strip().lower()
    if name in ("bash", "sh", "zsh"):
        return [name, "-lc", command]
    if name in ("pwsh", "powershell"):
        return [name, "-NoProfile", "-Command", command]
    if name == "cmd" or ((not name or name == "default") and sys.platform == "win32"):
        return ["cmd", "/C", command]
    return ["/bin/sh", "-c", command]


def declared_env(hook: LifecycleHook, environ: Mapping[str, str]) -> dict[str, str]:
    """The hook's ``allowedEnvVars`` that are set, except those holding the app's own key or token."""
    return {
        name: environ[name]
        for name in hook.definition.allowed_env_vars
        if name in environ and not reserved_name(name) and not holds_reserved_value(environ[name])
    }


def _duration(seconds: float) -> str:
    return f"{seconds:g}s"


async def run_command(hook: LifecycleHook, payload: HookPayload, *, cwd: Path | None) -> HookOutcome:
    """Run a command hook with the payload on stdin; see the module docstring for failures."""
    definition = hook.definition
    timeout = effective_timeout(definition.timeout)
    workdir = cwd
    if definition.cwd:
        workdir = (cwd or Path.cwd()) / definition.cwd
    env = minimal_environment(
        os.environ,
        {**declared_env(hook, os.environ), **hook_variables(hook.source, cwd), "SWITCHBOARD_HOOK_EVENT": hook.event},
    )
    try:
        process = await asyncio.create_subprocess_exec(
            *shell_argv(definition.command or "", definition.shell),
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            cwd=str(workdir) if workdir is not None else None,
            env=env,
            start_new_session=sys.platform != "win32",
        )
    except (OSError, ValueError) as exc:
        return HookOutcome(hook.label, "error", stderr=f"the hook could not be started: {exc}")
    timed_out = False
    out, err = bytearray(), bytearray()
    try:
        await communicate(process, payload.to_line(), out, err, timeout)
    except TimeoutError:
        timed_out = True
        _kill(process)
        with contextlib.suppress(Exception):
            await asyncio.wait_for(process.wait(), 5)
        out, err = bytearray(), bytearray()
    except asyncio.CancelledError:
        _kill(process)
        raise
    stdout, cut_out = cap(bytes(out))
    stderr, cut_err = cap(bytes(err))
    if timed_out and not stderr:
        stderr = f"hook timed out after {_duration(timeout)}"
    answer = None if timed_out else parse_answer(stdout)
    decision = decide(hook.event, spawn_error=False, timed_out=timed_out, exit_code=process.returncode, answer=answer)
    if not timed_out and answer is None and stdout.strip().startswith("{"):
        # It meant to answer in JSON, but the answer cannot be read: a failure, not a silent pass.
        decision = "error"
        stderr = f"the hook printed invalid JSON: {stdout.strip()[:200]}" + (
            f" ({stderr.strip()})" if stderr.strip() else ""
        )
    return HookOutcome(
        hook.label,
        decision,
        exit_code=None if timed_out else process.returncode,
        stdout=stdout,
        stderr=stderr.strip(),
        truncated=cut_out or cut_err,
        answer=answer,
    )


EXIT_GRACE = 1.0
"""Seconds the output pipes get to close once the hook exited; a child it left holding them is then killed."""


async def _collect(stream: asyncio.StreamReader | None, sink: bytearray) -> None:
    """Read ``stream`` to its end, keeping at most ``OUTPUT_CAP + 1`` bytes (the rest is read and dropped, so
    a hook that prints forever costs no memory and never blocks on a full pipe)."""
    if stream is None:
        return
    while chunk := await stream.read(65536):
        room = OUTPUT_CAP + 1 - len(sink)
        if room > 0:
            sink += chunk[:room]


EXIT_POLL = 0.02


async def _exited(process: asyncio.subprocess.Process) -> None:
    """Until the hook's own process has exited. ``Process.wait()`` also waits for its pipes to close, which a
    child it left running may hold open for as long as it lives."""
    while process.returncode is None:  # noqa: ASYNC110 - no exit event but wait(), which waits for the pipes
        await asyncio.sleep(EXIT_POLL)


async def _feed(process: asyncio.subprocess.Process, data: bytes) -> None:
    if process.stdin is None:
        return
    with contextlib.suppress(BrokenPipeError, ConnectionResetError):  # a hook need not read its stdin
        process.stdin.write(data)
        await process.stdin.drain()
    with contextlib.suppress(BrokenPipeError, ConnectionResetError):
        process.stdin.close()


async def communicate(
    process: asyncio.subprocess.Process, data: bytes, out: bytearray, err: bytearray, limit: float
) -> None:
    """``process.communicate`` with bounded buffers (``out``/``err`` filled as output arrives) that returns
    once the hook exited: pipes a leftover child still holds get :data:`EXIT_GRACE`, then that child is
    killed. ``TimeoutError`` when the hook itself outlives ``limit`` seconds."""
    tasks = [
        asyncio.ensure_future(_feed(process, data)),
        asyncio.ensure_future(_collect(process.stdout, out)),
        asyncio.ensure_future(_collect(process.stderr, err)),
    ]
    try:
        await asyncio.wait_for(_exited(process), limit)
        await asyncio.wait(tasks, timeout=EXIT_GRACE)
    finally:
        pending = [task for task in tasks if not task.done()]
        if pending:  # timed out, cancelled, or exited leaving a child that holds its output: end them all,
            _kill(process)  # then the pipes close (bounded wait) and nothing is left open
            await asyncio.wait(pending, timeout=EXIT_GRACE)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)


def _kill(process: asyncio.subprocess.Process) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError, OSError):
        if sys.platform != "win32":
            os.killpg(process.pid, signal.SIGKILL)
        else:  # pragma: no cover - Windows
            process.kill()


async def run_http(
    hook: LifecycleHook, payload: HookPayload, *, environ: Mapping[str, str] | None = None
) -> HookOutcome:
    """POST ``{"payload": …, "env": {allowed variables that are set}}`` to the hook's URL."""
    definition = hook.definition
    environ = os.environ if environ is None else environ
    env = declared_env(hook, environ)
    headers = {"Content-Type": "application/json", "Accept": "application/json", **definition.headers}
    timeout = effective_timeout(definition.timeout)
    import httpx  # with the first http hook, not with the runtime (httpx also loads its CLI's click and rich)

    try:
        async with httpx.AsyncClient(timeout=timeout, trust_env=False) as client:
            response = await client.post(definition.url or "", json=payload.http_body(env), headers=headers)
    except httpx.TimeoutException:
        return HookOutcome(hook.label, "timeout", stderr=f"hook timed out after {_duration(timeout)}")
    except (httpx.HTTPError, ValueError) as exc:
        return HookOutcome(hook.label, "error", stderr=f"the http hook could not be reached: {exc}")
    if not 200 <= response.status_code < 300:
        return HookOutcome(hook.label, "error", stderr=f"http hook returned {response.status_code}")
    body, _ = cap(response.content)
    answer = parse_answer(body)
    if answer is None and body.strip().startswith("{"):
        return HookOutcome(
            hook.label, "error", stdout=body, stderr=f"the http hook answered invalid JSON: {body[:200]}"
        )
    decision = normalise(hook.event, answer.decision if answer and answer.decision else "pass")
    return HookOutcome(hook.label, decision, stdout=body, answer=answer)


async def run_mcp(hook: LifecycleHook, payload: HookPayload, call: ToolCaller | None) -> HookOutcome:
    """Call the hook's ``server/tool`` with the payload as its arguments (nanobot: a hook is a tool call)."""
    target = (hook.definition.target or "").strip()
    server, _, tool = target.partition("/")
    if call is None:
        return HookOutcome(hook.label, "error", stderr="mcp hooks need the MCP host, which is not running")
    timeout = effective_timeout(hook.definition.timeout)
    try:
        result = await asyncio.wait_for(call(server, tool, payload.to_dict()), timeout)
    except TimeoutError:
        return HookOutcome(hook.label, "timeout", stderr=f"hook timed out after {_duration(timeout)}")
    if result.is_error:
        return HookOutcome(hook.label, "error", stderr=f"failed to call hook {target}: {result.text}")
    data = result.structured
    if data is None:
        with contextlib.suppress(ValueError):
            parsed = json.loads(result.text)
            data = parsed if isinstance(parsed, dict) else None
    answer = answer_from_object(data) if data is not None else None
    decision = normalise(hook.event, answer.decision if answer and answer.decision else "pass")
    return HookOutcome(hook.label, decision, stdout=result.text, answer=answer)
