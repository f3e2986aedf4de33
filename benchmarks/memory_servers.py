"""Resident memory of the real app with three stdio MCP servers and ten 1,000-message conversations opened
in turn.

A fresh home holds an ``mcp.json`` with three stdio servers (``benchmarks/_echo_server.py``, each its own
Python process) and a store with ten conversations of ``--messages`` messages (chat-like answers with code
blocks and lists, through the ``Store`` API). The real app runs in this process (``_app_harness``: ``App``,
``MainWindow``, the real assembly, offscreen). Once the servers are ready, each conversation is opened in
turn through ``MainWindow.open_conversation`` (what a click in the list calls) and painted; after the last
one the app's own resident set (``VmRSS``) is read, and the servers' are listed apart. The baseline, in the
same run, is the stack floor (``idle_memory.py``: a window in a process that has imported the stack). Budget:
**the app process ≤ the stack floor + 30 MB** (issue 27; it was an absolute 250 MB).

    .venv/bin/python benchmarks/memory_servers.py [--messages 1000] [--conversations 10] [--json FILE]
"""

from __future__ import annotations

import argparse
import gc
import os
import random
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks._app_harness import descendants_rss_mb, rss_mb, run_in_app, write_mcp_config
from benchmarks._corpus import fill_conversation
from benchmarks._report import Row, add_json_argument, write_rows
from benchmarks.idle_memory import stack_floor_mb

BUDGET_OVER_FLOOR_MB = 30.0
ECHO_SERVER = Path(__file__).resolve().parent / "_echo_server.py"


def build_home(home: Path, conversations: int, messages: int) -> list[str]:
    from desktop_app.paths import app_paths
    from desktop_app.runtime.store import Store, store_path

    write_mcp_config(home, {f"echo{n}": {"command": sys.executable, "args": [str(ECHO_SERVER)]} for n in range(1, 4)})
    os.environ["SWITCHBOARD_HOME"] = str(home)
    store = Store.open(store_path(app_paths().ensure()))
    ids = [f"conversation-{n:02d}" for n in range(conversations)]
    try:
        rng = random.Random(11)
        for cid in ids:
            fill_conversation(store, cid, messages, rng)
    finally:
        store.close()
    return ids


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--messages", type=int, default=1000)
    parser.add_argument("--conversations", type=int, default=10)
    parser.add_argument("--floor-settle", type=float, default=5.0, help="idle seconds of the stack floor (5)")
    add_json_argument(parser)
    args = parser.parse_args(argv)
    home = Path(tempfile.mkdtemp(prefix="switchboard-memory-"))
    try:
        ids = build_home(home, args.conversations, args.messages)

        async def scenario(app: Any) -> tuple[float, float, dict[int, float], list[str]]:
            from desktop_app.ui.asyncqt import first_paint

            ready = [name for name, s in app.runtime.host.states().items() if s.state == "ready"]
            before = rss_mb()
            for cid in ids:
                painted = first_paint(app.window)
                app.window.open_conversation(cid)
                app.window.update()
                await painted
            gc.collect()
            return before, rss_mb(), descendants_rss_mb(), ready

        before, after, servers, ready = run_in_app(home, scenario)
    finally:
        shutil.rmtree(home, ignore_errors=True)
    floor = stack_floor_mb(args.floor_settle)
    ok = after <= floor + BUDGET_OVER_FLOOR_MB and len(ready) == 3
    print(f"servers ready: {', '.join(ready) or 'none'}")
    print(
        f"app RSS: {before:.1f} MB with the servers ready, {after:.1f} MB after opening {len(ids)} "
        f"conversations of {args.messages} messages in turn"
    )
    for pid, mb in sorted(servers.items()):
        print(f"  server process {pid}: {mb:.1f} MB")
    print(f"servers in all: {sum(servers.values()):.1f} MB (not counted in the app's figure)")
    print(f"stack floor (same run): {floor:.1f} MB; app {after - floor:+.1f} MB over it")
    print(f"budget: app <= stack floor + {BUDGET_OVER_FLOOR_MB:g} MB -> {'OK' if ok else 'MISSED'}")
    write_rows(
        args.json,
        [
            Row(
                f"RSS, 3 stdio servers + {len(ids)} conversations of {args.messages:,} messages opened",
                f"{after:.0f} MB",
                f"floor {floor:.0f} MB",
                f"{after - floor:+.0f} MB over floor",
                f"≤ floor + {BUDGET_OVER_FLOOR_MB:g} MB",
                ok,
                note=f"servers apart: {sum(servers.values()):.0f} MB in {len(servers)} processes",
            )
        ],
    )
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
