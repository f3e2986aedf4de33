"""Screenshots of compaction from the real app under Xvfb (light and dark):

    xvfb-run -a -s "-screen 0 1400x900x24" .venv/bin/python scripts/screenshot_compaction.py

A fresh SWITCHBOARD_HOME whose provider is the loopback SSE server (tests/support/llm_server.py, scripted
answers). The script starts ``python -m desktop_app``, types four prompts into the composer (xdotool), then
presses Ctrl+Shift+M (File → Compact conversation now): the model's summary comes back, the divider goes in
front of the two turns kept verbatim and the older turns fold away. docs/screenshots/compaction-{theme}.png.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from scripts._shots import (
    OUT,
    app_command,
    app_env,
    each_theme,
    focus,
    grab,
    place,
    running,
    wait_window,
    write_settings,
    xdotool,
)
from tests.support.llm_server import ScriptedLLMServer, text_reply

TURNS = [
    (
        "Which SQLite journal mode suits a desktop app that writes while it reads?",
        "**WAL** (write-ahead logging): readers never block the writer and the writer never blocks readers. "
        "Set it once with `PRAGMA journal_mode = WAL`; it is kept in the database file.",
    ),
    (
        "And how often should it sync?",
        "With WAL, `PRAGMA synchronous = NORMAL` is safe against application crashes and much faster than "
        "`FULL`; only a power loss can lose the last transactions.",
    ),
    (
        "How do I keep the WAL file from growing forever?",
        "Checkpoints move the WAL back into the database. SQLite runs one automatically at 1,000 pages; call "
        "`PRAGMA wal_checkpoint(TRUNCATE)` at idle moments to shrink the file to zero.",
    ),
    (
        "Last one: full-text search over the messages?",
        "Use an **FTS5** virtual table with `tokenize = 'unicode61 remove_diacritics 2'` and a prefix index "
        "(`prefix = '3'`) so search-as-you-type stays fast.",
    ),
]
SUMMARY = (
    "The user is designing the storage of a desktop app on SQLite. Settled: WAL journal mode (readers and "
    "the writer do not block each other), synchronous = NORMAL (safe against app crashes)."
)


def wait_for(condition: object, timeout_s: float = 30.0) -> None:
    deadline = time.monotonic() + timeout_s
    while not condition():  # type: ignore[operator]
        if time.monotonic() > deadline:
            raise SystemExit("timed out waiting for the app")
        time.sleep(0.2)


def shoot(theme: str) -> Path:
    replies = [text_reply(answer, piece=12) for _, answer in TURNS] + [text_reply(SUMMARY, piece=24)]
    with tempfile.TemporaryDirectory() as tmp, ScriptedLLMServer(replies) as llm:
        home = Path(tmp) / "home"
        provider = {"base_url": llm.url, "model": "demo-model", "dialect": "openai"}
        write_settings(home, theme=theme, provider=provider, compact_keep_turns=2, context_os=False)
        command = app_command("--home", str(home), "--no-single-instance")
        with running(command, app_env(), 15, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True) as app:
            assert app.stdout is not None
            for line in app.stdout:  # the composer takes prompts once the runtime is attached
                print(line.rstrip())
                if line.startswith("runtime: ready"):
                    break
            window = wait_window("Switchboard$")
            place(window, (1400, 900))
            time.sleep(1.0)
            for index, (prompt, _) in enumerate(TURNS):
                focus(window)
                xdotool("type", "--delay", "4", prompt)
                xdotool("key", "Return")
                wait_for(lambda index=index: len(llm.requests) > index)
                time.sleep(1.2)
            xdotool("key", "ctrl+shift+m")
            wait_for(lambda: len(llm.requests) == len(TURNS) + 1)
            time.sleep(2.0)
            return grab(OUT / f"compaction-{theme}.png")


if __name__ == "__main__":
    raise SystemExit(each_theme(shoot, sys.argv[1:]))
