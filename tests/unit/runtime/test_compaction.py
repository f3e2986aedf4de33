"""Compaction (#16, Deliver 5): which turns are summarised, what requests send then, undo, failures that leave
the conversation as it was, the store (a reopen sends the same compacted history), and the automatic check
before a request."""

from __future__ import annotations

from pathlib import Path

import pytest

from desktop_app.runtime import events as ev
from desktop_app.runtime.compaction.compactor import CompactionError
from desktop_app.runtime.compaction.plan import Compaction, plan, request_history, summary_request
from desktop_app.runtime.errors import ConversationBusyError, ProviderError
from desktop_app.runtime.messages import AssistantMessage, Message, SystemMessage, UserMessage
from desktop_app.runtime.service import Runtime
from desktop_app.runtime.settings import ProviderSettings, Settings
from desktop_app.runtime.store import Store, attach_store
from desktop_app.runtime.store.compactions import load, restore
from tests.support.fakes import FakeHost, FakeProvider, answer

BASE = "http://127.0.0.1:9/v1"


def history(turns: int) -> list[Message]:
    out: list[Message] = [SystemMessage(content="Be brief.")]
    for n in range(turns):
        out += [UserMessage(content=f"question {n}"), AssistantMessage(content=f"answer {n}")]
    return out


def test_plan_keeps_the_latest_turns_and_folds_in_the_previous_summary() -> None:
    messages = history(5)
    chosen = plan(messages, [], keep_turns=2)
    assert chosen is not None and (chosen.turns, chosen.start, chosen.end, chosen.previous) == (3, 1, 7, None)
    first = Compaction(id="c1", turns=3, summary="Q0-Q2 answered.", messages_before=11, messages_after=6)
    sent = request_history(messages, [first])
    assert [m.content for m in sent] == [
        "Be brief.",
        sent[1].content,
        "question 3",
        "answer 3",
        "question 4",
        "answer 4",
    ]
    assert isinstance(sent[1], SystemMessage) and "Q0-Q2 answered." in sent[1].content
    assert plan(messages, [first], keep_turns=2) is None  # nothing new to compact
    later = plan([*messages, *history(2)[1:]], [first], keep_turns=2)  # two more turns
    assert later is not None and later.previous == first and later.start == 7
    request = summary_request("m", messages, chosen, hook_context="Keep the numbers.")
    text = request.messages[1].content
    assert "[user]\nquestion 0" in text and "[assistant]\nanswer 2" in text and "question 3" not in text
    assert "Keep the numbers." in text and request.tools == ()
    assert summary_request("m", messages, chosen, hook_context="Keep the numbers.") == request  # deterministic
    assert plan(history(1), [], keep_turns=2) is None  # the turn in progress is never summarised
    assert plan(history(2), [], keep_turns=2) is None  # the setting's turns are never summarised
    assert plan(history(2), [], keep_turns=0) == plan(history(2), [], keep_turns=1)  # at least one is kept


def make_runtime(provider: FakeProvider, **settings: object) -> Runtime:
    chosen = ProviderSettings(base_url=BASE, model="m")
    return Runtime(
        settings=Settings(provider=chosen, system_prompt="Be brief.", **settings),  # type: ignore[arg-type]
        host=FakeHost(),
        provider_factory=lambda _s, _k: provider,
        api_key_override="k",
    )


async def run_turns(runtime: Runtime, cid: str, count: int, start: int = 0) -> None:
    for n in range(start, start + count):
        await runtime.run(cid, f"question {n}")


