"""A scheduled task fires in ``switchboard serve`` (a real process, the loopback model): due in 2 s, it runs
in the background, stderr says so with the answer's first line, and its conversation holds the answer."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

import pytest

from desktop_app.runtime.store import Store
from desktop_app.runtime.tasks.model import make_task
from desktop_app.runtime.tasks.records import TaskRecords
from desktop_app.runtime.tasks.wiring import CLOCK_SHIFT_ENV
from tests.support.llm_server import ScriptedLLMServer, text_reply

SWITCHBOARD = str(Path(sys.executable).parent / "switchboard")
TOKEN = "test-token-0123456789abcdef"


def due_in_two_seconds(home: Path) -> tuple[str, float]:
    """A daily task whose fire time is two seconds ahead of the clock the process is given; (id, shift)."""
    now = time.time()
    boundary = (int(now // 60) + 2) * 60  # cron times are whole minutes: the clock is shifted to 2 s before one
    shift = boundary - 2 - now
    fire = datetime.fromtimestamp(boundary, UTC)
    task = make_task(
        name="Morning", prompt="Summarise my day", schedule=f"{fire.minute} {fire.hour} * * *", now=now + shift
    )
    with Store.open(home / "data" / "switchboard.db") as store:
        TaskRecords(store).save(task)
    return task.id, shift


@pytest.mark.integration
def test_a_task_due_in_two_seconds_fires_in_serve(llm_server: ScriptedLLMServer, tmp_path: Path) -> None:
    home = tmp_path / "h"
    (home / "config").mkdir(parents=True)
    (home / "config" / "settings.json").write_text(
        json.dumps({"provider": {"base_url": llm_server.url, "model": "m", "dialect": "openai"}})
    )
    llm_server.enqueue(text_reply("Two meetings today.\nThe first at ten."))
    task_id, shift = due_in_two_seconds(home)
    env = {
        **os.environ,
        "PYTHON_KEYRING_BACKEND": "keyring.backends.null.Keyring",
        "SB_TOKEN": TOKEN,
        CLOCK_SHIFT_ENV: str(shift),
    }
    proc = subprocess.Popen(
        [SWITCHBOARD, "serve", "--home", str(home), "--token-env", "SB_TOKEN", "--approve", "never"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
        text=True,
        env=env,
    )
    try:
        assert proc.stdout is not None and proc.stderr is not None
        assert proc.stdout.readline().startswith("http://127.0.0.1:")
        lines: list[str] = []
        while not any(f"task {task_id} finished" in line for line in lines):
            line = proc.stderr.readline()  # blocks until the process writes (the test's timeout bounds it)
            assert line, f"serve ended before the task ran: {''.join(lines)}"
            lines.append(line)
        assert f"switchboard: task {task_id} running\n" in lines
        assert lines[-1] == f"switchboard: task {task_id} finished: Two meetings today.\n"
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.communicate(timeout=30)
    assert proc.returncode == 0
    with Store.open(home / "data" / "switchboard.db") as store:
        [run] = TaskRecords(store).history(task_id)
        assert (run.status, run.trigger, run.answer) == (
            "finished",
            "schedule",
            "Two meetings today.\nThe first at ten.",
        )
        assert run.conversation_id is not None
        assert TaskRecords(store).task_of(run.conversation_id) == task_id
        messages = store.load_messages(run.conversation_id)
        assert "Summarise my day" in str(messages[0]) and "The first at ten." in str(messages[-1])
