"""``switchboard ask`` in-process against the loopback LLM server: the approval policy it runs under.

Without ``--approve`` a call that needs approval is asked (denied here: no terminal), never run unasked; with
``--approve always``, an agent whose file says ``approval: ask`` still asks in its sub-run, and that question is
answered by the same rule (denied without a terminal) instead of waiting forever."""

from __future__ import annotations

import io
import json
import threading
from pathlib import Path

from desktop_app.cli import build_parser, main
from desktop_app.cli.terminal import NO_TERMINAL
from tests.support.llm_server import ScriptedLLMServer, text_reply, tool_call_reply

BOUND_S = 20  # a hang is a failure, not a stuck suite


def run_cli(*argv: str) -> tuple[int, str, str]:
    """``main(argv)`` on a daemon thread, bounded: a run that never ends fails the test."""
    out, err = io.StringIO(), io.StringIO()
    result: list[int] = []
    thread = threading.Thread(target=lambda: result.append(main(list(argv), out=out, err=err)), daemon=True)
    thread.start()
    thread.join(BOUND_S)
    assert result, f"switchboard {argv[0]} did not end within {BOUND_S} s; stderr so far: {err.getvalue()}"
    return result[0], out.getvalue(), err.getvalue()


def events(stdout: str) -> list[dict[str, object]]:
    return [json.loads(line) for line in stdout.splitlines() if line.strip()]


def test_ask_defaults_to_asking() -> None:
    assert build_parser().parse_args(["ask", "hi"]).approve == "ask"


def test_ask_without_approve_asks_before_a_writing_tool_and_without_a_terminal_denies_it(
    llm_server: ScriptedLLMServer, tmp_path: Path
) -> None:
    llm_server.enqueue(
        tool_call_reply([("s1", "save_artifact", {"name": "note.md", "content": "x"})]),
        text_reply("Not saved."),
    )
    home = tmp_path / "h"
    code, out, _ = run_cli("ask", "--home", str(home), "--base-url", llm_server.url, "--events", "jsonl", "save it")
    assert code == 0
    seen = events(out)
    assert [e["kind"] for e in seen].count("approval_required") == 1
    [decided] = [e for e in seen if e["kind"] == "approval_decided"]
    assert decided["approved"] is False and decided["reason"] == NO_TERMINAL
    [result] = [e for e in seen if e["kind"] == "tool_result"]
    assert result["is_error"] is True
    assert not list(home.rglob("note.md"))  # nothing was written


def test_ask_approve_always_answers_a_stricter_agents_approval_by_policy_instead_of_hanging(
    llm_server: ScriptedLLMServer, tmp_path: Path
) -> None:
    home = tmp_path / "h"
    (home / "config" / "agents").mkdir(parents=True)
    (home / "config" / "agents" / "careful.md").write_text(
        "---\ndescription: Asks first\napproval: ask\n---\nYou are careful.\n"
    )
    llm_server.enqueue(
        tool_call_reply([("a1", "chat-with-careful", {"prompt": "Save a note"})]),
        tool_call_reply([("s1", "save_artifact", {"name": "note.md", "content": "x"})]),  # the careful agent
        text_reply("I was not allowed to save."),
        text_reply("The careful agent could not save."),
    )
    code, out, err = run_cli(
        "ask", "--home", str(home), "--base-url", llm_server.url, "--approve", "always", "Ask careful to save"
    )
    assert code == 0, err
    assert out.strip().endswith("The careful agent could not save.")
    denied = llm_server.requests[2].json["messages"][-1]  # the careful agent's tool result
    assert denied["role"] == "tool" and NO_TERMINAL in denied["content"]
    assert not list(home.rglob("note.md"))
