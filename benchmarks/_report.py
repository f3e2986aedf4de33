"""The one row format every benchmark script can emit (``--json FILE``), read by ``benchmarks/bench.py``.

A row is one line of the performance table (docs/performance.md): the figure, Switchboard's value, the baseline measured
in the same run (or "—"), their ratio, the budget, and whether the budget is met. Scripts keep printing
their own detailed report; the row is the summary ``make bench`` collects.
"""

from __future__ import annotations

import argparse
import json
import statistics
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path


@dataclass(frozen=True)
class Row:
    figure: str
    switchboard: str
    baseline: str = "—"
    ratio: str = "—"
    budget: str = "—"
    met: bool | None = None  # None: informational, no budget
    note: str = ""


def add_json_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", type=Path, metavar="FILE", help="also write the summary rows to FILE")


def write_rows(path: Path | None, rows: Sequence[Row]) -> None:
    if path is not None:
        path.write_text(json.dumps([asdict(row) for row in rows], indent=1, ensure_ascii=False), encoding="utf-8")


def read_rows(path: Path) -> list[Row]:
    return [Row(**item) for item in json.loads(path.read_text(encoding="utf-8"))]


def median(values: Sequence[float]) -> float:
    return statistics.median(values)


def spread(values: Sequence[float], unit: str = "", digits: int = 3) -> str:
    """``median (min–max)`` with a unit, for the detailed reports."""
    return f"{statistics.median(values):.{digits}f}{unit} ({min(values):.{digits}f}–{max(values):.{digits}f})"


def percentile(values: Sequence[float], q: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    index = min(len(ordered) - 1, max(0, round(q / 100 * (len(ordered) - 1))))
    return ordered[index]


def verdict(met: bool | None) -> str:
    return "—" if met is None else ("met" if met else "MISSED")
