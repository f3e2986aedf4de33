"""The three shipped hook examples (docs/examples/hooks/) wired as a user would, through `switchboard ask`.

* the PII redactor: a stdio MCP server named in mcp.json ``hooks`` as a response hook;
* the rm -rf guard: a PreToolUse shell hook in settings.json;
* the audit hook: a PostToolUse http hook in settings.json against the loopback receiver.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.integration.test_cli_ask import events_of, run_ask
from tests.support.llm_server import ScriptedLLMServer, text_reply, tool_call_reply

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "docs" / "examples" / "hooks"
CRM = [sys.executable, str(ROOT / "tests" / "support" / "hook_tool_server.py")]
pytestmark = pytest.mark.integration


def crm_server() -> dict[str, Any]:
    return {"command": CRM[0], "args": CRM[1:]}


def ask(llm: ScriptedLLMServer, home: Path, *extra: str) -> list[dict[str, Any]]:
    proc = run_ask(
        "--base-url", llm.url, "--model", "m", "--approve", "always", "--events", "jsonl", *extra, "go", home=home
    )
    assert proc.returncode == 0, proc.stderr
    return events_of(proc.stdout)


def write_settings(home: Path, hooks: dict[str, Any]) -> None:
    (home / "config").mkdir(parents=True, exist_ok=True)
    (home / "config" / "settings.json").write_text(json.dumps({"hooks": hooks}))


def test_pii_redaction_server_through_mcp_json_hooks(llm_server: ScriptedLLMServer, tmp_path: Path) -> None:
    config = tmp_path / "mcp.json"
    config.write_text(
        json.dumps(
            {
                "mcpServers": {
                    "crm": crm_server(),
                    "pii": {"command": sys.executable, "args": [str(EXAMPLES / "pii_redactor.py")]},
                },
                "hooks": {"tools/call?direction=response&name=lookup": ["pii/redact"]},
            }
        )
    )
    llm_server.enqueue(tool_call_reply([("c1", "mcp__crm__lookup", {"name": "Ada"})]), text_reply("Done."))
    events = ask(llm_server, tmp_path / "home", "--mcp-config", str(config))

    result = next(e for e in events if e["kind"] == "tool_result")
    assert "ada@example.com" not in result["text"] and "7946" not in result["text"]
    assert "[email redacted]" in result["text"] and "[phone redacted]" in result["text"]
    reason = "redacted 1 e-mail address, 1 phone number"
    assert result["text"].endswith(f"MCP response was mutated by hooks. Reasons: {reason}")
    assert result["meta"]["ai.nanobot.hooks/mutations"] == {"response": {"mutated": True, "reasons": [reason]}}
    [notice] = result["hooks"]
    assert notice["kind"] == "mutated" and notice["hooks"] == ["pii/redact"] and notice["reasons"] == [reason]
    assert "ada@example.com" in notice["before"] and "ada@example.com" not in notice["after"]
    hook_events = [e for e in events if e["kind"] == "hook_notice"]
    assert [e["notice"]["reasons"] for e in hook_events] == [[reason]]
    assert hook_events[0]["tool_call_id"] == result["tool_call_id"]
    # The model never saw the personal data.
    tool_message = llm_server.requests[1].json["messages"][-1]
    assert tool_message["role"] == "tool" and "ada@example.com" not in tool_message["content"]


def test_shell_guard_and_http_audit_through_settings(llm_server: ScriptedLLMServer, tmp_path: Path) -> None:
    """The rm -rf guard blocks only the dangerous call; the audit receiver logs only the call that ran."""
    log = tmp_path / "audit.jsonl"
    receiver = subprocess.Popen(
        [sys.executable, str(EXAMPLES / "audit_receiver.py"), "--port", "0", "--log", str(log)],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert receiver.stdout is not None
        url = receiver.stdout.readline().strip()
        assert url.startswith("http://127.0.0.1:")
        home = tmp_path / "home"
        guard = f"sh {EXAMPLES / 'block-rm-rf.sh'}"
        write_settings(
            home,
            {
                "PreToolUse": [
                    {
                        "type": "command",
                        "command": guard,
                        "match": "mcp__crm__.*",
                        "timeout": 10,
                        "description": "block rm -rf",
                    }
                ],
                "PostToolUse": [{"type": "http", "url": url, "description": "audit log"}],
            },
        )
        config = tmp_path / "mcp.json"
        config.write_text(json.dumps({"mcpServers": {"crm": crm_server()}}))
        llm_server.enqueue(
            tool_call_reply(
                [
                    ("c1", "mcp__crm__run", {"command": "rm -rf ~/projects"}),
                    ("c2", "mcp__crm__run", {"command": "ls -la"}),
                ]
            ),
            text_reply("ok"),
        )
        events = ask(llm_server, home, "--mcp-config", str(config))
    finally:
        receiver.terminate()
        receiver.wait(10)
        if receiver.stdout is not None:
            receiver.stdout.close()
    blocked, allowed = [e for e in events if e["kind"] == "tool_result"]
    assert blocked["is_error"] and json.loads(blocked["text"]) == {
        "success": False,
        "code": "hook_blocked",
        "error": "Blocked by PreToolUse hook block rm -rf: refusing a recursive forced delete (rm -rf); "
        "run it yourself if you really mean it",
    }
    assert blocked["hooks"][0]["kind"] == "blocked" and blocked["hooks"][0]["hooks"] == ["block rm -rf"]
    assert not allowed["is_error"] and allowed["text"] == "would run: ls -la" and allowed["hooks"] == []
    [record] = [json.loads(line) for line in log.read_text().splitlines()]  # the blocked call never ran
    assert record["event"] == "PostToolUse" and record["tool_name"] == "mcp__crm__run"
    assert record["tool_args"] == {"command": "ls -la"} and record["tool_result"] == "would run: ls -la"
    assert record["tool_outcome"] == "success" and record["session_id"] == blocked["conversation_id"]
    assert record["tool_call"]["ID"] == allowed["tool_call_id"]
