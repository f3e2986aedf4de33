"""MCP App views (issue 26): time to visible and memory of one and of five views, against a bare
``QWebEngineView`` showing the same HTML, side by side in one run.

Each measurement is a fresh process (offscreen; Qt WebEngine's own processes included): Switchboard's side makes
``--views`` sandboxed ``AppWebView``s (the off-the-record profile, the outer page, the view's document in its
iframe with its CSP, the web channel) and counts a view visible when its script has run (its ``ui/initialize``
reached the host); the bare side makes as many ``QWebEngineView``s with ``setHtml`` of the same document and
counts one visible at ``loadFinished``. Time to visible is from the first view's creation to the last one
visible (the engine's start included); RSS is the whole process tree's (the app and Chromium's zygote,
renderer and GPU processes) after ``--settle`` seconds. Informational rows: the issue sets no bound.

    .venv/bin/python benchmarks/app_views.py [--runs 3] [--settle 1.0] [--json FILE]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks._report import Row, add_json_argument, median, write_rows

ROOT = Path(__file__).resolve().parents[1]


def tree_rss_mb(pid: int) -> float:
    """RSS of ``pid`` and all its descendants (MB)."""
    total = 0
    pending = [pid]
    while pending:
        current = pending.pop()
        try:
            for line in Path(f"/proc/{current}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1])
            for task in Path(f"/proc/{current}/task").iterdir():
                pending.extend(int(c) for c in (task / "children").read_text().split())
        except OSError:
            continue
    return total / 1024


def child(side: str, views: int, settle: float) -> None:
    """One measurement, printed as JSON: ``{"visible_s": …, "rss_mb": …}``."""
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtCore import QCoreApplication, Qt, QTimer
    from PySide6.QtWidgets import QApplication

    QCoreApplication.setAttribute(Qt.ApplicationAttribute.AA_ShareOpenGLContexts)
    app = QApplication([])
    from desktop_app.runtime.apps.meta import ResourceCsp
    from desktop_app.ui.apps.engine import load_engine
    from desktop_app.ui.apps.html import view_document
    from tests.support.apps.probe_server import HTML

    load_engine()  # the same Chromium flags for both sides
    from PySide6.QtWebEngineWidgets import QWebEngineView

    from desktop_app.ui.apps.web_view import AppWebView

    visible: list[float] = []
    keep: list[object] = []
    start = time.perf_counter()

    def done() -> None:
        visible.append(time.perf_counter() - start)
        if len(visible) == views:
            QTimer.singleShot(int(settle * 1000), app.quit)

    for _ in range(views):
        view: QWebEngineView
        if side == "switchboard":
            ours = AppWebView(ResourceCsp())
            view = ours
            document = view_document(HTML, ResourceCsp())
            ours.host.page_ready.connect(lambda v=ours, d=document: v.host.loadView.emit(d))
            seen = [False]

            def received(text: str, seen: list[bool] = seen) -> None:
                if not seen[0] and '"ui/initialize"' in text:
                    seen[0] = True
                    done()

            ours.host.received.connect(received)
        else:
            bare = QWebEngineView()
            bare.loadFinished.connect(lambda _ok: done())
            bare.setHtml(HTML)
            view = bare
        view.resize(600, 300)
        view.show()
        keep.append(view)
    QTimer.singleShot(60_000, app.quit)
    app.exec()
    took = max(visible) if len(visible) == views else None
    print(json.dumps({"visible_s": took, "rss_mb": tree_rss_mb(os.getpid())}))


def measure(side: str, views: int, settle: float) -> dict[str, float]:
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, __file__, "--child", side, "--views", str(views), "--settle", str(settle)],
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )
    lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
    if done.returncode != 0 or not lines:
        raise RuntimeError(f"{side} with {views} views failed: {done.stderr[-1500:]}")
    result: dict[str, float] = json.loads(lines[-1])
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--settle", type=float, default=1.0)
    parser.add_argument("--counts", type=int, nargs="+", default=[1, 5])
    parser.add_argument("--child", choices=("switchboard", "bare"))
    parser.add_argument("--views", type=int, default=1)
    add_json_argument(parser)
    args = parser.parse_args(argv)
    if args.child:
        child(args.child, args.views, args.settle)
        return 0
    rows: list[Row] = []
    for count in args.counts:
        got: dict[str, list[dict[str, float]]] = {"switchboard": [], "bare": []}
        for _ in range(args.runs):
            for side in ("switchboard", "bare"):  # alternating: neither side always runs on a warmer machine
                got[side].append(measure(side, count, args.settle))
        label = "1 view" if count == 1 else f"{count} views"
        for key, what, unit in (("visible_s", "time to visible", "s"), ("rss_mb", "RSS (process tree)", "MB")):
            ours = median([m[key] for m in got["switchboard"]])
            bare = median([m[key] for m in got["bare"]])
            digits = 2 if unit == "s" else 0
            print(f"{label}: {what}: Switchboard {ours:.{digits}f} {unit}, bare view {bare:.{digits}f} {unit}")
            rows.append(
                Row(
                    f"App views: {what}, {label}",
                    f"{ours:.{digits}f} {unit}",
                    f"{bare:.{digits}f} {unit} (bare QWebEngineView)",
                    f"{ours / bare:.2f}×" if bare else "—",
                    note=f"median of {args.runs}; the sandbox, CSP and bridge vs setHtml of the same HTML",
                )
            )
    write_rows(args.json, rows)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
