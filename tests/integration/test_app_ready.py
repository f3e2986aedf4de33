"""The real start-up says ``runtime: ready`` before the work a first prompt does not need (issue 27 item 1): the
first run's welcome screen, the later parts (``LaterParts.build``: the docks, the find bar, the Help menu), the
Servers dock's host and the importers (``attach_host``) and the purge of conversations deleted earlier come
after it, and still come: the MCP servers start after the dock is attached (it sees every state change)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

PROBE = """
import gc
import sys
from desktop_app import app as appmod
from desktop_app.runtime.store import Store
from desktop_app.ui.window.dialogs import WindowDialogs
from desktop_app.ui.window.main_window import MainWindow
from desktop_app.ui.window.later_parts import LaterParts

def traced(cls, name):
    original = getattr(cls, name)
    def wrapper(*args, **kwargs):
        print(f"step: {name} gc={gc.isenabled()}", flush=True)
        return original(*args, **kwargs)
    setattr(cls, name, wrapper)

traced(MainWindow, "attach_runtime")
traced(MainWindow, "attach_host")
traced(Store, "purge_deleted")
traced(LaterParts, "build")
traced(WindowDialogs, "open_welcome")
code = appmod.main(["--smoke-test", "--home", sys.argv[1]])
print(f"gc after: {gc.isenabled()}", flush=True)
raise SystemExit(code)
"""


@pytest.mark.integration
def test_ready_comes_before_the_servers_dock_and_the_purge(tmp_path: Path) -> None:
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "SWITCHBOARD_HOME": str(tmp_path)}
    env["PYTHON_KEYRING_BACKEND"] = "keyring.backends.null.Keyring"
    done = subprocess.run(
        [sys.executable, "-c", PROBE, str(tmp_path)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    order = [
        line.split(":", 1)[1].split()[0] if line.startswith("step:") else "ready"
        for line in done.stdout.splitlines()
        if line.startswith(("step:", "runtime: ready"))
    ]
    order = list(dict.fromkeys(order))  # each step's first call (every use of a dock goes through build)
    # without the split: attach_runtime, purge_deleted, attach_host, ready (the docks before attach_runtime, the
    # welcome screen in it)
    assert order == ["attach_runtime", "ready", "open_welcome", "build", "purge_deleted", "attach_host"]
    # No garbage collection passes on the way (issue 27: ~25 ms), back on once the start-up is done.
    steps = [line for line in done.stdout.splitlines() if line.startswith("step:")]
    assert steps and all(line.endswith("gc=False") for line in steps), steps
    assert "gc after: True" in done.stdout


FAILING = """
import sys
import desktop_app.assembly
from desktop_app import app as appmod

def broken(*args, **kwargs):
    raise RuntimeError("assembly broke on purpose")

desktop_app.assembly.assemble = broken
raise SystemExit(appmod.main(["--smoke-test", "--home", sys.argv[1]]))
"""


@pytest.mark.integration
def test_a_start_up_that_fails_before_ready_still_writes_its_log(tmp_path: Path) -> None:
    """A start-up that never gets to ready writes why to the log file (opened after the first paint)."""
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "SWITCHBOARD_HOME": str(tmp_path)}
    env["PYTHON_KEYRING_BACKEND"] = "keyring.backends.null.Keyring"
    done = subprocess.run(
        [sys.executable, "-c", FAILING, str(tmp_path)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 1, done.stdout + done.stderr[-3000:]
    assert "runtime: ready" not in done.stdout
    [log] = tmp_path.rglob("switchboard.log")
    text = log.read_text(encoding="utf-8")
    assert "start-up failed" in text and "assembly broke on purpose" in text
