"""The frozen app works without the source tree: ``--version``, ``--smoke-test`` and a scripted ``ask`` against
the loopback LLM server with a real stdio MCP server (mcp-server-time from PyPI), failing on any unexpected
stderr. Each check runs on the built folder, on the tarball unpacked elsewhere, and on the installed .deb."""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from pkgcheck import events, run, unexpected_stderr

from tests.support.llm_server import ScriptedLLMServer, text_reply, tool_call_reply

# PACKAGE_TARGETS=frozen (the release workflow on Windows and macOS) checks only the built app.
TARGETS = os.environ.get("PACKAGE_TARGETS", "frozen,unpacked,installed").split(",")
# Real processes on a shared 2-core box: more than pytest's default 120 s per test when the machine is busy.
pytestmark = pytest.mark.timeout(600)


@pytest.fixture(params=TARGETS)
def app(request: pytest.FixtureRequest) -> Path:
    """The executable under test: the built folder, the unpacked tarball, or /usr/bin/switchboard."""
    return request.getfixturevalue(request.param)


def test_version_is_the_pyproject_version(app: Path, version: str) -> None:
    result = run([app, "--version"])
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == f"switchboard {version}"
    assert not unexpected_stderr(result.stderr)


def test_smoke_test_starts_and_shuts_down_cleanly(app: Path, tmp_path: Path) -> None:
    result = run([app, "--home", tmp_path / "home", "--smoke-test"])
    assert result.returncode == 0, f"stdout:\n{result.stdout}\nstderr:\n{result.stderr}"
    assert "s to first paint" in result.stdout and "runtime: ready" in result.stdout, result.stdout
    assert not unexpected_stderr(result.stderr), result.stderr


def test_scripted_ask_calls_a_real_stdio_mcp_server(app: Path, tmp_path: Path) -> None:
    config = tmp_path / "mcp.json"
    # The MCP server is a separate program (as a user's would be): mcp-server-time in the project's venv.
    server = {"command": sys.executable, "args": ["-m", "mcp_server_time"]}
    config.write_text(json.dumps({"mcpServers": {"time": server}}))
    with ScriptedLLMServer() as llm:
        llm.enqueue(
            tool_call_reply([("call_time_1", "mcp__time__get_current_time", {"timezone": "UTC"})]),
            text_reply("It is the time the server said."),
        )
        result = run(
            [app, "ask", "--home", tmp_path / "home", "--base-url", llm.url, "--model", "m", "--dialect", "deepseek",
             "--mcp-config", config, "--approve", "always", "--events", "jsonl", "What time is it in UTC?"],
            timeout=300,
        )  # fmt: skip
        requests = list(llm.requests)
    assert result.returncode == 0, f"stdout:\n{result.stdout}\nstderr:\n{result.stderr}"
    assert not unexpected_stderr(result.stderr), result.stderr
    seen = events(result.stdout)
    kinds = [e["kind"] for e in seen]
    assert kinds[0] == "run_started" and kinds[-1] == "run_finished", kinds
    tool_results = [e for e in seen if e["kind"] == "tool_result"]
    assert len(tool_results) == 1 and not tool_results[0]["is_error"], tool_results
    assert "UTC" in json.dumps(tool_results[0]), tool_results[0]
    assert "It is the time the server said." in "".join(str(e.get("text", "")) for e in seen)
    # The model's second request carried the real tool output back.
    tool_messages = [m for m in requests[1].json["messages"] if m["role"] == "tool"]
    assert tool_messages and '"timezone": "UTC"' in tool_messages[0]["content"], tool_messages


def test_full_start_serves_a_second_launch(app: Path, tmp_path: Path) -> None:
    """A real start (not --smoke-test): the window, the tray shell and the single-instance server (QtNetwork)
    come up, and a second launch on the same home hands over to it and exits 0."""
    home = tmp_path / "home"
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    first = subprocess.Popen(
        [str(app), "--home", str(home)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env
    )
    lines: queue.Queue[str] = queue.Queue()
    assert first.stdout is not None
    threading.Thread(target=lambda: [lines.put(line) for line in first.stdout], daemon=True).start()  # type: ignore[union-attr]
    try:
        line = lines.get(timeout=120)
        assert line.startswith("startup:"), line
        second = run([app, "--home", home])
        assert second.returncode == 0, second.stderr
        assert not unexpected_stderr(second.stderr), second.stderr
        assert first.poll() is None, "the first instance must keep running"
    finally:
        first.terminate()
        _out, err = first.communicate(timeout=60)
    assert not unexpected_stderr(err), err
    assert "does not support raise()" in err, "the first instance raised its window for the second launch"
