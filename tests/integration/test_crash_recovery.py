"""Crash safety end to end: a real subprocess streaming into the store is killed with SIGKILL mid-answer.

Each trial (see ``tests/support/crash_trial.py``) checks that the reopened database passes
``PRAGMA integrity_check``, keeps every completed message, keeps the partial answer (marked interrupted by
``mark_interrupted_runs``) and is never more than 250 ms of stream behind the kill (plus scheduling slack).
``benchmarks/crash_stress.py`` runs the same trial many more times.
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

import pytest

from tests.support.crash_trial import run_trial

pytestmark = [
    pytest.mark.integration,
    pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL is POSIX"),
]


@pytest.mark.parametrize("seed", [11, 22, 33])
def test_sigkill_mid_stream_loses_at_most_250_ms_of_answer(tmp_path: Path, seed: int) -> None:
    result = run_trial(tmp_path, random.Random(seed))
    assert result.ok, result.problems
    assert result.sent_chars > 0
