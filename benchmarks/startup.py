"""Cold start: time to first paint and peak RSS of ``switchboard --smoke-test`` against a bare-Qt window.

Each run is a fresh process (offscreen Qt). The baseline is the floor any PySide6 app pays: ``python -c``
that imports QtWidgets, shows a ``QMainWindow`` holding a ``QTextBrowser`` and prints when the window is
first painted (the same event filter as ``desktop_app.ui.asyncqt.first_paint``). The app run is
``switchboard --smoke-test`` with a fresh ``--home`` (empty temporary directory) each time.

Both are timed by this script, from spawning the process to reading the ``startup:`` line from its stdout,
so interpreter start-up and module imports count on both sides; runs alternate (baseline, app, baseline,
app, …) so that load on the machine hits both alike. One untimed run of each comes first (page cache).
The app's own figure (``startup: <s> s``, measured from ``main()``) and the time until ``runtime: ready``
(the MCP stack imported off the UI thread, store opened, runtime attached) are printed as well. Peak RSS
is the child's ``ru_maxrss`` from ``os.wait4``.

Bound: median time to first paint of the app ≤ median of the baseline + ``--bound-s`` (default 0.25 s):
the window must appear near the bare-Qt floor, whatever the runtime behind it costs. Exits 1 when missed.

    .venv/bin/python benchmarks/startup.py [--runs 7] [--bound-s 0.25]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks._bytecode import compile_app  # noqa: E402
from benchmarks._report import Row, add_json_argument, write_rows  # noqa: E402

PYTHON = Path(sys.executable)
APP = PYTHON.parent / "switchboard"

BASELINE = r"""
import sys, time
t0 = time.perf_counter()
from PySide6.QtCore import QEvent, QObject, QTimer
from PySide6.QtWidgets import QApplication, QMainWindow, QTextBrowser, QWidget

class PaintFilter(QObject):
    def __init__(self, window):
        super().__init__(window)
        self.window = window
        self.done = False

    def eventFilter(self, watched, event):
        if (
            not self.done
            and event.type() == QEvent.Type.Paint
            and isinstance(watched, QWidget)
            and watched.window() is self.window
        ):
            self.done = True
            print(f"startup: {time.perf_counter() - t0:.3f} s to first paint", flush=True)
            QTimer.singleShot(0, QApplication.instance().quit)
        return False

