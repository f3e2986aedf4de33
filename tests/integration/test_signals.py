"""SIGTERM and SIGHUP stop the real ``switchboard ask`` as Ctrl+C does: the stdio MCP server it started is
stopped (not left running under PID 1), the run is stored as cancelled with its partial answer ``stopped``."""

from __future__ import annotations

import json
import os
import queue
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from desktop_app.runtime.store import Store
from tests.support.llm_server import DONE, Gate, Reply, ScriptedLLMServer, chunk

pytestmark = [pytest.mark.integration, pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")]

SWITCHBOARD = str(Path(sys.executable).parent / "switchboard")
SERVER = Path(__file__).resolve().parents[1] / "support" / "misbehaving_server.py"
ROOT = Path(__file__).resolve().parents[2]


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0]
    except FileNotFoundError:
        return False
    return state != "Z"


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP])
def test_a_signal_stops_the_servers_and_stores_the_run_as_stopped(
    llm_server: ScriptedLLMServer, tmp_path: Path, signum: signal.Signals
) -> None:
    pid_file = tmp_path / "server.pid"
    config = tmp_path / "mcp.json"
    server = {"command": sys.executable, "args": [str(SERVER)], "env": {"PID_FILE": str(pid_file)}}
    config.write_text(json.dumps({"mcpServers": {"bad": server}}))
    gate = Gate()
    llm_server.enqueue(
        Reply(steps=[chunk(content="Half an "), chunk(content="answer"), gate, chunk(content="!"), DONE])
    )
    home = tmp_path / "home"
    env = {**os.environ, "PYTHON_KEYRING_BACKEND": "keyring.backends.null.Keyring"}
    args = [SWITCHBOARD, "ask", "--home", str(home), "--mcp-config", str(config), "--base-url", llm_server.url]
    proc = subprocess.Popen([*args, "--model", "m", "Go."], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    printed: queue.Queue[bytes] = queue.Queue()

    def read_stdout() -> None:
        assert proc.stdout is not None
        while piece := proc.stdout.read1(4096):
            printed.put(piece)

    reader = threading.Thread(target=read_stdout, daemon=True)
    reader.start()
    try:
        seen = b""
        while b"Half an answer" not in seen:  # the stream is held at the gate now
            seen += printed.get(timeout=30)
        server_pid = int(pid_file.read_text())
        assert _alive(server_pid)
        proc.send_signal(signum)
        _, stderr = proc.communicate(timeout=30)
    finally:
        gate.open()
        if proc.poll() is None:
            proc.kill()
            proc.wait(timeout=10)
    reader.join(timeout=10)
    assert proc.returncode == 1, stderr
    assert f"stopped by {signum.name}" in stderr.decode()
    assert not _alive(server_pid), "the MCP server outlived switchboard ask"
    with Store.open(home / "data" / "switchboard.db") as store:
        [info] = store.list_conversations()
        [run] = store.runs(info.id).values()
        assert run.status == "cancelled"
        answer = [m for m in store.messages(info.id) if m.role == "assistant"]
        assert [(m.status, m.text_of("text")) for m in answer] == [("stopped", "Half an answer")]


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP])
def test_the_app_shuts_down_in_order_on_a_signal(tmp_path: Path, signum: signal.Signals) -> None:
    from desktop_app.paths import app_paths

    home = tmp_path / "home"
    paths = app_paths(home).ensure()
    pid_file = tmp_path / "server.pid"
    os.mkfifo(pid_file)  # reading it blocks until the server has started and written its pid
    server = {"command": sys.executable, "args": [str(SERVER)], "env": {"PID_FILE": str(pid_file)}}
    paths.mcp_config_file.write_text(json.dumps({"mcpServers": {"bad": server}}))
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "PYTHON_KEYRING_BACKEND": "keyring.backends.null.Keyring"}
    args = [sys.executable, "-m", "desktop_app.app", "--home", str(home), "--no-single-instance"]
    proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, cwd=ROOT, text=True)
    try:
        server_pid = int(pid_file.read_text())  # the app is up and has started its MCP server
        proc.send_signal(signum)
        _, stderr = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(timeout=10)
    assert proc.returncode == 0, stderr
    assert "Traceback" not in stderr
    assert not _alive(server_pid), "the MCP server outlived the app"
