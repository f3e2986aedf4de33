"""Issue 21 items 16 and 17 for command hooks: output is capped while it is read (a hook that prints 50 MB
costs a bounded buffer, not 50 MB), and a hook that exits but leaves a child holding its stdout is done at once,
not "timed out" after its whole timeout."""

from __future__ import annotations

import sys
import time
import tracemalloc
from pathlib import Path

import pytest

from desktop_app.runtime.hooks.decisions import OUTPUT_CAP
from desktop_app.runtime.hooks.model import HookPayload

from .conftest import runner_for

posix_only = pytest.mark.skipif(sys.platform == "win32", reason="POSIX shell")


@posix_only
@pytest.mark.asyncio
async def test_a_flood_of_output_is_capped_while_it_is_read(tmp_path: Path) -> None:
    runner = runner_for({"Stop": [{"command": "head -c 50000000 /dev/zero | tr '\\\\0' a", "timeout": 60}]}, tmp_path)
    tracemalloc.start()
    try:
        report = await runner.run("Stop", HookPayload(event="Stop"))
        _current, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    [outcome] = report.outcomes
    assert outcome.truncated and len(outcome.stdout) == OUTPUT_CAP
    assert outcome.exit_code == 0
    assert peak < 8 * 1024 * 1024, f"peak {peak / 2**20:.1f} MiB while reading 50 MB of hook output"


@posix_only
@pytest.mark.asyncio
async def test_a_child_left_holding_stdout_does_not_make_the_hook_time_out(tmp_path: Path) -> None:
    hook = {"command": 'sleep 30 & echo \'{"additional_context": "done"}\'', "timeout": 20}
    runner = runner_for({"Stop": [hook]}, tmp_path)
    started = time.monotonic()
    report = await runner.run("Stop", HookPayload(event="Stop"))
    elapsed = time.monotonic() - started
    [outcome] = report.outcomes
    assert outcome.decision != "timeout" and outcome.exit_code == 0, outcome
    assert "done" in outcome.stdout
    assert elapsed < 3.0, f"waited {elapsed:.1f}s for a hook that exited at once"
