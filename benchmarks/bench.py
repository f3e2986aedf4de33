"""``make bench``: run every benchmark script and print one table.

Each script measures Switchboard against a baseline in the same run and writes its summary rows
(``--json``, see ``_report.py``): the figure, Switchboard's value, the baseline, the ratio, the budget and
whether it is met. This runs them one after another (each in its own process, so one cannot warm another's
caches), prints their own reports as they go, then the table, and writes the table as Markdown to
``--out`` (default ``benchmarks/results.md``) with the machine and the date. A figure outside its budget
is printed as MISSED, never hidden; a script that fails to produce its rows is reported as such.

    .venv/bin/python benchmarks/bench.py [--only NAME ...] [--out FILE]
    .venv/bin/python benchmarks/bench.py --tiny     # each script once on tiny inputs: keeps them working
                                                     # (``make test``); budgets are not judged
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import sqlite3
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks._bytecode import compile_app
from benchmarks._report import Row, read_rows, verdict

HERE = Path(__file__).resolve().parent


@dataclass(frozen=True)
class Bench:
    script: str
    full: tuple[str, ...] = ()
    tiny: tuple[str, ...] = ()


BENCHES = (
    Bench("startup.py", ("--runs", "7"), ("--runs", "1", "--no-warmup")),
    Bench("idle_memory.py", ("--runs", "3", "--settle", "5"), ("--runs", "1", "--settle", "0.2", "--no-warmup")),
    Bench("memory_servers.py", (), ("--messages", "20", "--conversations", "2", "--floor-settle", "0.2")),
    Bench(
        "soak.py",
        ("--turns", "300", "--warmup", "50"),
        ("--turns", "4", "--warmup", "2", "--per-conversation", "2", "--floor-settle", "0.2"),
    ),
    Bench("stream_render.py", (), ("--tokens", "300")),
    Bench("ttft.py", ("--requests", "60"), ("--requests", "2")),
    Bench("tool_search.py", (), ("--sizes", "1000", "--repeat", "2")),
    Bench("call_overhead.py", (), ("--calls", "40", "--stdio-calls", "20", "--rounds", "2")),
    Bench("open_conversation.py", (), ("--messages", "100", "--trials", "1")),
    Bench("fts_search.py", (), ("--messages", "1000", "--repeat", "1")),
    Bench("forward_launch.py", (), ("--runs", "2")),
    Bench("ask_exit.py", (), ("--runs", "1")),
    Bench("peer_ask.py", ("--runs", "5"), ("--tiny",)),
    Bench("prompt_prefix.py", ("--turns", "30"), ("--turns", "3")),
    Bench("tasks_idle.py", ("--seconds", "300"), ("--seconds", "3")),
    Bench("app_views.py", ("--runs", "3"), ("--runs", "1", "--settle", "0.2", "--counts", "1")),
)


def machine() -> str:
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    try:
        from PySide6 import __version__ as pyside
    except ImportError:
        pyside = "?"
    return (
        f"{os.cpu_count()} CPUs ({cpu}), {platform.system()} {platform.release()}, Python "
        f"{platform.python_version()}, PySide6 {pyside}, SQLite {sqlite3.sqlite_version}"
    )


def run(bench: Bench, tiny: bool) -> tuple[list[Row], int, float]:
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "rows.json"
        argv = [sys.executable, str(HERE / bench.script), *(bench.tiny if tiny else bench.full), "--json", str(out)]
        print(f"\n===== {bench.script} {' '.join(argv[2:-2])}", flush=True)
        started = time.perf_counter()
        env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
        code = subprocess.call(argv, env=env, cwd=HERE.parent)
        elapsed = time.perf_counter() - started
        rows = read_rows(out) if out.exists() else []
    if not rows:
        rows = [Row(bench.script, "no result", note=f"the script exited {code} without its summary", met=False)]
    return rows, code, elapsed


def table(rows: list[Row], judged: bool) -> str:
    lines = [
        "| figure | Switchboard | baseline in the same run | ratio | budget | met |",
        "|---|---|---|---|---|---|",
    ]
    for row in rows:
        met = verdict(row.met) if judged else "(tiny run)"
        note = f" ({row.note})" if row.note else ""
        lines.append(
            f"| {row.figure} | {row.switchboard}{note} | {row.baseline} | {row.ratio} | {row.budget} | {met} |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tiny", action="store_true", help="tiny inputs, budgets not judged (for make test)")
    parser.add_argument("--only", nargs="+", metavar="NAME", help="run only these scripts (e.g. ttft soak)")
    parser.add_argument("--out", type=Path, help="write the table here (default benchmarks/results.md)")
    args = parser.parse_args(argv)
    chosen = [b for b in BENCHES if not args.only or Path(b.script).stem in args.only]
    compile_app()  # our modules' bytecode, as an installed copy has it (see _bytecode.py)
    started = time.perf_counter()
    rows: list[Row] = []
    broken: list[str] = []
    timings: list[str] = []
    for bench in chosen:
        if not (HERE / bench.script).exists():  # a missed figure; in a tiny run, nothing to keep working
            rows.append(Row(bench.script, "not measured", note="the script is missing", met=False))
            if not args.tiny:
                broken.append(bench.script)
            continue
        got, code, elapsed = run(bench, args.tiny)
        timings.append(f"{bench.script} {elapsed:.0f} s")
        rows.extend(got)
        if code not in (0, 1) or any(r.switchboard == "no result" for r in got):
            broken.append(bench.script)
    total = time.perf_counter() - started
    judged = not args.tiny
    when = datetime.date.today().isoformat()
    text = table(rows, judged)
    header = f"Measured {when} on {machine()}; `make bench` took {total / 60:.1f} min ({', '.join(timings)})."
    print(f"\n{header}\n\n{text}\n")
    if not args.tiny:
        out = args.out or HERE / "results.md"
        out.write_text(f"# Benchmark results\n\n{header}\n\n{text}\n", encoding="utf-8")
        print(f"written to {out}")
    missed = [r.figure for r in rows if r.met is False]
    if broken:
        print(f"scripts that did not produce their figures: {', '.join(broken)}")
        return 2
    if judged and missed:
        print(f"{len(missed)} figure(s) outside their budget: {'; '.join(missed)}")
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