@pytest.mark.asyncio
async def test_compact_now_then_undo_and_the_store_restores_both(tmp_path: Path) -> None:
    provider = FakeProvider([answer(f"answer {n}") for n in range(4)])
    runtime = make_runtime(provider)
    events: list[ev.Event] = []
    runtime.subscribe(events.append)
    store = Store.open(tmp_path / "s.db")
    recorder = attach_store(runtime, store)
    cid = runtime.new_conversation()
    await run_turns(runtime, cid, 4)
    provider.responses.append(answer("The user asked questions 0 and 1; both were answered."))
    mark = await runtime.compact(cid)
    assert (mark.turns, mark.summarised) == (2, 4)
    compacted = next(e for e in events if isinstance(e, ev.ConversationCompacted))
    assert (compacted.kept_turns, compacted.messages_before, compacted.messages_after) == (2, 9, 6)
    assert compacted.tokens_before > 0 and compacted.tokens_after > 0  # (tiny turns: the summary frame is bigger)
    summary_call = provider.requests[-1]
    assert summary_call.tools == () and "question 1" in summary_call.messages[1].content
    assert len(runtime.conversation(cid).messages) == 9  # nothing was deleted
    provider.responses.append(answer("answer 4"))
    await runtime.run(cid, "question 4")
    sent = [m.content for m in provider.requests[-1].messages]
    assert (
        sent[0] == "Be brief."
        and "questions 0 and 1" in sent[1]
        and sent[2:]
        == [
            "question 2",
            "answer 2",
            "question 3",
            "answer 3",
            "question 4",
        ]
    )
    # After a restart: the store gives the same marks, and the next request is compacted the same way.
    stored = load(store, cid)
    assert [(row.compaction.id, row.compaction.turns, row.compaction.undone) for row in stored] == [(mark.id, 2, False)]
    assert row_boundary_is_the_third_prompt(store, cid, stored[0].boundary)
    again = make_runtime(FakeProvider())
    again.load_conversation(cid, [SystemMessage(content="Be brief."), *store.load_messages(cid)])
    restore(again, store, cid)
    assert again.context_budget(cid).total == runtime.context_budget(cid).total
    # Undo: the next request has the full history again; the store remembers the undo.
    runtime.undo_compaction(cid)
    assert any(isinstance(e, ev.CompactionUndone) and e.compaction_id == mark.id for e in events)
    provider.responses.append(answer("answer 5"))
    await runtime.run(cid, "question 5")
    users = [m.content for m in provider.requests[-1].messages if isinstance(m, UserMessage)]
    assert users == [f"question {n}" for n in range(6)]
    assert [row.compaction.undone for row in load(store, cid)] == [True]
    with pytest.raises(CompactionError, match="no compaction to undo"):
        runtime.undo_compaction(cid)
    # Deleting messages a compaction covered undoes it; deleting only verbatim ones (regenerate) does not.
    provider.responses.append(answer("Summary again."))
    second = await runtime.compact(cid)
    (kept,) = [row for row in load(store, cid) if row.compaction.id == second.id]
    store.delete_message_range(cid, store.user_positions(cid)[-1] + 1)  # the last answer: regenerate
    assert not next(r for r in load(store, cid) if r.compaction.id == second.id).compaction.undone
    store.delete_message_range(cid, kept.boundary - 2, kept.boundary)  # a covered turn, shown and deleted
    assert next(r for r in load(store, cid) if r.compaction.id == second.id).compaction.undone
    recorder.close()
    store.close()


def row_boundary_is_the_third_prompt(store: Store, cid: str, boundary: int) -> bool:
    return store.user_positions(cid)[2] == boundary


@pytest.mark.asyncio
async def test_a_failed_compaction_leaves_the_conversation_as_it_was() -> None:
    provider = FakeProvider([answer(f"answer {n}") for n in range(3)])
    runtime = make_runtime(provider)
    events: list[ev.Event] = []
    runtime.subscribe(events.append)
    cid = runtime.new_conversation()
    await run_turns(runtime, cid, 3)
    before = list(runtime.conversation(cid).messages)
    provider.responses.append([ProviderError("The provider is overloaded.")])
    with pytest.raises(CompactionError, match="could not be compacted"):
        await runtime.compact(cid)
    failed = [e for e in events if isinstance(e, ev.CompactionFailed)]
    assert len(failed) == 1 and "left as it was" in failed[0].message
    conv = runtime.conversation(cid)
    assert conv.messages == before and conv.compactions == [] and conv.active_run is None
    provider.responses.append(answer(""))
    with pytest.raises(CompactionError, match="empty summary"):
        await runtime.compact(cid)
    assert runtime.conversation(cid).compactions == []
    short = runtime.new_conversation()
    provider.responses.append(answer("hi"))
    await runtime.run(short, "only one turn")
    with pytest.raises(CompactionError, match="Nothing to compact"):
        await runtime.compact(short)
    runtime.conversation(cid).active_run = "busy"
    with pytest.raises(ConversationBusyError):
        await runtime.compact(cid)


