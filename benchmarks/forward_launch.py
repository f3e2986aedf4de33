"""The second launch's forward time: ``switchboard --home H [--quick]`` while a first instance runs on H.

Starts the real app offscreen on a fresh home folder, waits until it answers on its single-instance socket,
then times N second launches from spawn to exit (the console script, as an OS shortcut would run it): a
plain one (raises the window) and ``--quick`` (opens the quick prompt). The baseline, measured in the same
run, is a bare ``python -c pass`` of the same interpreter: the part of the time no code of ours can save.
Prints median and p95 and exits 1 if either is over the budget (200 ms) or a launch did not exit 0.

    .venv/bin/python benchmarks/forward_launch.py [--runs 20] [--budget-ms 200]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks._bytecode import compile_app  # noqa: E402
from benchmarks._report import Row, add_json_argument, write_rows  # noqa: E402
from desktop_app.instance import InstanceBusyError, request, server_address  # noqa: E402

SWITCHBOARD = Path(sys.executable).with_name("switchboard")


def p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]


def time_runs(argv: list[str], runs: int, env: dict[str, str]) -> list[float]:
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        proc = subprocess.run(argv, env=env, capture_output=True, text=True, check=False)
        times.append((time.perf_counter() - started) * 1000)
        if proc.returncode != 0:
            raise SystemExit(f"{' '.join(argv)} exited {proc.returncode}: {proc.stderr.strip()}")
    return times


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--budget-ms", type=float, default=200.0)
    add_json_argument(parser)
    ns = parser.parse_args(argv)
    env = {k: v for k, v in os.environ.items() if k != "SWITCHBOARD_HOME"}
    compile_app()  # as installed: no timed start compiles our modules (see _bytecode.py)
    env["QT_QPA_PLATFORM"] = "offscreen"
    with tempfile.TemporaryDirectory(prefix="sb-forward-") as tmp:
        home = Path(tmp) / "home"
        address = server_address(str(home))
        first = subprocess.Popen(
            [str(SWITCHBOARD), "--home", str(home)], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        try:
            deadline = time.monotonic() + 60
            while True:
                try:
                    state = request({"action": "query"}, address, timeout=1.0)
                except InstanceBusyError:
                    state = None
                if state is not None and state.get("runtime_ready"):
                    break
                if first.poll() is not None or time.monotonic() > deadline:
                    raise SystemExit("the first instance did not start")
                time.sleep(0.05)
            baseline = time_runs([sys.executable, "-c", "pass"], ns.runs, env)
            plain = time_runs([str(SWITCHBOARD), "--home", str(home)], ns.runs, env)
            quick = time_runs([str(SWITCHBOARD), "--home", str(home), "--quick"], ns.runs, env)
            state = request({"action": "query"}, address)
        finally:
            first.terminate()
            first.wait(timeout=30)
    assert state is not None and state["forwarded"] == 2 * ns.runs, state
    ok = True
    print(f"second launch, {ns.runs} runs each (budget {ns.budget_ms:.0f} ms for median and p95):")
    rows = (("python -c pass (baseline)", baseline), ("switchboard", plain), ("switchboard --quick", quick))
    for name, values in rows:
        median, tail = statistics.median(values), p95(values)
        line = f"  {name:28s} median {median:6.1f} ms   p95 {tail:6.1f} ms"
        if values is not baseline:
            over = median > ns.budget_ms or tail > ns.budget_ms
            ok = ok and not over
            line += f"   +{median - statistics.median(baseline):.1f} ms over the baseline   {'OVER' if over else 'ok'}"
        print(line)
    print(f"the first instance took all {state['forwarded']} launches (pid {state['pid']})")
    base = statistics.median(baseline)
    write_rows(
        ns.json,
        [
            Row(
                "second launch forwarded to the running instance (`switchboard --quick`)",
                f"median {statistics.median(quick):.0f} ms, p95 {p95(quick):.0f} ms",
                f"{base:.0f} ms (python -c pass)",
                f"{statistics.median(quick) - base:+.0f} ms",
                f"≤ {ns.budget_ms:g} ms",
                ok,
            )
        ],
    )
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
