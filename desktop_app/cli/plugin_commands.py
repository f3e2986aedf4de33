"""``switchboard ask "/plugin:command args"``: an enabled plugin's command, filled in as its source app does.

The prompt is the command's text with ``$ARGUMENTS``, ``$1`` … ``$N``, Whale's ``{{args}}`` and the plugin's
folder filled in (:meth:`PluginPrompt.render`); each ``!`…` `` context line runs only once approved
(:mod:`desktop_app.runtime.plugins.context_commands`): the exact command is printed on stderr first, then
``--approve always`` runs it, ``never`` refuses it, and ``ask`` asks on the terminal (refused without one, so
scripts never hang). A prompt that names no enabled plugin's command is sent as written.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any, TextIO


def find_command(prompt: str, data_dir: Path, records: dict[str, dict[str, Any]]) -> tuple[Any, str] | None:
    """The enabled plugin command ``prompt`` starts with (``/plugin:command``) and the rest (its arguments)."""
    from desktop_app.runtime.plugins.prompts import find_prompt

    if not prompt.startswith("/"):
        return None
    head, _, rest = prompt[1:].partition(" ")
    found = find_prompt(head, data_dir, records)
    return (found, rest.strip()) if found is not None else None


async def expand_command(
    prompt: str, data_dir: Path, records: dict[str, dict[str, Any]], mode: str, err: TextIO
) -> str:
    """``prompt`` as sent to the model: a plugin command filled in and its context commands run (approved)."""
    from desktop_app.cli.terminal import NO_TERMINAL, terminal_safe
    from desktop_app.runtime.plugins.context_commands import Verdict, expand

    found = find_command(prompt, data_dir, records)
    if found is None:
        return prompt
    command, arguments = found
    lock = asyncio.Lock()

    async def decide(line: str) -> Verdict:
        err.write(terminal_safe(f"[command] /{command.name} runs `{line}` before it is sent\n"))
        if mode == "always":
            return Verdict(True)
        if mode == "never":
            return Verdict(False, "denied by policy (--approve never)")
        if not (sys.stdin and sys.stdin.isatty()):
            return Verdict(False, NO_TERMINAL)
        async with lock:
            err.write(terminal_safe(f"Run `{line}` in {Path.cwd()}? [y/N] "))
            err.flush()
            answer = (await asyncio.to_thread(sys.stdin.readline)).strip().lower()
        return Verdict(True) if answer in {"y", "yes"} else Verdict(False, "denied on the terminal")

    root = Path(command.root) if command.root else None
    text, report = await expand(
        command.render(arguments),
        tools=command.allowed_tools,
        decide=decide,
        cwd=Path.cwd(),
        root=root,
        limit_s=command.timeout_s,
    )
    for line in report:
        err.write(terminal_safe(f"[command] {line}\n"))
    return text


__all__ = ["expand_command", "find_command"]
