"""Crash safety end to end: the real ``switchboard ask``, streaming into the store, is killed with SIGKILL.

Each trial (see ``tests/support/crash_trial.py``) checks that the reopened database passes
``PRAGMA integrity_check``, keeps every completed message, keeps the partial answer (marked interrupted by
``mark_interrupted_runs``) and is never more than 250 ms of stream behind the kill: the bound, no slack. The
trials kill at a random chunk and inside the long silence of the stream: while the last text waits in the
recorder's buffer for its flush timer, and just after the timer must have written it.
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


@pytest.mark.parametrize(
    ("seed", "in_silence"),
    [(11, None), (22, 0.1), (33, 0.3)],
    ids=["random-chunk", "inside-the-flush-window", "after-the-flush-timer"],
)
def test_sigkill_of_switchboard_ask_loses_at_most_250_ms_of_answer(
    tmp_path: Path, seed: int, in_silence: float | None
) -> None:
    result = run_trial(tmp_path, random.Random(seed), in_silence=in_silence)
    assert result.ok, result.problems
    assert result.sent_chars > 0 and result.lag_s <= 0.25
