"""Start-up of the frozen app (``dist/switchboard/switchboard``) next to the source run (``.venv/bin/switchboard``),
measured in the same run, plus the size of every artefact ``make package`` built.

Both sides run ``--smoke-test`` with a fresh ``--home`` each time, offscreen, alternating (source, frozen,
source, …) after one untimed run of each; times are taken by this script from spawning the process (the same
``run_once`` as ``benchmarks/startup.py``): to the ``startup:`` line (first paint), to ``runtime: ready``, and
to exit, with the child's peak RSS. The report (``--report FILE``, JSON) feeds the install page (docs/install.md).

    .venv/bin/python benchmarks/frozen_startup.py [--runs 5] [--report dist/package-report.json]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "packaging"))
import linux
import project
from startup import APP as SOURCE_APP
from startup import Run, run_once

FROZEN_APP = project.ROOT / "dist" / project.EXE_NAME / project.EXE_NAME


def smoke(app: Path, env: dict[str, str]) -> Run:
    home = tempfile.mkdtemp(prefix="switchboard-frozen-startup-")
    try:
        return run_once([str(app), "--smoke-test", "--home", home], {**env, "SWITCHBOARD_HOME": home})
    finally:
        shutil.rmtree(home, ignore_errors=True)


def median(runs: list[Run], attr: str) -> float:
    return statistics.median(getattr(r, attr) for r in runs if getattr(r, attr) is not None)


def artefact_sizes(version: str) -> dict[str, float]:
    dist = project.ROOT / "dist"
    folder = dist / project.EXE_NAME
    sizes = {
        f"{folder.name}/ (frozen folder)": sum(
            p.stat().st_size for p in folder.rglob("*") if p.is_file() and not p.is_symlink()
        ),
    }
    for path in (dist / linux.deb_name(version), dist / linux.tar_name(version)):
        if path.exists():
            sizes[path.name] = path.stat().st_size
    standin = project.ROOT / "build" / "nsis-standin" / f"Switchboard-{version}-windows-setup-STANDIN.exe"
    if standin.exists():
        sizes[f"{standin.name} (NSIS, Linux stand-in payload, uncompressed)"] = standin.stat().st_size
    return {name: round(size / 10**6, 1) for name, size in sizes.items()}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5, help="timed runs of each (default 5)")
    parser.add_argument("--report", type=Path, help="write the figures as JSON here")
    args = parser.parse_args()
    for app in (SOURCE_APP, FROZEN_APP):
        if not app.exists():
            raise SystemExit(f"{app} not found: run `make package` first")
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    env.pop("SWITCHBOARD_HOME", None)
    smoke(SOURCE_APP, env), smoke(FROZEN_APP, env)  # untimed: page cache, .pyc files
    source: list[Run] = []
    frozen: list[Run] = []
    for _ in range(args.runs):
        source.append(smoke(SOURCE_APP, env))
        frozen.append(smoke(FROZEN_APP, env))
    version = project.version()
    report = {
        "version": version,
        "runs": args.runs,
        "startup_s": {
            name: {
                "first_paint": round(median(runs, "first_paint"), 3),
                "runtime_ready": round(median(runs, "ready"), 3),
                "exit": round(median(runs, "total"), 3),
                "peak_rss_mb": round(median(runs, "max_rss_mb"), 1),
            }
            for name, runs in (("source", source), ("frozen", frozen))
        },
        "sizes_mb": artefact_sizes(version),
    }
    print(f"{args.runs} runs each of --smoke-test, offscreen, alternating; medians from spawning the process")
    print(f"{'':10} {'first paint':>12} {'runtime ready':>14} {'exit':>8} {'peak RSS':>10}")
    for name, figures in report["startup_s"].items():  # type: ignore[union-attr]
        print(
            f"{name:10} {figures['first_paint']:>10.3f} s {figures['runtime_ready']:>12.3f} s "
            f"{figures['exit']:>6.3f} s {figures['peak_rss_mb']:>7.1f} MB"
        )
    for name, size in report["sizes_mb"].items():  # type: ignore[union-attr]
        print(f"  {size:>7.1f} MB  {name}")
    if args.report:
        args.report.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
        print(f"report: {args.report}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
