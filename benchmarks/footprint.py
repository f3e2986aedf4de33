"""Where the app's memory and start-up time go: the app's start-up sequence, step by step, in one process.

Each step is what ``desktop_app.app`` does, in its order; after each, the resident set (``VmRSS``), the
Python heap that ``tracemalloc`` sees, and the wall time are printed, with the modules the step imported
(counted, and the ten heaviest packages by import time under ``-X importtime``-like accounting). The stack
floor's imports (mcp, httpx, httpx-sse, pydantic, keyring, markdown-it-py, pygments, sqlite3, qasync — the
``idle_memory.py`` floor) come first, so everything after them is Switchboard's own cost. Informational:
``docs/performance.md`` records a run.

    .venv/bin/python benchmarks/footprint.py [--json FILE]
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import importlib
import os
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks._app_harness import rss_mb
from benchmarks._report import Row, add_json_argument, write_rows

STACK = [
    "sqlite3", "httpx", "httpx_sse", "pydantic", "keyring", "markdown_it", "pygments", "pygments.lexers",
    "qasync", "mcp", "mcp.client.stdio", "mcp.client.streamable_http", "mcp.server.mcpserver",
    "PySide6.QtWidgets",
]  # fmt: skip


class Steps:
    def __init__(self) -> None:
        self.rows: list[tuple[str, float, float, float, int]] = []
        self.modules = set(sys.modules)
        self.last_rss = rss_mb()
        self.last_heap = tracemalloc.get_traced_memory()[0] / 2**20
        self.new_by_step: dict[str, list[str]] = {}

    def step(self, name: str, action: Callable[[], Any]) -> Any:
        started = time.perf_counter()
        result = action()
        elapsed = time.perf_counter() - started
        gc.collect()
        rss = rss_mb()
        heap = tracemalloc.get_traced_memory()[0] / 2**20
        new = sorted(set(sys.modules) - self.modules)
        self.modules |= set(new)
        self.new_by_step[name] = new
        self.rows.append((name, rss - self.last_rss, heap - self.last_heap, elapsed * 1000, len(new)))
        self.last_rss, self.last_heap = rss, heap
        return result

    def report(self) -> None:
        print(f"{'step':<52} {'RSS +MB':>8} {'heap +MB':>9} {'ms':>7} {'modules':>8}")
        for name, rss, heap, ms, count in self.rows:
            print(f"{name:<52} {rss:>8.1f} {heap:>9.1f} {ms:>7.0f} {count:>8}")
        print(f"{'resident set at the end':<52} {rss_mb():>8.1f}")


def top_packages(modules: list[str], limit: int = 8) -> str:
    counts: dict[str, int] = {}
    for name in modules:
        top = ".".join(name.split(".")[:2]) if name.startswith("desktop_app") else name.split(".")[0]
        counts[top] = counts.get(top, 0) + 1
    ranked = sorted(counts.items(), key=lambda kv: -kv[1])[:limit]
    return ", ".join(f"{name} ({n})" for name, n in ranked)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--shiboken-hook-as-shipped", action="store_true", help="leave PySide6's import hook as is")
    add_json_argument(parser)
    args = parser.parse_args(argv)
    home = tempfile.mkdtemp(prefix="switchboard-footprint-")
    os.environ["SWITCHBOARD_HOME"] = home
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    tracemalloc.start()
    steps = Steps()
    if "--shiboken-hook-as-shipped" not in sys.argv:
        from desktop_app.ui.qt_imports import lighten_feature_hook

        lighten_feature_hook()
    steps.step("the stack floor's imports", lambda: [importlib.import_module(m) for m in STACK])
    floor = rss_mb()
    steps.step(
        "desktop_app.app and the window's modules", lambda: importlib.import_module("desktop_app.ui.window.main_window")
    )

    from PySide6.QtWidgets import QApplication

    from desktop_app.paths import app_paths
    from desktop_app.ui.asyncqt import first_paint
    from desktop_app.ui.qt_loop import EventLoop
    from desktop_app.ui.window.main_window import MainWindow

    qapp = steps.step("QApplication", lambda: QApplication.instance() or QApplication([sys.argv[0]]))
    loop = EventLoop(qapp)
    asyncio.set_event_loop(loop)
    window = steps.step("MainWindow()", MainWindow)

    def paint() -> None:
        painted = first_paint(window)
        window.show()
        loop.run_until_complete(painted)

    steps.step("show and first paint", paint)
    paths = app_paths().ensure()
    steps.step("import the runtime (service, host)", lambda: [importlib.import_module(m) for m in (
        "desktop_app.runtime.service", "desktop_app.runtime.host")])  # fmt: skip
    from desktop_app.assembly import assemble

    assembly = steps.step(
        "assemble(): settings, mcp.json, store, Host, built-ins", lambda: assemble(paths, strict=False)
    )

    def attach() -> None:
        window.attach_runtime(assembly.runtime)
        if assembly.store is not None:
            window.attach_store(assembly.store)
        window.attach_host(assembly.host, credentials=assembly.runtime.credentials, mcp_config=paths.mcp_config_file)

    steps.step("attach runtime, store and host to the window", attach)
    steps.step("two seconds of idle event loop", lambda: loop.run_until_complete(asyncio.sleep(2)))
    steps.report()
    print(f"\nabove the stack floor's imports: {rss_mb() - floor:+.1f} MB")
    for name, new in steps.new_by_step.items():
        if new:
            print(f"  {name}: {len(new)} modules — {top_packages(new)}")
    snapshot = tracemalloc.take_snapshot()
    print("\nlargest Python allocations by file (tracemalloc):")
    for stat in snapshot.statistics("filename")[:15]:
        frame = stat.traceback[0]
        short = frame.filename.split("site-packages/")[-1].split("/work/")[-1]
        print(f"  {stat.size / 2**20:6.2f} MB  {short}")
    loop.run_until_complete(assembly.aclose())
    window.close()
    write_rows(args.json, [Row("start-up footprint above the stack floor's imports", f"{rss_mb() - floor:+.0f} MB")])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
