"""The store fills up during a stream: ``switchboard ask`` says so on stderr while the answer is still streaming,
prints the whole answer, and exits non-zero (6). Two ways to fill it, both with the real process: a small
tmpfs home (where this box lets us mount one) and SQLite's ``max_page_count`` (SQLITE_FULL, as on a full disk)."""

from __future__ import annotations

import contextlib
import json
import os
import queue
import subprocess
import sys
import threading
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from desktop_app.cli import EXIT_NOT_SAVED
from tests.support.llm_server import DONE, Gate, Reply, ScriptedLLMServer, chunk, usage_frame

pytestmark = pytest.mark.integration

SWITCHBOARD = str(Path(sys.executable).parent / "switchboard")
ROOT = Path(__file__).resolve().parents[2]
PIECE = "lorem ipsum dolor sit amet " * 2400  # ~64 KB per delta


def _long_answer(gate: Gate) -> tuple[Reply, str]:
    before = [f"{i}:{PIECE}" for i in range(6)]  # ~390 KB: more than the store can take
    after = [f"{i}:{PIECE}" for i in range(6, 10)]
    steps = [chunk(content=p) for p in before] + [gate] + [chunk(content=p) for p in after]
    steps += [chunk(finish_reason="stop"), usage_frame(), DONE]
    return Reply(steps=steps), "".join(before + after)


def _mount_tmpfs(folder: Path, size: str) -> bool:
    folder.mkdir(parents=True, exist_ok=True)
    if sys.platform != "linux" or os.geteuid() != 0:
        return False
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(folder)], capture_output=True)
    return done.returncode == 0


@pytest.fixture(params=["max_page_count", "tmpfs"])
def full_home(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[list[str], Path]]:
    if request.param == "max_page_count":
        yield [sys.executable, "-m", "tests.support.full_store_ask"], tmp_path / "home"
        return
    home = tmp_path / f"tmpfs-{uuid.uuid4().hex[:6]}"
    if not _mount_tmpfs(home, "320k"):
        pytest.skip("no tmpfs can be mounted here (needs root); the max_page_count variant covers it")
    try:
        yield [SWITCHBOARD], home
    finally:
        subprocess.run(["umount", "-l", str(home)], capture_output=True)


def test_a_store_that_fills_during_the_stream_is_reported_at_once_and_exits_non_zero(
    llm_server: ScriptedLLMServer, full_home: tuple[list[str], Path]
) -> None:
    command, home = full_home
    gate = Gate()
    reply, content = _long_answer(gate)
    llm_server.enqueue(reply)
    env = {**os.environ, "PYTHON_KEYRING_BACKEND": "keyring.backends.null.Keyring", "PYTHONPATH": str(ROOT)}
    args = [*command, "ask", "--home", str(home), "--base-url", llm_server.url, "--model", "m", "Write a lot."]
    proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=ROOT)
    lines: queue.Queue[str] = queue.Queue()
    errors: list[str] = []
    printed: list[str] = []

    def read_stderr() -> None:
        assert proc.stderr is not None
        for line in proc.stderr:
            errors.append(line)
            lines.put(line)

    def read_stdout() -> None:
        assert proc.stdout is not None
        printed.append(proc.stdout.read())

    readers = [threading.Thread(target=read_stderr, daemon=True), threading.Thread(target=read_stdout, daemon=True)]
    for reader in readers:
        reader.start()
    try:
        while True:  # the stream is held at the gate: the message must come before the answer ends
            line = lines.get(timeout=30)
            if line.startswith("switchboard: not saved:"):
                break
        gate.open()
        proc.wait(timeout=30)
    finally:
        gate.open()
        if proc.poll() is None:
            proc.kill()
    for reader in readers:
        reader.join(timeout=10)
    for pipe in (proc.stdout, proc.stderr):
        if pipe is not None:
            pipe.close()
    stderr, stdout = "".join(errors), "".join(printed)
    assert proc.returncode == EXIT_NOT_SAVED, stderr
    assert "switchboard.db" in stderr and "only copy" in stderr
    assert "Traceback" not in stderr
    assert stdout.rstrip("\n") == content  # the whole answer, though the store could not keep it


@pytest.fixture(params=["max_page_count", "tmpfs"])
def full_at_start(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[list[str], dict[str, str], Path]]:
    if request.param == "max_page_count":
        yield [sys.executable, "-m", "tests.support.full_store_ask"], {"FULL_STORE_AT_START": "1"}, tmp_path / "home"
        return
    disk = tmp_path / f"tmpfs-{uuid.uuid4().hex[:6]}"
    if not _mount_tmpfs(disk, "320k"):
        pytest.skip("no tmpfs can be mounted here (needs root); the max_page_count variant covers it")
    try:
        (disk / "home").mkdir()
        # fill the disk before Switchboard starts
        with open(disk / "filler", "wb", buffering=0) as filler, contextlib.suppress(OSError):
            while True:
                filler.write(b"\0" * 4096)
        yield [SWITCHBOARD], {}, disk / "home"
    finally:
        subprocess.run(["umount", "-l", str(disk)], capture_output=True)


def test_a_disk_full_before_the_start_still_prints_the_answer_says_so_and_exits_not_saved(
    llm_server: ScriptedLLMServer, full_at_start: tuple[list[str], dict[str, str], Path]
) -> None:
    command, extra, home = full_at_start
    steps = [chunk(content="The answer, "), chunk(content="whole."), chunk(finish_reason="stop"), DONE]
    llm_server.enqueue(Reply(steps=steps), Reply(steps=steps))
    env = {**os.environ, "PYTHON_KEYRING_BACKEND": "keyring.backends.null.Keyring", "PYTHONPATH": str(ROOT), **extra}
    args = [*command, "ask", "--home", str(home), "--base-url", llm_server.url, "--model", "m", "Answer."]
    done = subprocess.run(args, capture_output=True, text=True, env=env, cwd=ROOT, timeout=60)
    assert done.returncode == EXIT_NOT_SAVED, done.stderr
    assert done.stdout.rstrip("\n") == "The answer, whole."
    assert "the disk is full" in done.stderr and "free disk space" in done.stderr
    assert "not a usable conversation database" not in done.stderr
    assert "switchboard: not saved:" in done.stderr and "only copy" in done.stderr
    assert "Traceback" not in done.stderr

    events = subprocess.run([*args, "--events", "jsonl"], capture_output=True, text=True, env=env, cwd=ROOT, timeout=60)
    kinds = [json.loads(line)["kind"] for line in events.stdout.splitlines()]
    assert "store_failed" in kinds and kinds[-1] == "run_finished"
    assert events.returncode == EXIT_NOT_SAVED, events.stderr
