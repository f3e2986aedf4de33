"""The window's desktop shell and MCP App views live together (issue 26): a Python application-wide event
filter (the shell's file-open handling) made PySide 6.11 recurse until it crashed as soon as a web view had
the focus; the shell installs it only on macOS, where FileOpen events exist. A fresh process, offscreen."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[4]


def test_a_focused_view_does_not_crash_the_window_with_its_shell() -> None:
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "PYTHONPATH": str(REPO)}
    done = subprocess.run(
        [sys.executable, "-m", "tests.support.apps.shell_focus_probe"],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=90,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip().splitlines()[-1] == "alive"
