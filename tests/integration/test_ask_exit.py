"""``switchboard ask`` ends when the answer does: once the run has ended, the servers are closed (SIGTERM after a
short grace, see ``test_quit_grace.py``) and the process exits without the interpreter's teardown (~0.2 s of
freeing modules), its output and log flushed and its stdio server gone. ``benchmarks/ask_exit.py`` times it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.llm_server import ScriptedLLMServer, text_reply

pytestmark = [pytest.mark.integration, pytest.mark.skipif(sys.platform == "win32", reason="POSIX processes")]

SERVER = Path(__file__).resolve().parents[1] / "support" / "misbehaving_server.py"
ROOT = Path(__file__).resolve().parents[2]
# The console script's entry point, with an exit handler that says whether the interpreter's teardown ran.
ENTRY = (
    "import atexit, sys\n"
    "atexit.register(lambda: sys.stderr.write('interpreter teardown ran\\n'))\n"
    "from desktop_app.__main__ import main\n"
    "sys.argv[0] = 'switchboard'\n"
    "raise SystemExit(main())\n"
)


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0]
    except FileNotFoundError:
        return False
    return state != "Z"


def test_ask_exits_without_the_interpreter_teardown_once_its_output_is_flushed(
    llm_server: ScriptedLLMServer, tmp_path: Path
) -> None:
    pid_file = tmp_path / "server.pid"
    config = tmp_path / "mcp.json"
    server = {"command": sys.executable, "args": [str(SERVER)], "env": {"PID_FILE": str(pid_file)}}
    config.write_text(json.dumps({"mcpServers": {"s": server}}))
    answer = "The whole answer, " * 400 + "end."
    llm_server.enqueue(text_reply(answer, piece=64))
    home = tmp_path / "home"
    env = {**os.environ, "PYTHON_KEYRING_BACKEND": "keyring.backends.null.Keyring"}
    args = ["ask", "--home", str(home), "--mcp-config", str(config), "--base-url", llm_server.url, "--model", "m"]
    done = subprocess.run(
        [sys.executable, "-c", ENTRY, *args, "Go."], capture_output=True, text=True, env=env, cwd=ROOT, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert "interpreter teardown ran" not in done.stderr  # without exit_now: it runs, ~0.2 s after the answer
    assert done.stdout.strip() == answer  # every byte reached the pipe before the process ended
    assert not _alive(int(pid_file.read_text())), "the MCP server outlived switchboard ask"
