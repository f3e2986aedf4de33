"""``switchboard ask`` in-process with a response message hook that answers plain text: the call fails closed
(the model gets an error naming the hook, never the tool's output) and a ``hook_notice`` says so."""

from __future__ import annotations

import io
import json
import sys
import threading
from pathlib import Path

from desktop_app.cli import main
from tests.support.llm_server import ScriptedLLMServer, text_reply, tool_call_reply

BOUND_S = 30
ROOT = Path(__file__).resolve().parents[2]


def _run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    result: list[int] = []
    thread = threading.Thread(target=lambda: result.append(main(list(argv), out=out, err=err)), daemon=True)
    thread.start()
    thread.join(BOUND_S)
    assert result, f"switchboard ask did not end within {BOUND_S} s; stderr so far: {err.getvalue()}"
    return result[0], out.getvalue(), err.getvalue()


def test_a_message_hook_answering_plain_text_fails_the_call_closed_through_ask(
    llm_server: ScriptedLLMServer, tmp_path: Path
) -> None:
    server = {"command": sys.executable, "args": ["-m", "tests.support.chatty_hook_server"], "cwd": str(ROOT)}
    server["hooks"] = {"tools/call?direction=response&name=lookup": ["crm/verdict"]}
    config = tmp_path / "mcp.json"
    config.write_text(json.dumps({"mcpServers": {"crm": server}}), encoding="utf-8")
    llm_server.enqueue(tool_call_reply([("c1", "mcp__crm__lookup", {"name": "Ada"})]), text_reply("Could not."))
    code, out, err = _run(
        "ask", "--home", str(tmp_path / "h"), "--base-url", llm_server.url, "--model", "m",
        "--mcp-config", str(config), "--approve", "always", "--events", "jsonl", "Look up Ada.",
    )  # fmt: skip
    assert code == 0, err
    events = [json.loads(line) for line in out.splitlines()]
    [result] = [e for e in events if e["kind"] == "tool_result"]
    assert result["is_error"] is True and "ada@example.com" not in json.dumps(result)
    assert "crm/verdict" in result["text"] and "not an object" in result["text"]
    notices = [e for e in events if e["kind"] == "hook_notice"]
    assert notices and "crm/verdict" in notices[0]["notice"]["message"]
    assert "ada@example.com" not in json.dumps(llm_server.requests[-1].json)  # the model never saw the output
