"""Run ownership: a second process on the same home never marks the first one's live runs interrupted; once
that process is gone (here: SIGKILL, so it could not clean up), its runs are marked at the next start."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from desktop_app.runtime.store import Store

ROOT = Path(__file__).resolve().parents[4]

WRITER = textwrap.dedent(
    """
    import sys
    from desktop_app.runtime.store import Store
    store = Store.open(sys.argv[1])
    store.ensure_conversation("conv")
    store.start_run("live-run", "conv")
    message = store.add_message("conv", "assistant", run_id="live-run", status="streaming")
    store.add_part(message, "text", "half an answer")
    print("ready", flush=True)
    sys.stdin.readline()  # stays alive (holding its lease) until the test lets it go or kills it
    """
)


@pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL")
def test_a_second_process_leaves_live_runs_alone_until_their_owner_is_gone(tmp_path: Path) -> None:
    path = tmp_path / "switchboard.db"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    writer = subprocess.Popen(
        [sys.executable, "-c", WRITER, str(path)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env
    )
    try:
        assert writer.stdout is not None and writer.stdout.readline().strip() == "ready"
        with Store.open(path) as second:  # e.g. `switchboard ask` while the app streams an answer
            assert second.mark_interrupted_runs() == 0
            assert second.runs("conv")["live-run"].status == "running"
            assert [m.status for m in second.messages("conv")] == ["streaming"]
        writer.send_signal(signal.SIGKILL)
        writer.wait(timeout=10)
        with Store.open(path) as third:
            assert third.mark_interrupted_runs() == 1
            assert third.runs("conv")["live-run"].status == "interrupted"
            assert [m.status for m in third.messages("conv")] == ["interrupted"]
            assert third.messages("conv")[0].text_of("text") == "half an answer"
    finally:
        if writer.poll() is None:
            writer.kill()
            writer.wait(timeout=10)
        for pipe in (writer.stdin, writer.stdout):
            if pipe is not None:
                pipe.close()


def test_runs_without_an_owner_and_runs_of_a_closed_store_count_as_gone(tmp_path: Path) -> None:
    path = tmp_path / "switchboard.db"
    with Store.open(path) as first:
        first.ensure_conversation("conv")
        first.start_run("closed-run", "conv")
        first.ensure_conversation("old")
        first.start_run("old-run", "old")
        first.connection.execute("UPDATE runs SET owner = NULL WHERE id = 'old-run'")  # written before owners
    with Store.open(path) as second:
        assert second.mark_interrupted_runs() == 2
        assert not list((tmp_path / "switchboard.db.owners").glob(f"{first.owner}*"))  # its lease went with it
