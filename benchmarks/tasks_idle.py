"""Idle cost of scheduled tasks: the real app (offscreen, real MainWindow and assembly) with 20 scheduled tasks
against the same app with none, side by side in one run.

Each side is a fresh process (alternating, ``--runs`` rounds) running the app in-process (``_app_harness``)
under a fresh home whose store holds the tasks (daily, weekly and monthly, none due during the window). Once
the app is ready it idles ``--seconds``; over that window the process's CPU time (``utime + stime`` of
``/proc/self/stat``) and its wake-ups (the sum of ``voluntary_ctxt_switches`` over ``/proc/self/task/*``)
are read, and the scheduler's own loop wake-ups are counted. Budget: with tasks, **wake-ups ≤ without × 1.1 + 10**
and **CPU ≤ without × 1.1 + 20 ms** (one timer for the next due task, no polling), and no scheduler wake-up in
a window shorter than its 15-minute cap.

    .venv/bin/python benchmarks/tasks_idle.py [--seconds 300] [--runs 1] [--tasks 20] [--json FILE]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks._report import Row, add_json_argument, write_rows


def cpu_ms() -> float:
    fields = Path("/proc/self/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) * 1000 / os.sysconf("SC_CLK_TCK")


def wakeups() -> int:
    total = 0
    for task in Path("/proc/self/task").iterdir():
        try:
            for line in (task / "status").read_text().splitlines():
                if line.startswith("voluntary_ctxt_switches:"):
                    total += int(line.split()[1])
        except OSError:
            continue
    return total


def seed_tasks(home: Path, count: int) -> None:
    from desktop_app.paths import app_paths
    from desktop_app.runtime.store import Store, store_path
    from desktop_app.runtime.tasks.model import make_task
    from desktop_app.runtime.tasks.records import TaskRecords

    paths = app_paths(home).ensure()
    now = time.time()
    shapes = ("{m} {h} * * *", "{m} {h} * * 1-5", "{m} {h} 1 * *", "{m} {h} * * 0,6")
    with Store.open(store_path(paths)) as store:
        records = TaskRecords(store)
        for n in range(count):
            hour = (time.gmtime(now).tm_hour + 12 + n % 6) % 24  # at least six hours away: none fires while idle
            cron = shapes[n % len(shapes)].format(m=n % 60, h=hour)
            records.save(make_task(name=f"task {n}", prompt="Summarise", schedule=cron, zone="UTC", now=now))


def child(tasks: int, seconds: float) -> dict[str, float]:
    """In a fresh process: the app with ``tasks`` scheduled tasks, idle for ``seconds``."""
    import asyncio

    from benchmarks._app_harness import run_in_app, write_settings

    home = Path(tempfile.mkdtemp(prefix="sb-tasks-idle-"))
    write_settings(home, {"provider": {"base_url": "http://127.0.0.1:9/v1", "model": "m"}})
    seed_tasks(home, tasks)

    async def scenario(app: Any) -> dict[str, float]:
        assembly = app.assembly
        scheduled = assembly.tasks
        await asyncio.sleep(1.0)  # start-up settles (the scheduler starts after the servers)
        assert scheduled is not None and len(scheduled.all()) == tasks
        before_cpu, before_wake, before_loop = cpu_ms(), wakeups(), scheduled.scheduler.wakeups
        await asyncio.sleep(seconds)  # the idle window being measured
        return {
            "cpu_ms": cpu_ms() - before_cpu,
            "wakeups": wakeups() - before_wake,
            "scheduler_wakeups": scheduled.scheduler.wakeups - before_loop,
        }

    return run_in_app(home, scenario)


def measure(tasks: int, seconds: float) -> dict[str, float]:
    argv = [sys.executable, __file__, "--child", str(tasks), "--seconds", str(seconds)]
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    done = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=seconds + 180, check=False)
    lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
    if done.returncode != 0 or not lines:
        raise SystemExit(f"the app with {tasks} tasks failed (exit {done.returncode}):\n{done.stderr[-2000:]}")
    result: dict[str, float] = json.loads(lines[-1])
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=300.0)
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--tasks", type=int, default=20)
    parser.add_argument("--child", type=int, default=None, help=argparse.SUPPRESS)
    add_json_argument(parser)
    args = parser.parse_args(argv)
    if args.child is not None:
        print(json.dumps(child(args.child, args.seconds)), flush=True)
        return 0
    without: list[dict[str, float]] = []
    with_tasks: list[dict[str, float]] = []
    for _ in range(max(1, args.runs)):
        without.append(measure(0, args.seconds))
        with_tasks.append(measure(args.tasks, args.seconds))

    def mean(side: list[dict[str, float]], key: str) -> float:
        return sum(r[key] for r in side) / len(side)

    cpu_a, cpu_b = mean(with_tasks, "cpu_ms"), mean(without, "cpu_ms")
    wake_a, wake_b = mean(with_tasks, "wakeups"), mean(without, "wakeups")
    loop_a = mean(with_tasks, "scheduler_wakeups")
    window = f"{args.seconds:g} s"
    print(f"idle {window}, {args.runs} run(s): CPU {cpu_a:.0f} ms with {args.tasks} tasks vs {cpu_b:.0f} ms without")
    print(f"wake-ups (voluntary context switches, all threads): {wake_a:.0f} vs {wake_b:.0f}")
    print(f"scheduler loop wake-ups with tasks: {loop_a:.0f}")
    wake_met = wake_a <= wake_b * 1.1 + 10 and (args.seconds >= 900 or loop_a == 0)
    cpu_met = cpu_a <= cpu_b * 1.1 + 20
    rows = [
        Row(
            f"Idle wake-ups over {window}, {args.tasks} scheduled tasks vs none",
            f"{wake_a:.0f}",
            f"{wake_b:.0f}",
            f"{wake_a / wake_b:.2f}×" if wake_b else "—",
            "≤ none × 1.1 + 10",
            wake_met,
            note=f"scheduler loop woke {loop_a:.0f} time(s)",
        ),
        Row(
            f"Idle CPU over {window}, {args.tasks} scheduled tasks vs none",
            f"{cpu_a:.0f} ms",
            f"{cpu_b:.0f} ms",
            f"{cpu_a / cpu_b:.2f}×" if cpu_b else "—",
            "≤ none × 1.1 + 20 ms",
            cpu_met,
        ),
    ]
    write_rows(args.json, rows)
    return 0 if wake_met and cpu_met else 1


if __name__ == "__main__":
    raise SystemExit(main())
