"""A plugin command's ``!`…` `` context commands in the window: shown for approval, run only if approved.

The dialog lists the exact commands and the folder they run in; **Run** runs them (with the plugin's
``CLAUDE_PLUGIN_ROOT``/``WHALE_PLUGIN_ROOT`` and time limit, found by the command's name among the enabled
plugins), **Don't run** leaves each one's place saying it was not run (the model reads why). The running
itself is :mod:`desktop_app.runtime.plugins.context_commands`.
"""

from __future__ import annotations

import asyncio
import logging
from html import escape
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMessageBox

from desktop_app.runtime.plugins.context_commands import Verdict, commands_in, expand
from desktop_app.ui.dialogs.frame import mark_primary, message_box

log = logging.getLogger(__name__)


async def run_context_commands(owner: Any, command: str, name: str, text: str) -> str:
    """``text`` (the rendered command ``/command``, prompt ``name``) with its context commands run once the
    user approves them in a dialog over ``owner.composer``'s window (``owner.approval`` while open)."""
    box = message_box(
        owner.composer.window(),
        "Run the command's context commands?",
        "",
        icon="warning",
        secondary=QMessageBox.StandardButton.NoButton,
    )
    box.setObjectName("contextCommandsApproval")
    box.setTextFormat(Qt.TextFormat.RichText)
    listed = "".join(f"<li><code>{escape(c)}</code></li>" for c in commands_in(text))
    box.setText(
        f"<p>/{escape(command)} runs these commands in {escape(str(Path.cwd()))} before it is sent, "
        f"and gives their output to the model:</p><ul>{listed}</ul>"
    )
    run = box.addButton("Run", QMessageBox.ButtonRole.AcceptRole)
    run.setObjectName("runContextCommands")
    mark_primary(run)
    box.addButton("Don't run", QMessageBox.ButtonRole.RejectRole).setObjectName("skipContextCommands")
    answer: asyncio.Future[bool] = asyncio.get_running_loop().create_future()

    def settle(_result: int) -> None:
        if not answer.done():
            answer.set_result(box.clickedButton() is run)

    box.finished.connect(settle)
    owner.approval = box
    box.open()
    approved = await answer

    async def decide(_command: str) -> Verdict:
        return Verdict(approved, "denied in the window")

    root, limit = _source(name)
    expanded, _report = await expand(text, tools=(), decide=decide, cwd=Path.cwd(), root=root, limit_s=limit)
    return expanded


def _source(name: str) -> tuple[Path | None, float]:
    """The enabled plugin command's folder and time limit (none and 30 s when it is not found)."""
    from desktop_app.paths import app_paths
    from desktop_app.runtime.plugins.prompts import find_prompt
    from desktop_app.runtime.settings import load_settings

    paths = app_paths()
    try:
        source = find_prompt(name, paths.data_dir, load_settings(paths.settings_file).plugins)
    except Exception as exc:  # a settings file that does not read: run without them
        log.warning("plugin command %s: %s", name, exc)
        return None, 30.0
    if source is None:
        return None, 30.0
    return (Path(source.root) if source.root else None), source.timeout_s


__all__ = ["run_context_commands"]
