"""A command's ``!`…` `` context lines: found, checked against its ``allowed-tools``, approved, run, filled in.

Claude Code runs each ``!`git status` `` of a slash command before the command is sent and puts the command's
output in its place (its slash-commands reference: "Bash command execution", with ``allowed-tools:
Bash(git status:*)`` in the front matter). Here each one goes through the approval policy first: the user
sees the exact command (the window asks; ``switchboard ask`` asks on the terminal under ``--approve ask``,
runs it under ``always`` and refuses it under ``never``). What differs from Claude Code, said in the plugin's
report: ``allowed-tools`` does not approve a command by itself (it is still asked), a command it does not
cover is refused without asking, and the model's tools are not narrowed to ``allowed-tools`` for the turn.

A command runs with ``/bin/sh -c`` in the current folder, with the minimal child environment plus
``CLAUDE_PLUGIN_ROOT``/``WHALE_PLUGIN_ROOT``; its output (stdout then stderr, at most :data:`MAX_OUTPUT`
bytes) replaces it; after :data:`TIMEOUT_S` (a Whale command's ``timeout_ms``) it is stopped and the text says so.
"""

from __future__ import annotations

import asyncio
import os
import re
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

BANG = re.compile(r"!`([^`\n]+)`")
"""``!`command` ``: Claude Code's inline form (anywhere on a line)."""
_BASH_RULE = re.compile(r"^Bash(?:\((?P<rule>.*)\))?$")
TIMEOUT_S = 30.0
MAX_OUTPUT = 64 * 1024


@dataclass(frozen=True)
class Verdict:
    """The approval's answer for one command: run it or not, and why not."""

    run: bool
    reason: str = ""


Decide = Callable[[str], Awaitable[Verdict]]


def commands_in(text: str) -> list[str]:
    """The ``!`…` `` commands of ``text``, in order."""
    return [m.group(1).strip() for m in BANG.finditer(text)]


def allowed_tools(value: object) -> list[str]:
    """Front matter ``allowed-tools`` as a list: Claude Code takes a comma-separated string or a list."""
    if isinstance(value, str):
        parts, depth, current = [], 0, ""
        for char in value:  # split at commas outside parentheses: Bash(git add:*, git status:*) stays one
            depth += {"(": 1, ")": -1}.get(char, 0)
            if char == "," and depth == 0:
                parts.append(current)
                current = ""
            else:
                current += char
        return [p.strip() for p in [*parts, current] if p.strip()]
    if isinstance(value, list):
        return [str(v).strip() for v in value if str(v).strip()]
    return []


def covered(command: str, tools: Sequence[str]) -> bool:
    """Whether ``allowed-tools`` lets ``command`` run: ``Bash`` (any), ``Bash(git status:*)`` (a prefix, a
    word boundary after it), ``Bash(git status)`` (exactly). An empty list covers every command (the front
    matter did not name any)."""
    if not tools:
        return True
    for tool in tools:
        match = _BASH_RULE.match(tool.strip())
        if match is None:
            continue
        rules = match.group("rule")
        if rules is None or rules.strip() in ("", "*"):
            return True
        for rule in (r.strip() for r in rules.split(",")):
            if rule.endswith(":*"):
                prefix = rule[:-2].strip()
                if command == prefix or command.startswith(prefix + " "):
                    return True
            elif rule.endswith("*"):
                if command.startswith(rule[:-1]):
                    return True
            elif command == rule:
                return True
    return False


def refusal(command: str, tools: Sequence[str]) -> str:
    return f"[`{command}` was not run: allowed-tools ({', '.join(tools)}) does not cover it]"


def refuse_uncovered(text: str, tools: Sequence[str]) -> str:
    """``text`` with each ``!`…` `` that ``allowed-tools`` does not cover replaced by why it does not run (done
    when the command is rendered, so every client refuses it, never asking)."""
    return BANG.sub(lambda m: m.group(0) if covered(m.group(1).strip(), tools) else refusal(m.group(1), tools), text)


async def run_command(command: str, cwd: Path, root: Path | None, limit_s: float = TIMEOUT_S) -> str:
    """Run ``command`` and give what replaces it: its output, or what went wrong."""
    from desktop_app.runtime.child_env import minimal_environment
    from desktop_app.runtime.hooks.model import PLUGIN_ROOT_VARIABLES

    extra = dict.fromkeys(PLUGIN_ROOT_VARIABLES, str(root)) if root is not None else {}
    try:
        process = await asyncio.create_subprocess_exec(
            "/bin/sh",
            "-c",
            command,
            cwd=cwd,
            env=minimal_environment(os.environ, extra),
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.STDOUT,
            start_new_session=True,
        )
    except OSError as exc:
        return f"[`{command}` could not be started: {exc}]"
    assert process.stdout is not None
    cut = False
    try:
        output = await asyncio.wait_for(_read_capped(process.stdout), limit_s)
        cut = len(output) >= MAX_OUTPUT
        if cut:  # enough: a writer blocked on the rest would never end; the rest is read and dropped, since
            _kill_group(process)  # the process only counts as done once its pipe has closed
            await asyncio.wait_for(_drain(process.stdout), limit_s)
        await asyncio.wait_for(process.wait(), limit_s)
    except TimeoutError:
        _kill_group(process)
        await process.wait()
        return f"[`{command}` was stopped after {limit_s:g} s]"
    finally:
        if process.returncode is None:
            _kill_group(process)
            await process.wait()
    text = output.decode("utf-8", errors="replace").rstrip()
    if cut:
        text += f"\n[`{command}`: output cut at {MAX_OUTPUT // 1024} KB]"
    elif process.returncode:
        text += f"\n[`{command}` exited with {process.returncode}]"
    return text


async def _read_capped(stream: asyncio.StreamReader) -> bytes:
    """Everything ``stream`` gives until its end, at most :data:`MAX_OUTPUT` bytes."""
    chunks: list[bytes] = []
    size = 0
    while size < MAX_OUTPUT:
        chunk = await stream.read(MAX_OUTPUT - size)
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
    return b"".join(chunks)


async def _drain(stream: asyncio.StreamReader) -> None:
    while await stream.read(65536):
        pass


def _kill_group(process: asyncio.subprocess.Process) -> None:
    """Stop the command and whatever it started (its own session, so its process group)."""
    import signal

    try:
        os.killpg(process.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


async def expand(
    text: str,
    *,
    tools: Sequence[str],
    decide: Decide,
    cwd: Path,
    root: Path | None = None,
    limit_s: float = TIMEOUT_S,
) -> tuple[str, list[str]]:
    """``text`` with each ``!`…` `` replaced by its output once approved, or by why it did not run; and one
    line per command saying what happened (for the terminal or the window)."""
    report: list[str] = []
    results: dict[str, str] = {}
    for command in dict.fromkeys(commands_in(text)):
        if not covered(command, tools):
            why = f"allowed-tools ({', '.join(tools)}) does not cover it"
            results[command] = refusal(command, tools)
            report.append(f"refused `{command}`: {why}")
            continue
        verdict = await decide(command)
        if not verdict.run:
            results[command] = f"[`{command}` was not run: {verdict.reason or 'denied'}]"
            report.append(f"denied `{command}`: {verdict.reason or 'denied'}")
            continue
        results[command] = await run_command(command, cwd, root, limit_s)
        report.append(f"ran `{command}`")
    return BANG.sub(lambda m: results.get(m.group(1).strip(), m.group(0)), text), report


__all__ = ["BANG", "Verdict", "allowed_tools", "commands_in", "covered", "expand", "refuse_uncovered", "run_command"]
