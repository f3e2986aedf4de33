"""Runs the real app in this process (offscreen): ``desktop_app.app.App`` with its ``MainWindow``, the real
assembly (settings, mcp.json, store, Host, built-ins) under a given home, on the qasync loop.

``run_in_app(home, scenario)`` starts it like ``switchboard --home HOME`` does, waits until the runtime is
attached and every configured MCP server has settled (ready or failed), awaits ``scenario(app)``, then
closes the window and lets the app shut down in order. Benchmarks drive the window through the same
methods a click reaches (``open_conversation``, the composer's ``submitted`` signal).
"""

from __future__ import annotations

import asyncio
import os
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, TypeVar

T = TypeVar("T")


def rss_mb(pid: int | None = None) -> float:
    for line in Path(f"/proc/{pid or os.getpid()}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS")


def child_pids(pid: int | None = None) -> list[int]:
    """Direct children of ``pid`` (this process by default), from ``/proc``."""
    parent = pid or os.getpid()
    out = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == parent:
                out.append(int(entry.name))
    return out


def descendants_rss_mb(pid: int | None = None) -> dict[int, float]:
    out: dict[int, float] = {}
    todo = child_pids(pid)
    while todo:
        child = todo.pop()
        try:
            out[child] = rss_mb(child)
        except (OSError, RuntimeError):
            continue
        todo.extend(child_pids(child))
    return out


async def wait_until(condition: Callable[[], bool], seconds: float, what: str) -> None:
    """Poll ``condition`` on the event loop (a benchmark's wait for the app, not a test's synchronisation)."""
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            raise SystemExit(f"timed out after {seconds:g} s waiting for {what}")
        await asyncio.sleep(0.02)


def run_in_app(home: Path, scenario: Callable[[Any], Awaitable[T]], *, server_timeout: float = 60.0) -> T:
    os.environ["SWITCHBOARD_HOME"] = str(home)
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from desktop_app.ui.qt_imports import lighten_feature_hook

    lighten_feature_hook()  # as ``desktop_app.app.main`` does before anything else is imported
    from PySide6.QtWidgets import QApplication

    from desktop_app.app import App
    from desktop_app.paths import app_paths
    from desktop_app.ui.qt_loop import EventLoop
    from desktop_app.ui.window.main_window import MainWindow

    paths = app_paths().ensure()
    qapp = QApplication.instance() or QApplication([sys.argv[0]])
    assert isinstance(qapp, QApplication)
    qapp.setQuitOnLastWindowClosed(False)
    loop = EventLoop(qapp)
    asyncio.set_event_loop(loop)
    window = MainWindow()
    window.resize(980, 760)
    app = App(qapp, window, paths, time.perf_counter(), smoke=False)

    async def main() -> T:
        running = asyncio.ensure_future(app.run())
        try:
            await wait_until(lambda: app.runtime is not None or running.done(), 60, "the runtime")
            if running.done():
                raise SystemExit(f"the app stopped during start-up (exit {running.result()})")
            host = app.runtime.host

            def settled() -> bool:
                return all(s.builtin or s.state in ("ready", "failed", "disabled") for s in host.states().values())

            await wait_until(settled, server_timeout, "the MCP servers to start")
            return await scenario(app)
        finally:
            window.close()
            await running

    try:
        with loop:
            return loop.run_until_complete(main())
    finally:
        asyncio.set_event_loop(None)


def write_settings(home: Path, settings: dict[str, Any]) -> None:
    import json

    config = home / "config"
    config.mkdir(parents=True, exist_ok=True)
    (config / "settings.json").write_text(json.dumps(settings), encoding="utf-8")


def write_mcp_config(home: Path, servers: dict[str, Any]) -> None:
    import json

    config = home / "config"
    config.mkdir(parents=True, exist_ok=True)
    (config / "mcp.json").write_text(json.dumps({"mcpServers": servers}), encoding="utf-8")
