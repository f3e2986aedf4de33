"""``switchboard ask`` with a UserPromptSubmit command hook that exits at once but leaves a child holding its
stdout: the run goes on as soon as the hook exits (its answer counts), instead of waiting out the hook's whole
timeout and failing closed as "timed out" (issue 21 item 17)."""

from __future__ import annotations

import io
import json
import sys
import threading
import time
from pathlib import Path

import pytest

from desktop_app.cli import main
from tests.support.llm_server import ScriptedLLMServer, text_reply

TIMEOUT_S = 20  # the hook's own timeout: the old behaviour waited all of it


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX shell")
def test_ask_goes_on_when_the_hook_exits_though_its_child_holds_stdout(
    llm_server: ScriptedLLMServer, tmp_path: Path
) -> None:
    hook = {"type": "command", "command": 'sleep 60 & echo \'{"additional_context": "ctx-from-hook"}\''}
    config = tmp_path / "mcp.json"
    config.write_text(
        json.dumps({"mcpServers": {}, "hooks": {"UserPromptSubmit": [{**hook, "timeout": TIMEOUT_S}]}}),
        encoding="utf-8",
    )
    llm_server.enqueue(text_reply("Answered."))
    out, err = io.StringIO(), io.StringIO()
    codes: list[int] = []
    argv = ["ask", "--home", str(tmp_path / "h"), "--base-url", llm_server.url, "--mcp-config", str(config), "Hi."]
    started = time.monotonic()
    thread = threading.Thread(target=lambda: codes.append(main(argv, out=out, err=err)), daemon=True)
    thread.start()
    thread.join(TIMEOUT_S + 10)
    elapsed = time.monotonic() - started
    assert codes == [0], err.getvalue()
    assert out.getvalue().rstrip("\n") == "Answered."
    assert "timed out" not in err.getvalue()
    assert "ctx-from-hook" in json.dumps(llm_server.requests[0].json)  # the hook's answer was used
    assert elapsed < TIMEOUT_S / 2, f"ask took {elapsed:.1f} s: it waited for the hook's child"
