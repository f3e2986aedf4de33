"""A scheduled task fires in the real app process (``python -m desktop_app``, Qt offscreen, the loopback model):
due in 2 s, it runs in the background, the app raises its notification (logged ``task notification: …`` in
the app's log file), its conversation in the store holds the answer, and SIGTERM then stops the app with 0."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from desktop_app.runtime.store import Store
from desktop_app.runtime.tasks.records import TaskRecords
from desktop_app.runtime.tasks.wiring import CLOCK_SHIFT_ENV
from tests.integration.test_app_http_host import app_env
from tests.integration.test_tasks_serve import due_in_two_seconds
from tests.support.llm_server import ScriptedLLMServer, text_reply

ROOT = Path(__file__).resolve().parents[2]
PROVIDER_KEY = "sk-loopback-0123456789abcdef"
DEADLINE_S = 15.0
POLL_S = 0.05


def wait_for(what: str, check: Callable[[], bool], proc: subprocess.Popen[bytes], output: Path) -> None:
    """Poll ``check()`` until true; fail at the deadline or when the app ends first (with its output)."""
    deadline = time.monotonic() + DEADLINE_S
    while not check():
        if proc.poll() is not None:
            pytest.fail(f"the app ended ({proc.returncode}) before {what}:\n{output.read_text()[-3000:]}")
        if time.monotonic() > deadline:
            pytest.fail(f"no {what} within {DEADLINE_S} s:\n{output.read_text()[-3000:]}")
        time.sleep(POLL_S)  # a polling interval, not a synchronisation


@pytest.mark.integration
def test_a_task_due_in_two_seconds_fires_in_the_app_notifies_and_keeps_the_answer(
    llm_server: ScriptedLLMServer, tmp_path: Path
) -> None:
    home = tmp_path / "home"
    (home / "config").mkdir(parents=True)
    provider = {"base_url": llm_server.url, "model": "m", "dialect": "openai"}
    (home / "config" / "settings.json").write_text(json.dumps({"provider": provider}), encoding="utf-8")
    keyring_file = tmp_path / "keyring.json"
    keyring_file.write_text(json.dumps({f"switchboard\0api-key:{llm_server.url}": PROVIDER_KEY}), encoding="utf-8")
    llm_server.enqueue(text_reply("Two meetings today.\nThe first at ten."))
    task_id, shift = due_in_two_seconds(home)
    log_file = home / "logs" / "switchboard.log"
    output = tmp_path / "app-output.txt"
    with output.open("wb") as sink:
        proc = subprocess.Popen(
            [sys.executable, "-m", "desktop_app", "--home", str(home), "--no-single-instance"],
            cwd=ROOT,
            stdout=sink,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            env={**app_env(home, keyring_file), CLOCK_SHIFT_ENV: str(shift)},
        )
    try:
        notice = "task notification: Task finished: Morning"
        wait_for("task notification", lambda: log_file.exists() and notice in log_file.read_text(), proc, output)

        def finished() -> bool:
            with Store.open(home / "data" / "switchboard.db") as store:
                return [r.status for r in TaskRecords(store).history(task_id)] == ["finished"]

        wait_for("finished run in the store", finished, proc, output)
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=20) == 0, output.read_text()[-3000:]
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
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
    assert PROVIDER_KEY not in log_file.read_text()  # the key stays in the keyring
    request = llm_server.requests[0]  # the run's turn, with the keyring's key
    assert (
        "Summarise my day" in json.dumps(request.json) and request.headers["authorization"] == f"Bearer {PROVIDER_KEY}"
    )