@pytest.mark.asyncio
async def test_the_next_request_past_the_threshold_compacts_first() -> None:
    long_answer = "word " * 400  # ~500 tokens each
    provider = FakeProvider([answer(long_answer) for _ in range(4)])
    runtime = make_runtime(provider, compact_threshold_percent=80, compact_keep_turns=1)
    runtime.windows.remember(BASE, {"m": 1_800})
    events: list[ev.Event] = []
    runtime.subscribe(events.append)
    cid = runtime.new_conversation()
    await run_turns(runtime, cid, 3)  # the third request: ~1,040 tokens, under 80 % of 1,800
    assert not any(isinstance(e, ev.CompactionStarted) for e in events)
    assert runtime.context_budget(cid).fraction is not None
    provider.responses.insert(0, answer("Three long answers about questions 0-2."))
    await runtime.run(cid, "question 3")
    kinds = [e.kind for e in events if e.kind in ("compaction_started", "conversation_compacted", "run_finished")]
    assert kinds[-3:] == ["compaction_started", "conversation_compacted", "run_finished"]
    compacted = next(e for e in events if isinstance(e, ev.ConversationCompacted))
    assert compacted.reason == "auto" and compacted.turns == 3
    final = provider.requests[-1]
    assert [m.content for m in final.messages if isinstance(m, UserMessage)] == ["question 3"]
    assert runtime.context_budget(cid).fraction < 0.8  # type: ignore[operator]


@pytest.mark.asyncio
async def test_a_precompact_halt_stops_it_and_exit_2_only_warns(tmp_path: Path) -> None:
    import asyncio

    from desktop_app.runtime.hooks.config import parse_hooks
    from desktop_app.runtime.hooks.model import HookSource
    from desktop_app.runtime.hooks.runner import HookRunner

    provider = FakeProvider([answer(f"answer {n}") for n in range(3)])
    runtime = make_runtime(provider)
    runner = HookRunner(cwd=tmp_path)
    halt = {"command": """echo '{"decision": "halt", "reason": "not during the demo"}'""", "description": "guard"}
    runner.add_hooks(parse_hooks({"PreCompact": [halt]}, HookSource("user")))
    runtime.host.hooks = runner  # type: ignore[union-attr]
    events: list[ev.Event] = []
    runtime.subscribe(events.append)
    cid = runtime.new_conversation()
    await run_turns(runtime, cid, 3)
    asked = len(provider.requests)
    with pytest.raises(CompactionError, match="not during the demo") as failed:
        await runtime.compact(cid)
    assert failed.value.code == "hook_blocked" and len(provider.requests) == asked  # no summary was asked for
    event = next(e for e in events if isinstance(e, ev.CompactionFailed))
    assert any(n.kind == "blocked" and n.event == "PreCompact" for n in event.notices)
    assert runtime.compactions(cid) == []
    # Exit code 2 on a non-blocking event is a warning (Whale): the compaction goes on, and says so.
    runner2 = HookRunner(cwd=tmp_path)
    runner2.add_hooks(parse_hooks({"PreCompact": [{"command": "echo careful >&2; exit 2"}]}, HookSource("user")))
    runtime.host.hooks = runner2  # type: ignore[union-attr]
    provider.responses.append(answer("Summary."))
    await runtime.compact(cid)
    done = next(e for e in events if isinstance(e, ev.ConversationCompacted))
    assert [n.kind for n in done.notices] == ["warning"] and "careful" in done.notices[0].message
    # Stopping a compaction (Esc) leaves the conversation as it was.
    runtime.undo_compaction(cid)
    provider.gate = asyncio.Event()
    provider.responses.append(answer("Never used."))
    started = asyncio.Event()
    runtime.subscribe(lambda e: started.set() if isinstance(e, ev.CompactionStarted) else None)
    task = asyncio.ensure_future(runtime.compact(cid))
    await started.wait()
    assert runtime.is_running(cid)  # it holds the conversation like a run
    runtime.cancel(cid)
    with pytest.raises(CompactionError, match="stopped"):
        await task
    assert [c.undone for c in runtime.compactions(cid)] == [True] and not runtime.is_running(cid)
