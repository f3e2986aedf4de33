"""Screenshots of compaction from the real app under Xvfb (light and dark):

    xvfb-run -a -s "-screen 0 1400x900x24" .venv/bin/python scripts/screenshot_compaction.py

A fresh SWITCHBOARD_HOME whose provider is the loopback SSE server (tests/support/llm_server.py, scripted
answers). The script starts ``python -m desktop_app``, types four prompts into the composer (xdotool), then
presses Ctrl+Shift+M (File → Compact conversation now): the model's summary comes back, the divider goes in
front of the two turns kept verbatim and the older turns fold away. docs/screenshots/compaction-{theme}.png.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
OUT = ROOT / "docs" / "screenshots"

from tests.support.llm_server import ScriptedLLMServer, text_reply  # noqa: E402

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


def xdotool(*args: str) -> str:
    return subprocess.run(["xdotool", *args], capture_output=True, text=True, check=False).stdout.strip()


def wait_window(name: str, timeout_s: float = 30.0) -> str:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        found = xdotool("search", "--onlyvisible", "--name", name)
        if found:
            return found.splitlines()[-1]
        time.sleep(0.25)
    raise SystemExit(f"no window named {name!r} appeared")


def wait_for(condition: object, timeout_s: float = 30.0) -> None:
    deadline = time.monotonic() + timeout_s
    while not condition():  # type: ignore[operator]
        if time.monotonic() > deadline:
            raise SystemExit("timed out waiting for the app")
        time.sleep(0.2)


def shoot(theme: str) -> Path:
    OUT.mkdir(parents=True, exist_ok=True)
    replies = [text_reply(answer, piece=12) for _, answer in TURNS] + [text_reply(SUMMARY, piece=24)]
    with tempfile.TemporaryDirectory() as tmp, ScriptedLLMServer(replies) as llm:
        home = Path(tmp) / "home"
        (home / "config").mkdir(parents=True)
        settings = {
            "provider": {"base_url": llm.url, "model": "demo-model", "dialect": "openai"},
            "appearance": {"theme": theme},
            "compact_keep_turns": 2,
            "context_os": False,
        }
        (home / "config" / "settings.json").write_text(json.dumps(settings, indent=2), encoding="utf-8")
        env = {**os.environ, "PYTHON_KEYRING_BACKEND": "keyring.backends.null.Keyring", "PYTHONPATH": str(ROOT)}
        env.pop("QT_QPA_PLATFORM", None)
        env.pop("SWITCHBOARD_HOME", None)
        app = subprocess.Popen(
            [sys.executable, "-m", "desktop_app", "--home", str(home), "--no-single-instance"],
            cwd=ROOT,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        try:
            assert app.stdout is not None
            for line in app.stdout:  # the composer takes prompts once the runtime is attached
                print(line.rstrip())
                if line.startswith("runtime: ready"):
                    break
            window = wait_window("Switchboard$")
            xdotool("windowsize", window, "1400", "900")
            xdotool("windowmove", window, "0", "0")
            time.sleep(1.0)
            for index, (prompt, _) in enumerate(TURNS):
                xdotool("windowfocus", "--sync", window)
                xdotool("type", "--delay", "4", prompt)
                xdotool("key", "Return")
                wait_for(lambda index=index: len(llm.requests) > index)
                time.sleep(1.2)
            xdotool("key", "ctrl+shift+m")
            wait_for(lambda: len(llm.requests) == len(TURNS) + 1)
            time.sleep(2.0)
            target = OUT / f"compaction-{theme}.png"
            subprocess.run(["import", "-window", "root", str(target)], check=True)
        finally:
            app.terminate()
            try:
                app.wait(15)
            except subprocess.TimeoutExpired:
                app.kill()
    return target


def main() -> int:
    for theme in sys.argv[1:] or ("light", "dark"):
        print(shoot(theme))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