app = QApplication([sys.argv[0]])
window = QMainWindow()
window.resize(980, 760)
window.setCentralWidget(QTextBrowser())
app.installEventFilter(PaintFilter(window))
window.show()
app.exec()
"""


@dataclass
class Run:
    first_paint: float
    """Seconds from spawning the process to reading its ``startup:`` line."""
    self_reported: float
    """The figure the process printed (from its own start of ``main``/script)."""
    ready: float | None
    """Seconds from spawning to the ``runtime: ready`` line (app only)."""
    total: float
    """Seconds from spawning to exit."""
    max_rss_mb: float
    returncode: int


def run_once(argv: list[str], env: dict[str, str]) -> Run:
    started = time.perf_counter()
    with tempfile.TemporaryFile() as err:
        proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=err, env=env, cwd=ROOT, text=True)
        assert proc.stdout is not None
        first_paint = self_reported = None
        ready = None
        for line in proc.stdout:
            now = time.perf_counter() - started
            if line.startswith("startup:") and first_paint is None:
                first_paint, self_reported = now, float(line.split()[1])
            elif line.startswith("runtime: ready") and ready is None:
                ready = now
        _pid, status, usage = os.wait4(proc.pid, 0)
        total = time.perf_counter() - started
        proc.returncode = os.waitstatus_to_exitcode(status)
        if proc.returncode != 0 or first_paint is None or self_reported is None:
            err.seek(0)
            sys.stderr.write(err.read().decode(errors="replace")[-4000:])
            raise SystemExit(f"{' '.join(argv)} failed (exit {proc.returncode}, first paint line: {first_paint})")
    return Run(first_paint, self_reported, ready, total, usage.ru_maxrss / 1024, proc.returncode)


def run_app(env: dict[str, str]) -> Run:
    home = tempfile.mkdtemp(prefix="switchboard-startup-")
    try:
        return run_once([str(APP), "--smoke-test", "--home", home], {**env, "SWITCHBOARD_HOME": home})
    finally:
        shutil.rmtree(home, ignore_errors=True)


def run_baseline(env: dict[str, str]) -> Run:
    return run_once([str(PYTHON), "-c", BASELINE], env)


def summary(values: list[float], unit: str = "s", digits: int = 3) -> str:
    return (
        f"median {statistics.median(values):.{digits}f} {unit}, min {min(values):.{digits}f}, "
        f"max {max(values):.{digits}f}"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=7, help="timed cold runs of each (default 7)")
    parser.add_argument("--max-ratio", type=float, default=1.5, help="allowed first paint / baseline (1.5)")
    parser.add_argument(
        "--ready-ratio", type=float, default=2.5, help="allowed 'runtime: ready' / baseline first paint (2.5)"
    )
    parser.add_argument("--no-warmup", action="store_true", help="skip the untimed first run of each (tiny runs)")
    add_json_argument(parser)
    args = parser.parse_args(argv)
    if not APP.exists():
        raise SystemExit(f"{APP} not found: install the project into the venv (pip install -e .)")
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    env.pop("SWITCHBOARD_HOME", None)
    compile_app()  # as installed: no timed start compiles our modules (see _bytecode.py)

    if not args.no_warmup:
        run_baseline(env), run_app(env)  # untimed: warm the page cache and the .pyc files
    baseline: list[Run] = []
    app: list[Run] = []
    for _ in range(args.runs):
        baseline.append(run_baseline(env))
        app.append(run_app(env))

    print(f"{args.runs} cold runs each, offscreen, alternating; times from spawning the process")
    for name, runs in (("bare Qt (QMainWindow + QTextBrowser)", baseline), ("switchboard --smoke-test", app)):
        print(f"{name}:")
        print(f"  first paint      {summary([r.first_paint for r in runs])}")
        print(f"  (self-reported)  {summary([r.self_reported for r in runs])}")
        ready = [r.ready for r in runs if r.ready is not None]
        if ready:
            print(f"  runtime: ready   {summary(ready)}")
        print(f"  process exit     {summary([r.total for r in runs])}")
        print(f"  peak RSS         {summary([r.max_rss_mb for r in runs], 'MB', 1)}")
    base = statistics.median(r.first_paint for r in baseline)
    mine = statistics.median(r.first_paint for r in app)
    rss_ratio = statistics.median(r.max_rss_mb for r in app) / statistics.median(r.max_rss_mb for r in baseline)
    print(f"first paint: app {mine:.3f} s vs baseline {base:.3f} s: +{mine - base:.3f} s, {mine / base:.2f}x")
    print(f"peak RSS: {rss_ratio:.2f}x the baseline (the app's peak includes the runtime, after first paint)")
    ratio = mine / base
    ok = ratio <= args.max_ratio
    print(f"budget: first paint <= {args.max_ratio:g}x the baseline -> {'OK' if ok else 'MISSED'}")
    ready = statistics.median(r.ready for r in app if r.ready is not None)
    ready_ok = ready <= args.ready_ratio * base
    print(
        f"budget: runtime ready {ready:.3f} s = {ready / base:.2f}x the baseline's first paint <= "
        f"{args.ready_ratio:g}x -> {'OK' if ready_ok else 'MISSED'}"
    )
    write_rows(
        args.json,
        [
            Row(
                "start-up to first paint (offscreen)",
                f"{mine:.3f} s",
                f"{base:.3f} s (bare PySide6 window)",
                f"{ratio:.2f}×",
                f"≤ {args.max_ratio:g}×",
                ok,
            ),
            Row(
                "time until a prompt can be sent ('runtime: ready')",
                f"{ready:.3f} s",
                f"{base:.3f} s (the bare window's first paint)",
                f"{ready / base:.2f}×",
                f"≤ {args.ready_ratio:g}×",
                ready_ok,
            ),
        ],
    )
    return 0 if ok and ready_ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
