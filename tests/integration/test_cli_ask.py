"""`switchboard ask` end to end: the real console script, the loopback SSE server and a real MCP server."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.cli_ask import SWITCHBOARD as SWITCHBOARD  # imported from here by test_hooks_trust
from tests.support.cli_ask import ask_time_round, events_of, run_ask
from tests.support.llm_server import ScriptedLLMServer, error_reply, text_reply, tool_call_reply


def test_events_jsonl_reasoning_then_content_then_finished(llm_server: ScriptedLLMServer, tmp_path: Path) -> None:
    llm_server.enqueue(text_reply("Hello there, friend.", reasoning="The user greets me."))
    proc = run_ask(
        "--base-url",
        llm_server.url,
        "--dialect",
        "deepseek",
        "--model",
        "deepseek-chat",
        "--events",
        "jsonl",
        "hi",
        home=tmp_path / "h",
    )
    assert proc.returncode == 0, proc.stderr
    events = events_of(proc.stdout)
    kinds = [e["kind"] for e in events]
    assert kinds[0] == "run_started" and kinds[-1] == "run_finished"
    first_content = kinds.index("content_delta")
    assert set(kinds[1:first_content]) == {"reasoning_delta"}
    assert "reasoning_delta" not in kinds[first_content:]
    assert "".join(e["text"] for e in events if e["kind"] == "reasoning_delta") == "The user greets me."
    assert "".join(e["text"] for e in events if e["kind"] == "content_delta") == "Hello there, friend."
    assert len({(e["conversation_id"], e["run_id"]) for e in events}) == 1
    usage = next(e for e in events if e["kind"] == "usage")
    assert usage["usage"]["total_tokens"] == 15
    body = llm_server.requests[0].json
    assert body["model"] == "deepseek-chat" and body["stream"] is True
    assert body["messages"][-1] == {"role": "user", "content": "hi"}


def test_a_two_request_turn_reports_the_usage_of_both(llm_server: ScriptedLLMServer, tmp_path: Path) -> None:
    # The tool-calling request's usage frame comes after finish_reason: tool_calls (include_usage).
    llm_server.enqueue(
        tool_call_reply([("call_1", "mcp__nowhere__tool", {})]),
        text_reply("No such tool, sorry."),
    )
    proc = run_ask("--base-url", llm_server.url, "--events", "jsonl", "go", home=tmp_path / "h")
    assert proc.returncode == 0, proc.stderr
    events = events_of(proc.stdout)
    assert len(llm_server.requests) == 2
    assert [e["usage"]["total_tokens"] for e in events if e["kind"] == "usage"] == [15, 15]


@pytest.mark.integration
def test_tool_call_reaches_the_real_time_server(
    llm_server: ScriptedLLMServer, tmp_path: Path, time_config: Path
) -> None:
    llm_server.enqueue(
        tool_call_reply([("call_1", "mcp__time__get_current_time", {"timezone": "UTC"})], reasoning="Need time."),
        text_reply("It is the time the server said.", reasoning="Got it."),
    )
    ask_time_round(
        "--base-url",
        llm_server.url,
        "--dialect",
        "deepseek",
        mcp_config=time_config,
        home=tmp_path / "h",
        model_call_id="call_1",
        answer="It is the time the server said.",
    )
    # The model saw the tool, and got the result back; DeepSeek needs reasoning_content on tool-call messages.
    first, second = (r.json for r in llm_server.requests)
    assert "mcp__time__get_current_time" in [t["function"]["name"] for t in first["tools"]]
    assistant = second["messages"][-2]
    assert assistant["tool_calls"][0]["id"] == "call_1"
    assert assistant["reasoning_content"] == "Need time."
    assert second["messages"][-1]["role"] == "tool" and second["messages"][-1]["tool_call_id"] == "call_1"
    assert json.loads(second["messages"][-1]["content"])["timezone"] == "UTC"


@pytest.mark.integration
@pytest.mark.parametrize("approve", ["never", "ask"])
def test_denied_tool_calls_go_back_as_errors(
    llm_server: ScriptedLLMServer, tmp_path: Path, time_config: Path, approve: str
) -> None:
    llm_server.enqueue(
        tool_call_reply([("call_1", "mcp__time__get_current_time", {"timezone": "UTC"})]),
        text_reply("I could not check the time."),
    )
    proc = run_ask(
        "--base-url",
        llm_server.url,
        "--mcp-config",
        str(time_config),
        "--approve",
        approve,
        "--events",
        "jsonl",
        "time?",
        home=tmp_path / "h",
    )
    assert proc.returncode == 0, proc.stderr
    events = events_of(proc.stdout)
    decided = next(e for e in events if e["kind"] == "approval_decided")
    assert decided["approved"] is False
    assert decided["source"] == "policy"  # no terminal to ask on (or --approve never): not the user's answer
    result = next(e for e in events if e["kind"] == "tool_result")
    assert result["is_error"] is True and "denied" in result["text"]
    tool_message = llm_server.requests[1].json["messages"][-1]
    assert "denied" in tool_message["content"]
    from desktop_app.runtime.store import Store

    with Store.open(tmp_path / "h" / "data" / "switchboard.db") as store:
        [conversation] = store.list_conversations()
        [record] = store.approvals(conversation.id)
        assert (record["decision"], record["source"]) == ("denied", "policy")


def test_text_mode_streams_answer_to_stdout_and_reasoning_to_stderr(
    llm_server: ScriptedLLMServer, tmp_path: Path
) -> None:
    llm_server.enqueue(text_reply("The answer.", reasoning="Hmm, reasoning."))
    proc = run_ask("--base-url", llm_server.url, "--dialect", "deepseek", "q", home=tmp_path / "h")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "The answer."
    assert "Hmm, reasoning." in proc.stderr
    assert (tmp_path / "h" / "logs" / "switchboard.log").exists()  # --home holds the logs


def test_failed_run_exits_1_with_the_error(llm_server: ScriptedLLMServer, tmp_path: Path) -> None:
    llm_server.enqueue(error_reply(401, {"error": {"message": "Invalid API key"}}))
    proc = run_ask("--base-url", llm_server.url, "--events", "jsonl", "q", home=tmp_path / "h")
    assert proc.returncode == 1
    error = events_of(proc.stdout)[-1]
    assert error["kind"] == "error" and "401" in error["message"]


def test_bad_config_exits_2_naming_the_file(tmp_path: Path) -> None:
    bad = tmp_path / "mcp.json"
    bad.write_text('{"mcpServers": {"x": {"command": "a" "args": []}}}')
    proc = run_ask("--base-url", "http://127.0.0.1:9/v1", "--mcp-config", str(bad), "q", home=tmp_path / "h")
    assert proc.returncode == 2
    assert str(bad) in proc.stderr and ":1:" in proc.stderr
    assert bad.read_text() == '{"mcpServers": {"x": {"command": "a" "args": []}}}'


def test_usage_errors_exit_2(tmp_path: Path) -> None:
    assert run_ask("--approve", "maybe", "q", home=tmp_path / "h").returncode == 2
    missing_provider = run_ask("q", home=tmp_path / "h")
    assert missing_provider.returncode == 2 and "--base-url" in missing_provider.stderr
    missing_file = run_ask(
        "--base-url", "http://127.0.0.1:9/v1", "--mcp-config", str(tmp_path / "nope.json"), "q", home=tmp_path / "h"
    )
    assert missing_file.returncode == 2 and "nope.json" in missing_file.stderr


def test_attach_inlines_a_text_file_and_refuses_binaries(llm_server: ScriptedLLMServer, tmp_path: Path) -> None:
    notes = tmp_path / "notes.txt"
    notes.write_text("the launch code is tomato")
    llm_server.enqueue(text_reply("Noted."))
    proc = run_ask("--base-url", llm_server.url, "--attach", str(notes), "summarise", home=tmp_path / "h")
    assert proc.returncode == 0, proc.stderr
    user = llm_server.requests[0].json["messages"][-1]
    text = user["content"] if isinstance(user["content"], str) else json.dumps(user["content"])
    assert "notes.txt" in text and "the launch code is tomato" in text and "summarise" in text
    blob = tmp_path / "blob.bin"
    blob.write_bytes(bytes(range(256)) * 4)
    refused = run_ask("--base-url", llm_server.url, "--attach", str(blob), "what is it", home=tmp_path / "h")
    assert refused.returncode == 1
    assert "blob.bin" in refused.stderr
    assert len(llm_server.requests) == 1  # refused before anything was sent
