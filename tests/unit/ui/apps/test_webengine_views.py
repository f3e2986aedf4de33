"""The MCP App view tests (engine/: the probe view walk-through, the npm example servers, restore after a
restart) in one subprocess, so that Qt WebEngine never shares a process with the rest of the suite (see
conftest.py) and its start is paid once."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.unit.ui.apps.conftest import WEBENGINE_ENV

REPO = Path(__file__).resolve().parents[4]
ENGINE_TESTS = Path(__file__).resolve().parent / "engine"


def test_the_view_tests_pass_in_their_own_process() -> None:
    env = {**os.environ, WEBENGINE_ENV: "1", "QT_QPA_PLATFORM": "offscreen"}
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(ENGINE_TESTS)],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    summary = done.stdout.strip().splitlines()[-1] if done.stdout.strip() else ""
    assert done.returncode == 0, done.stdout[-6000:] + done.stderr[-2000:]
    assert " passed" in summary and "failed" not in summary and "error" not in summary, summary
