"""Issue 8 items 7, 8 and 10 end to end through ``switchboard ask`` (in-process ``cli.main``) and the loopback.

An incomplete run (token limit, content filter, tool-round limit) prints a notice on stderr and exits with
its own documented code; an error object inside the stream fails the run with the provider's message and
keeps the partial text; control sequences in model text and tool results never reach the terminal raw.
"""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from desktop_app import cli
from desktop_app.runtime.store import Store
from tests.support.llm_server import DONE, Reply, ScriptedLLMServer, chunk, sse, text_reply, tool_call_reply

pytestmark = pytest.mark.integration


def ask(server: ScriptedLLMServer, home: Path, *extra: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = cli.main(
        ["ask", "--home", str(home), "--base-url", server.url, "--model", "m", "--approve", "never", *extra, "go"],
        out=out,
        err=err,
    )
    return code, out.getvalue(), err.getvalue()


def finished(content: str, finish_reason: str) -> Reply:
    return Reply(steps=[chunk(content=content), chunk(finish_reason=finish_reason), DONE])


def test_exit_codes_are_distinct_and_documented() -> None:
    codes = [cli.EXIT_OK, cli.EXIT_FAILED, cli.EXIT_USAGE, cli.EXIT_TOOL_ROUND_LIMIT]
    codes += [cli.EXIT_MAX_TOKENS, cli.EXIT_CONTENT_FILTER]
    assert len(set(codes)) == len(codes) == 6
    assert cli.__doc__ is not None
    for code, words in [(3, "tool-round limit"), (4, "token"), (5, "content filter")]:
        assert f"{code} the" in cli.__doc__ and words in cli.__doc__
    readme = (Path(__file__).resolve().parents[2] / "docs" / "cli.md").read_text(encoding="utf-8")
    for code in (3, 4, 5):
        assert f"`{code}`" in readme


@pytest.mark.parametrize(
    ("finish_reason", "code", "notice"),
    [
        ("length", cli.EXIT_MAX_TOKENS, "token limit"),
        ("content_filter", cli.EXIT_CONTENT_FILTER, "content filter"),
        ("stop", cli.EXIT_OK, None),
    ],
)
def test_a_cut_or_filtered_answer_gets_a_notice_and_its_own_exit_code(
    llm_server: ScriptedLLMServer, tmp_path: Path, finish_reason: str, code: int, notice: str | None
) -> None:
    llm_server.enqueue(finished("Half an answ", finish_reason))
    exit_code, out, err = ask(llm_server, tmp_path / "h")
    assert exit_code == code, err
    assert out == "Half an answ\n"
    if notice is None:
        assert "incomplete" not in err
    else:
        assert f"switchboard: incomplete: the {'answer' if code == 4 else 'provider'}" in err and notice in err


def test_content_filter_is_its_own_reason_in_the_events_and_the_store(
    llm_server: ScriptedLLMServer, tmp_path: Path
) -> None:
    llm_server.enqueue(finished("", "content_filter"))  # filtered before any text: not an "empty answer" retry
    home = tmp_path / "h"
    exit_code, out, err = ask(llm_server, home, "--events", "jsonl")
    assert exit_code == cli.EXIT_CONTENT_FILTER, err
    events = [json.loads(line) for line in out.splitlines()]
    assert events[-1]["kind"] == "run_finished" and events[-1]["reason"] == "content_filter"
    assert len(llm_server.requests) == 1
    assert "content filter" in err  # the notice goes to stderr, stdout stays pure JSON
    store = Store.open(home / "data" / "switchboard.db")
    try:
        [conversation] = store.list_conversations()
        assert [run.reason for run in store.runs(conversation.id).values()] == ["content_filter"]
    finally:
        store.close()


def test_the_tool_round_limit_gets_a_notice_and_exit_code_3(llm_server: ScriptedLLMServer, tmp_path: Path) -> None:
    home = tmp_path / "h"
    (home / "config").mkdir(parents=True)
    (home / "config" / "settings.json").write_text(json.dumps({"max_tool_rounds": 1}), encoding="utf-8")
    llm_server.enqueue(tool_call_reply([("call_1", "mcp__nowhere__nothing", {})]), text_reply("unused"))
    exit_code, _out, err = ask(llm_server, home)
    assert exit_code == cli.EXIT_TOOL_ROUND_LIMIT, err
    assert "switchboard: incomplete: stopped after the tool-round limit" in err
    assert len(llm_server.requests) == 1


def test_an_error_object_in_the_stream_fails_the_run_and_keeps_the_partial_text(
    llm_server: ScriptedLLMServer, tmp_path: Path
) -> None:
    error = {"error": {"message": "The server had an error while processing your request.", "type": "server_error"}}
    llm_server.enqueue(Reply(steps=[chunk(content="Partial "), chunk(content="text"), sse(error)]))
    home = tmp_path / "h"
    exit_code, out, err = ask(llm_server, home)
    assert exit_code == cli.EXIT_FAILED
    assert out.startswith("Partial text")
    assert "error: The model provider reported an error mid-answer (server_error): The server had an error" in err
    store = Store.open(home / "data" / "switchboard.db")
    try:
        [conversation] = store.list_conversations()
        [run] = store.runs(conversation.id).values()
        assert run.status == "failed"
        assert "The server had an error" in (run.error or "")
        messages = store.messages(conversation.id)
        texts = [part.text for message in messages for part in message.parts if part.kind == "text"]
        assert "Partial text" in texts
    finally:
        store.close()


def test_control_sequences_are_neutralised_on_the_terminal_but_not_in_jsonl(
    llm_server: ScriptedLLMServer, tmp_path: Path
) -> None:
    hostile = "Hi\x1b]0;pwned\x07 \x1b[2J\x1b[31mred\x1b[0m\rgone\u202eevil\nnext"
    llm_server.enqueue(Reply(steps=[chunk(content=hostile), chunk(finish_reason="stop"), DONE]))
    exit_code, out, err = ask(llm_server, tmp_path / "h")
    assert exit_code == 0, err
    assert "\x1b" not in out and "\x07" not in out and "\r" not in out and "\u202e" not in out
    assert out == "Hi\\x1b]0;pwned\\x07 \\x1b[2J\\x1b[31mred\\x1b[0m\\x0dgone\\u202eevil\nnext\n"

    llm_server.enqueue(Reply(steps=[chunk(content=hostile), chunk(finish_reason="stop"), DONE]))
    exit_code, out, err = ask(llm_server, tmp_path / "h2", "--events", "jsonl")
    assert exit_code == 0, err
    deltas = [json.loads(line) for line in out.splitlines() if '"content_delta"' in line]
    assert "".join(d["text"] for d in deltas) == hostile  # JSON carries the raw text, escaped by JSON itself
    assert "\x1b" not in out


def test_control_sequences_in_tool_results_are_neutralised(llm_server: ScriptedLLMServer, tmp_path: Path) -> None:
    llm_server.enqueue(tool_call_reply([("call_1", "mcp__no\x1b[2Jwhere__x", {"a": "\x1b[31m"})]), text_reply("done"))
    exit_code, _out, err = ask(llm_server, tmp_path / "h")
    assert exit_code == 0, err
    assert "[error] Tool 'mcp__no\\x1b[2Jwhere__x' not found." in err
    assert "\x1b" not in err
