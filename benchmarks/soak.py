"""Memory over a soak: scripted turns with tool calls and streamed answers in one app session.

The real app runs in this process (``_app_harness``: ``App``, ``MainWindow``, the real assembly and store,
offscreen) against the loopback LLM server (real sockets, the real OpenAI SSE wire format). Each turn is
typed into the composer and sent with its button: the model first calls the built-in ``current_time``
(``switchboard.system``, in-process, read-only so it runs without asking), then streams a markdown answer
of a few hundred tokens. Every ``--per-conversation`` turns a new chat starts (Ctrl+N), as people do.

The app's resident set is read after every turn. The reading after the first turn (the SDK loaded, one
conversation, one tool call) is also the "idle RSS after first use" row, against the stack floor measured in
the same run (``idle_memory.py``); budget **≤ the floor + 20 MB**. After ``--warmup`` turns, a least-squares
line through the readings gives the growth rate; **growth = slope × the turns after warm-up**. Budget: **≤ 5 MB**.

With ``--trace N`` (a separate run: tracing slows every allocation and adds its own memory), ``tracemalloc``
keeps N frames per allocation; snapshots after the warm-up and at the end are compared and the allocation
sites that grew most are printed, each with its innermost frames (``docs/performance.md`` records a run).

    .venv/bin/python benchmarks/soak.py [--turns 300] [--warmup 50] [--per-conversation 10] [--trace 12] [--json FILE]
"""

from __future__ import annotations

import argparse
import gc
import os
import shutil
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks._app_harness import rss_mb, run_in_app, wait_until, write_settings
from benchmarks._report import Row, add_json_argument, write_rows
from benchmarks.idle_memory import stack_floor_mb
from tests.support.llm_server import ScriptedLLMServer, text_reply, tool_call_reply

BUDGET_MB = 5.0
FIRST_USE_OVER_FLOOR_MB = 20.0
ANSWER = (
    "## It is {n} o'clock somewhere\n\nThe **current time** came back from the tool. Here is a short list:\n\n"
    "- first point about `time`\n- second point, with a [link](https://example.com)\n\n"
    "```python\nimport datetime\nprint(datetime.datetime.now())\n```\n\n| zone | offset |\n|---|---|\n| UTC | 0 |\n\n"
    + "More words follow to make a realistic answer of a few hundred tokens. "
    * 12
)


def slope(values: list[float]) -> float:
    """Least-squares slope per step."""
    n = len(values)
    mean_x = (n - 1) / 2
    mean_y = sum(values) / n
    num = sum((i - mean_x) * (v - mean_y) for i, v in enumerate(values))
    den = sum((i - mean_x) ** 2 for i in range(n))
    return num / den if den else 0.0


