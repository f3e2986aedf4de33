"""Issue 21 item 16 through the real ``switchboard ask`` process: a hook that prints hundreds of megabytes
costs the process a bounded buffer (its output is capped while it is read), not the whole flood in memory
(917 MB in 4 s before the fix). The process's peak RSS is read with ``os.wait4`` and compared with a run whose
hook prints one line, measured in the same test."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.cli_ask import SWITCHBOARD
from tests.support.llm_server import ScriptedLLMServer, text_reply

FLOOD_MB = 400
HEADROOM_MB = 64  # the 256 KiB cap, its copies and the decoded text: far below the flood


def _measured(hook: str, llm: ScriptedLLMServer, tmp: Path, name: str) -> tuple[int, str, float]:
    """Run ``ask`` with ``hook`` and return its exit code, its stdout and its peak RSS in MB (``os.wait4``)."""
    config = tmp / f"{name}.json"
    config.write_text(
        json.dumps({"mcpServers": {}, "hooks": {"UserPromptSubmit": [{"type": "command", "command": hook}]}}),
        encoding="utf-8",
    )
    llm.enqueue(text_reply("Answered."))
    env = {**os.environ, "PYTHON_KEYRING_BACKEND": "keyring.backends.null.Keyring"}
    out_path = tmp / f"{name}.out"
    with out_path.open("wb") as out, open(os.devnull, "wb") as err:
        proc = subprocess.Popen(
            [SWITCHBOARD, "ask", "--home", str(tmp / name), "--base-url", llm.url, "--mcp-config", str(config), "Hi."],
            stdout=out,
            stderr=err,
            stdin=subprocess.DEVNULL,
            env=env,
        )
        _pid, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    return proc.returncode, out_path.read_text(encoding="utf-8"), usage.ru_maxrss / 1024  # KiB on Linux


@pytest.mark.integration
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="ru_maxrss in KiB, a POSIX shell")
def test_a_hook_that_floods_its_output_costs_ask_a_bounded_buffer(llm_server: ScriptedLLMServer, tmp_path: Path):
    code, out, baseline = _measured("echo '{}'", llm_server, tmp_path, "quiet")
    assert code == 0 and out.strip() == "Answered."
    flood = f"head -c {FLOOD_MB * 1024 * 1024} /dev/zero | tr '\\0' a"
    code, out, flooded = _measured(flood, llm_server, tmp_path, "flood")
    assert code == 0 and out.strip() == "Answered."  # the run went on: the hook's unreadable answer only warns
    assert flooded - baseline < HEADROOM_MB, f"peak RSS {flooded:.0f} MB with the flood against {baseline:.0f} MB"
