"""The real app, twice on one home folder: the second launch forwards ``--quick`` and exits; after a SIGKILL
the stale socket is replaced and the next launch becomes the first instance.

The first instance is ``switchboard`` itself (offscreen) with a real stdio MCP server (mcp-server-time from
PyPI). Its state is read with the diagnostic ``query`` request over the same socket.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from desktop_app.instance import InstanceBusyError, request, server_address

pytestmark = pytest.mark.integration

SWITCHBOARD = Path(sys.executable).with_name("switchboard")
STARTUP_TIMEOUT_S = 60.0


def _env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "SWITCHBOARD_HOME"}
    return {**env, "QT_QPA_PLATFORM": "offscreen"}


def _query(address: str) -> dict[str, Any] | None:
    try:
        return request({"action": "query"}, address, timeout=1.0)
    except InstanceBusyError:
        return None


def _wait_for(condition: Callable[[], Any], what: str, proc: subprocess.Popen[str]) -> Any:
    """Poll observable state (the instance's own answers) until ``condition`` holds, with a deadline."""
    deadline = time.monotonic() + STARTUP_TIMEOUT_S
    while time.monotonic() < deadline:
        assert proc.poll() is None, f"the first instance exited early ({proc.returncode}) while waiting for {what}"
        value = condition()
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


def _server_children(pid: int) -> list[int]:
    """Processes whose parent is ``pid`` and whose command line runs mcp_server_time."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        if ppid == pid and "mcp_server_time" in cmdline:
            found.append(int(entry.name))
    return found


def _all_time_servers(home: Path) -> list[int]:
    marker = str(home)
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
                environ = (entry / "environ").read_bytes()
            except OSError:
                continue
            if "mcp_server_time" in cmdline and f"SWITCHBOARD_MARK={marker}".encode() in environ:
                found.append(int(entry.name))
    return found


@pytest.fixture
def home(tmp_path: Path) -> Iterator[Path]:
    home = tmp_path / "sbhome"
    (home / "config").mkdir(parents=True)
    servers = {
        "mcpServers": {
            "time": {
                "command": sys.executable,
                "args": ["-m", "mcp_server_time"],
                "env": {"SWITCHBOARD_MARK": str(home)},
            }
        }
    }
    (home / "config" / "mcp.json").write_text(json.dumps(servers), encoding="utf-8")
    yield home
    Path(server_address(str(home))).unlink(missing_ok=True)
    Path(server_address(str(home)) + ".pid").unlink(missing_ok=True)


def _start_first(home: Path) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [str(SWITCHBOARD), "--home", str(home)],
        env=_env(home),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )


def _second(home: Path, *args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(SWITCHBOARD), "--home", str(home), *args],
        env=_env(home),
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )


def _stop(proc: subprocess.Popen[str]) -> None:
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    if proc.stderr is not None:
        proc.stderr.close()


def test_second_launch_forwards_quick_and_a_stale_socket_is_replaced(home):
    address = server_address(str(home))
    first = _start_first(home)
    replacement: subprocess.Popen[str] | None = None
    try:

        def time_server_ready() -> dict[str, Any] | None:
            state = _query(address)
            return state if state and state["servers"].get("time") == "ready" else None

        state = _wait_for(time_server_ready, "the first instance with its MCP server", first)
        assert state["pid"] == first.pid and not state["quick_visible"]
        assert len(_server_children(first.pid)) == 1

        second = _second(home, "--quick")
        assert second.returncode == 0, second.stderr
        state = _query(address)
        assert state is not None and state["pid"] == first.pid
        assert state["quick_visible"] and state["forwarded"] == 1
        assert len(_server_children(first.pid)) == 1
        assert _all_time_servers(home) == _server_children(first.pid)  # one set of MCP servers, the first's

        # A file argument (relative to where the second launch ran) is attached in the first instance.
        (home.parent / "notes.txt").write_text("meeting notes\n", encoding="utf-8")
        attach = _second(home, "--quick", "notes.txt", cwd=home.parent)
        assert attach.returncode == 0, attach.stderr
        assert _query(address)["quick_attached"] == ["notes.txt"]
        missing = _second(home, "no-such-file.txt", cwd=home.parent)
        assert missing.returncode == 1 and "no such file" in missing.stderr

        # A hung first instance (stopped): the second launch says so after the short timeout, exit 1.
        os.kill(first.pid, signal.SIGSTOP)
        try:
            started = time.monotonic()
            hung = _second(home, "--quick")
            waited = time.monotonic() - started
        finally:
            os.kill(first.pid, signal.SIGCONT)
        assert hung.returncode == 1 and "busy or hung" in hung.stderr and f"process {first.pid}" in hung.stderr
        # README: "reported after 2 s"; the rest is the second process's own start (standard library only)
        assert 2.0 <= waited < 2.0 + 0.8

        # A crash: SIGKILL leaves the socket file behind (and orphans the server, which exits on EOF).
        first.kill()
        first.wait()
        assert os.path.exists(address) and request({"action": "query"}, address) is None

        replacement = subprocess.Popen(
            [str(SWITCHBOARD), "--home", str(home), "--quick"],
            env=_env(home),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )

        def replacement_ready() -> dict[str, Any] | None:
            state = _query(address)
            ours = state is not None and state["pid"] == replacement.pid
            return state if ours and state["servers"].get("time") == "ready" else None

        state = _wait_for(replacement_ready, "the new launch to become the first instance", replacement)
        assert state["quick_visible"] and state["forwarded"] == 0
        assert len(_server_children(replacement.pid)) == 1
        # Still one set of MCP servers: the killed instance's orphan ends (EOF on its stdin), only ours is left.
        _wait_for(
            lambda: _all_time_servers(home) == _server_children(replacement.pid),
            "the killed instance's MCP server to exit",
            replacement,
        )
        log = (home / "logs" / "switchboard.log").read_text(encoding="utf-8")
        assert "replacing a stale single-instance socket" in log

        again = _second(home, "--quick")
        assert again.returncode == 0, again.stderr
        assert _query(address)["forwarded"] == 1
        assert len(_server_children(replacement.pid)) == 1
        assert _all_time_servers(home) == _server_children(replacement.pid)
    finally:
        _stop(first)
        if replacement is not None:
            _stop(replacement)