def report_growth(before: tracemalloc.Snapshot, after: tracemalloc.Snapshot, turns: int) -> None:
    """The allocation sites whose live memory grew most between the two snapshots, with their frames."""
    keep = [tracemalloc.Filter(False, tracemalloc.__file__), tracemalloc.Filter(False, "<frozen importlib._bootstrap>")]
    diffs = after.filter_traces(keep).compare_to(before.filter_traces(keep), "traceback")
    total = sum(d.size_diff for d in diffs)
    print(f"tracemalloc: Python heap {total / 1e6:+.2f} MB over {turns} turns; the sites that grew most:")
    for diff in sorted(diffs, key=lambda d: d.size_diff, reverse=True)[:12]:
        print(f"  {diff.size_diff / 1e3:+9.1f} KB  {diff.count_diff:+7d} blocks")
        for frame in list(diff.traceback)[-6:]:
            print(f"        {frame.filename}:{frame.lineno}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--turns", type=int, default=300)
    parser.add_argument("--warmup", type=int, default=50)
    parser.add_argument("--per-conversation", type=int, default=10)
    parser.add_argument("--trace", type=int, default=0, metavar="FRAMES", help="tracemalloc growth by site")
    parser.add_argument("--floor-settle", type=float, default=5.0, help="idle seconds of the stack floor (5)")
    add_json_argument(parser)
    args = parser.parse_args(argv)
    home = Path(tempfile.mkdtemp(prefix="switchboard-soak-"))
    key_env = "SWITCHBOARD_BENCH_KEY"
    os.environ[key_env] = "sk-bench"
    try:
        with ScriptedLLMServer() as llm:
            write_settings(home, {"provider": {"base_url": llm.url, "model": "m", "api_key_env": key_env}})

            async def scenario(app: Any) -> tuple[list[float], float]:
                window = app.window
                readings: list[float] = []
                before: tracemalloc.Snapshot | None = None
                if args.trace:
                    tracemalloc.start(args.trace)
                started = time.perf_counter()
                for turn in range(args.turns):
                    if turn and turn % args.per_conversation == 0:
                        window.new_chat_action.trigger()
                    llm.enqueue(
                        tool_call_reply([(f"call_{turn}", "current_time", {})]),
                        text_reply(ANSWER.format(n=turn % 12 + 1), piece=4),
                    )
                    window.composer.edit.setPlainText(f"What time is it? (turn {turn})")
                    window.composer.button.click()
                    await wait_until(lambda: window.controller.busy, 30, f"turn {turn} to start")
                    await wait_until(lambda: not window.controller.busy, 60, f"turn {turn} to finish")
                    if llm.pending:
                        raise SystemExit(f"turn {turn}: the app did not make both requests")
                    llm.requests.clear()  # the server's records of requests and writes live in this process too
                    llm.writes.clear()
                    gc.collect()
                    readings.append(rss_mb())
                    if args.trace and turn + 1 == args.warmup:
                        before = tracemalloc.take_snapshot()
                if before is not None:
                    report_growth(before, tracemalloc.take_snapshot(), args.turns - args.warmup)
                return readings, time.perf_counter() - started

            readings, elapsed = run_in_app(home, scenario)
    finally:
        shutil.rmtree(home, ignore_errors=True)
    floor = stack_floor_mb(args.floor_settle)
    first_use = readings[0]
    first_ok = first_use <= floor + FIRST_USE_OVER_FLOOR_MB
    after = readings[args.warmup :]
    per_turn = slope(after)
    growth = per_turn * len(after)
    ok = growth <= BUDGET_MB
    print(
        f"{args.turns} turns (tool call + streamed answer each) in {elapsed:.0f} s, new chat every "
        f"{args.per_conversation}"
    )
    print(
        f"RSS: {readings[0]:.1f} MB after turn 1, {readings[args.warmup - 1]:.1f} MB after warm-up "
        f"({args.warmup} turns), {readings[-1]:.1f} MB at the end (max {max(readings):.1f})"
    )
    print(f"slope after warm-up: {per_turn * 1000:.1f} KB/turn -> growth {growth:+.1f} MB over {len(after)} turns")
    print(f"budget: growth <= {BUDGET_MB:g} MB -> {'OK' if ok else 'MISSED'}")
    print(
        f"after first use (turn 1): {first_use:.1f} MB vs stack floor {floor:.1f} MB: {first_use - floor:+.1f} MB; "
        f"budget <= floor + {FIRST_USE_OVER_FLOOR_MB:g} MB -> {'OK' if first_ok else 'MISSED'}"
    )
    write_rows(
        args.json,
        [
            Row(
                f"memory over a soak of {args.turns} turns (tool call + streamed answer each)",
                f"{growth:+.1f} MB after warm-up",
                f"{readings[args.warmup - 1]:.0f} → {readings[-1]:.0f} MB",
                f"{per_turn * 1000:.0f} KB/turn",
                f"growth ≤ {BUDGET_MB:g} MB",
                ok,
            ),
            Row(
                "RSS after first use (SDK loaded, one conversation, one tool call)",
                f"{first_use:.0f} MB",
                f"floor {floor:.0f} MB",
                f"{first_use - floor:+.0f} MB over floor",
                f"≤ floor + {FIRST_USE_OVER_FLOOR_MB:g} MB",
                first_ok,
                note="in-process harness",
            ),
        ],
    )
    return 0 if ok and first_ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
