"""Start-up does not pay for MCP Apps (issue 26): in a fresh process, the real window with apps wired has no
Qt WebEngine module after its first paint, nor after a tool result that has no view, nor, with Settings → Apps
off, after a result of a tool that has one."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[4]


def test_webengine_is_not_imported_for_the_first_paint_or_a_text_result() -> None:
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "PYTHONPATH": str(REPO)}
    done = subprocess.run(
        [sys.executable, "-m", "tests.support.apps.footprint_probe"],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=90,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    assert seen["cards"][0] == "12:00" and "Hello, Ada!" in seen["cards"][1]  # the tools really ran
    assert seen["first_paint"] == [] and seen["text_result"] == [] and seen["apps_off"] == []
