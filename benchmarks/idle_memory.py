"""Idle memory of the real app against the stack floor and a bare PySide6 window, measured in one run.

Three processes, each fresh, offscreen, alternating (one untimed round first for the page cache):

* **bare window**: a ``QMainWindow`` holding a ``QTextBrowser``, shown and painted;
* **stack floor**: the same window in a process that has also imported what Switchboard is built on —
  mcp (client and server halves, both protocol eras), httpx, httpx-sse, pydantic, keyring, markdown-it-py,
  pygments, sqlite3 and qasync — the least any app on this stack can cost;
* **app**: ``switchboard --home <fresh dir>`` (no MCP servers configured), until it prints
  ``runtime: ready`` (the user can send).

Each process is left idle for ``--settle`` seconds after it is ready, then its resident set (``VmRSS``
from ``/proc/PID/status``) is read. Budget: **app ≤ stack floor + 20 MB**.

    .venv/bin/python benchmarks/idle_memory.py [--runs 3] [--settle 5] [--json FILE]
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks._bytecode import compile_app
from benchmarks._report import Row, add_json_argument, median, spread, write_rows

ROOT = Path(__file__).resolve().parents[1]
PYTHON = Path(sys.executable)
APP = PYTHON.parent / "switchboard"
BUDGET_OVER_FLOOR_MB = 20.0

_WINDOW = r"""
import sys
{imports}
from PySide6.QtCore import QEvent, QObject
from PySide6.QtWidgets import QApplication, QMainWindow, QTextBrowser, QWidget

class PaintFilter(QObject):
    def __init__(self, window):
        super().__init__(window)
        self.window = window
        self.done = False

    def eventFilter(self, watched, event):
        if not self.done and event.type() == QEvent.Type.Paint and isinstance(watched, QWidget) \
                and watched.window() is self.window:
            self.done = True
            print("runtime: ready", flush=True)
        return False

app = QApplication([sys.argv[0]])
window = QMainWindow()
window.resize(980, 760)
window.setCentralWidget(QTextBrowser())
app.installEventFilter(PaintFilter(window))
window.show()
app.exec()
"""
BARE = _WINDOW.format(imports="")
STACK = _WINDOW.format(
    imports="\n".join(
        [
            "import sqlite3, httpx, httpx_sse, pydantic, keyring, markdown_it, pygments, pygments.lexers, qasync",
            "import mcp, mcp.client.stdio, mcp.client.streamable_http, mcp.server.mcpserver",
        ]
    )
)


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError(f"no VmRSS for {pid}")


def idle_rss(argv: list[str], env: dict[str, str], settle: float, timeout: float = 60.0) -> float:
    """Start ``argv``, wait for its ``runtime: ready`` line, let it idle ``settle`` s, return its RSS in MB."""
    with tempfile.TemporaryFile() as err:
        proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=err, env=env, cwd=ROOT, text=True)
        assert proc.stdout is not None
        deadline = time.monotonic() + timeout
        try:
            for line in proc.stdout:
                if line.startswith("runtime: ready"):
                    break
                if time.monotonic() > deadline:
                    raise SystemExit(f"{argv[0]}: no 'runtime: ready' within {timeout:g} s")
            else:
                err.seek(0)
                sys.stderr.write(err.read().decode(errors="replace")[-4000:])
                raise SystemExit(f"{' '.join(argv)} exited before it was ready (exit {proc.wait()})")
            time.sleep(settle)  # the measurement itself: the process idles, nothing waits on it
            return rss_mb(proc.pid)
        finally:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


def stack_floor_mb(settle: float = 2.0) -> float:
    """The stack floor's idle RSS (a fresh process, as above): the baseline other memory rows measure against."""
    return idle_rss([str(PYTHON), "-c", STACK], {**os.environ, "QT_QPA_PLATFORM": "offscreen"}, settle)


def measure_app(env: dict[str, str], settle: float) -> float:
    home = tempfile.mkdtemp(prefix="switchboard-idle-")
    try:
        return idle_rss([str(APP), "--home", home], {**env, "SWITCHBOARD_HOME": home}, settle)
    finally:
        shutil.rmtree(home, ignore_errors=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--settle", type=float, default=5.0, help="idle seconds after ready before reading RSS")
    parser.add_argument("--no-warmup", action="store_true", help="skip the untimed first round (tiny runs)")
    add_json_argument(parser)
    args = parser.parse_args(argv)
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    compile_app()  # as installed: no timed start compiles our modules (see _bytecode.py)
    sides = {
        "bare window": lambda: idle_rss([str(PYTHON), "-c", BARE], env, args.settle),
        "stack floor": lambda: idle_rss([str(PYTHON), "-c", STACK], env, args.settle),
        "app": lambda: measure_app(env, args.settle),
    }
    for measure in () if args.no_warmup else sides.values():  # untimed: page cache, .pyc files
        measure()
    results: dict[str, list[float]] = {name: [] for name in sides}
    for _ in range(args.runs):
        for name, measure in sides.items():
            results[name].append(measure())
    print(f"idle RSS {args.settle:g} s after ready, {args.runs} runs each, offscreen, alternating")
    for name, values in results.items():
        print(f"  {name:<12} {spread(values, ' MB', 1)}")
    app, floor, bare = (median(results[n]) for n in ("app", "stack floor", "bare window"))
    ok = app <= floor + BUDGET_OVER_FLOOR_MB
    print(f"app {app:.1f} MB vs stack floor {floor:.1f} MB: {app - floor:+.1f} MB (bare window {bare:.1f} MB)")
    print(f"budget: app <= stack floor + {BUDGET_OVER_FLOOR_MB:g} MB -> {'OK' if ok else 'MISSED'}")
    write_rows(
        args.json,
        [
            Row(
                "idle RSS, no servers, after ready",
                f"{app:.0f} MB",
                f"floor {floor:.0f} MB; bare window {bare:.0f} MB",
                f"{app - floor:+.0f} MB over floor",
                f"≤ floor + {BUDGET_OVER_FLOOR_MB:g} MB",
                ok,
            )
        ],
    )
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
