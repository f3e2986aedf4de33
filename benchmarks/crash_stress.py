"""Crash stress: many SIGKILL trials of a streaming run, plus the cost of one recorder flush.

Each trial (``tests/support/crash_trial.py``) streams a long paced answer from the loopback LLM server into
the real ``switchboard ask`` process, kills it with SIGKILL at a random point, reopens the database and
checks integrity, completed messages, the interrupted partial answer and the 250 ms bound. Prints a
summary; exits 1 on any failed trial.

    .venv/bin/python benchmarks/crash_stress.py [--trials 25] [--seed 1] [--tolerance-ms 0]
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from desktop_app.runtime import events as ev
from desktop_app.runtime.store import Recorder, Store
from tests.support.crash_trial import run_trial


def flush_cost(deltas: int = 3000) -> list[float]:
    """Milliseconds per delta when every delta forces a flush (a fake clock 300 ms apart), on a real file."""
    clock = [0.0]
    with tempfile.TemporaryDirectory() as tmp, Store.open(Path(tmp) / "flush.db") as store:
        recorder = Recorder(store, clock=lambda: clock[0], use_timer=False)
        ids = {"conversation_id": "c", "run_id": "r"}
        recorder(ev.RunStarted(**ids, model="m", prompt="go"))
        samples = []
        for i in range(deltas):
            clock[0] += 0.3
            started = time.perf_counter()
            recorder(ev.ContentDelta(**ids, text=f"word{i} and some more text, "))
            samples.append((time.perf_counter() - started) * 1000)
        recorder(ev.RunFinished(**ids))
        assert recorder.stats.count >= deltas
    return samples


def pct(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--trials", type=int, default=25)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--tolerance-ms", type=float, default=0.0, help="slack over the 250 ms bound (default none)")
    ns = parser.parse_args(argv)

    cost = flush_cost()
    print(
        f"flush cost (one transaction per delta, {len(cost)} deltas, growing part): "
        f"p50 {statistics.median(cost):.3f} ms  p95 {pct(cost, 0.95):.3f} ms  p99 {pct(cost, 0.99):.3f} ms  "
        f"max {max(cost):.3f} ms"
    )

    rng = random.Random(ns.seed)
    failures, lags, kills, started = 0, [], [], time.perf_counter()
    for n in range(1, ns.trials + 1):
        with tempfile.TemporaryDirectory() as tmp:
            result = run_trial(Path(tmp), random.Random(rng.random()), tolerance=ns.tolerance_ms / 1000)
        lags.append(result.lag_s * 1000)
        kills.append(result.kill_after_s)
        mark = "ok  " if result.ok else "FAIL"
        print(
            f"trial {n:3}: {mark} killed {result.kill_after_s:5.2f} s into the stream, "
            f"stored {result.stored_chars:5}/{result.sent_chars:5} chars sent, lag {result.lag_s * 1000:6.1f} ms"
            + ("" if result.ok else f"  {result.problems}")
        )
        failures += not result.ok
    print(
        f"\n{ns.trials} trials in {time.perf_counter() - started:.1f} s: {ns.trials - failures} passed, "
        f"{failures} failed; lag behind the kill p50 {statistics.median(lags):.1f} ms, "
        f"p95 {pct(lags, 0.95):.1f} ms, max {max(lags):.1f} ms (bound 250 ms + {ns.tolerance_ms:.0f} ms slack)"
    )
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
