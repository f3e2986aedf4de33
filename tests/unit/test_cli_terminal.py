"""Terminal answers for `switchboard ask --approve ask`: tool approvals, sampling and elicitation forms."""

from __future__ import annotations

import asyncio
import io
from typing import Any

import pytest

from desktop_app.cli.terminal import NO_TERMINAL, TerminalApprover
from desktop_app.runtime import events as ev


class FakeTTY(io.StringIO):
    def isatty(self) -> bool:
        return True


class Answers:
    """Records what the approver answered, like the Runtime's answer methods."""

    def __init__(self) -> None:
        self.log: list[tuple[str, Any]] = []

    def answer(self, tool_call_id: str, **kwargs: Any) -> None:
        self.log.append(("tool", (tool_call_id, kwargs)))

    def answer_sampling(self, request_id: str, approved: bool, reason: str | None = None) -> None:
        self.log.append(("sampling", (request_id, approved, reason)))

    def answer_elicitation(self, request_id: str, action: str, content: dict[str, Any] | None = None) -> None:
        self.log.append(("elicitation", (request_id, action, content)))


async def drain(approver: TerminalApprover) -> None:
    await asyncio.gather(*approver._tasks)


SCHEMA = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "title": "Your name"},
        "age": {"type": "integer"},
        "colour": {"type": "string", "enum": ["red", "blue"]},
        "subscribe": {"type": "boolean"},
    },
    "required": ["name"],
}


def elicit(schema: dict[str, Any]) -> ev.ElicitationRequested:
    return ev.ElicitationRequested(server="srv", request_id="e1", message="Who are you?", requested_schema=schema)


@pytest.mark.asyncio
async def test_form_fields_are_asked_in_turn_and_coerced(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("sys.stdin", FakeTTY("Ada\n36\nblue\ny\n"))
    answers, out = Answers(), io.StringIO()
    approver = TerminalApprover(answers, out)  # type: ignore[arg-type]
    approver.on_host_event(elicit(SCHEMA))
    await drain(approver)
    assert answers.log == [
        ("elicitation", ("e1", "accept", {"name": "Ada", "age": 36, "colour": "blue", "subscribe": True}))
    ]
    assert "Who are you?" in out.getvalue() and "Your name" in out.getvalue() and "(red/blue)" in out.getvalue()


@pytest.mark.asyncio
async def test_empty_first_answer_declines(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("sys.stdin", FakeTTY("\n"))
    answers = Answers()
    approver = TerminalApprover(answers, io.StringIO())  # type: ignore[arg-type]
    approver.on_host_event(elicit(SCHEMA))
    await drain(approver)
    assert answers.log == [("elicitation", ("e1", "decline", None))]


@pytest.mark.asyncio
async def test_sampling_and_tools_asked_yes_no(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("sys.stdin", FakeTTY("y\nn\n"))
    answers = Answers()
    approver = TerminalApprover(answers, io.StringIO())  # type: ignore[arg-type]
    approver.on_host_event(
        ev.SamplingRequested(server="srv", request_id="s1", messages=[{"role": "user", "text": "hi"}], max_tokens=10)
    )
    await drain(approver)
    approver(
        ev.ApprovalRequired(conversation_id="c", run_id="r", tool_call_id="t1", server="a", tool="b", arguments={})
    )
    await drain(approver)
    assert answers.log == [
        ("sampling", ("s1", True, None)),
        ("tool", ("t1", {"approved": False, "reason": "denied on the terminal"})),
    ]


@pytest.mark.asyncio
async def test_without_a_terminal_everything_is_declined_with_a_reason(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO("y\n"))  # not a TTY
    answers = Answers()
    approver = TerminalApprover(answers, io.StringIO())  # type: ignore[arg-type]
    approver.on_host_event(ev.SamplingRequested(server="srv", request_id="s1", messages=[], max_tokens=10))
    approver.on_host_event(elicit(SCHEMA))
    approver(
        ev.ApprovalRequired(conversation_id="c", run_id="r", tool_call_id="t1", server="a", tool="b", arguments={})
    )
    await drain(approver)
    assert sorted(answers.log, key=str) == sorted(
        [
            ("sampling", ("s1", False, NO_TERMINAL)),
            ("elicitation", ("e1", "decline", None)),
            ("tool", ("t1", {"approved": False, "reason": NO_TERMINAL, "source": "policy"})),
        ],
        key=str,
    )


def test_text_output_names_a_compaction_and_a_failed_one_on_stderr() -> None:
    import io

    from desktop_app.cli.terminal import TextPrinter
    from desktop_app.runtime import events as ev

    out, err = io.StringIO(), io.StringIO()
    printer = TextPrinter(out, err)
    ids = {"conversation_id": "c", "run_id": "r", "compaction_id": "k"}
    printer(ev.ConversationCompacted(**ids, summary="s", turns=3, kept_turns=1, summarised=6, messages_before=8,
                                     messages_after=3, tokens_before=3_100, tokens_after=700))  # fmt: skip
    printer(ev.CompactionFailed(**ids, code="x", message="The provider is down.\x1b[2J"))
    assert out.getvalue() == ""
    assert err.getvalue() == (
        "[compacted] 6 earlier messages summarised; the request ~3,100 → ~700 tokens\n"
        "[compaction failed] The provider is down.\\x1b[2J\n"
    )
