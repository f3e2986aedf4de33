"""The recorder: a full run round-trips to the model messages; the 250 ms flush rule; stream resets; ends."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from desktop_app.runtime import events as ev
from desktop_app.runtime.messages import SystemMessage, ToolCallRequest
from desktop_app.runtime.providers.base import Completion, ContentChunk, ProviderEvent, ReasoningChunk, UsageChunk
from desktop_app.runtime.run.approvals import ApprovalPolicy
from desktop_app.runtime.service import Runtime
from desktop_app.runtime.settings import ProviderSettings, Settings
from desktop_app.runtime.store import Recorder, Store, attach_store
from tests.support.fakes import FakeHost, FakeProvider, ModelIds
from tests.unit.runtime.store.conftest import FakeClock

IDS = {"conversation_id": "c1", "run_id": "r1"}


def usage(prompt: int = 10, completion: int = 5, hit: int = 0) -> UsageChunk:
    return UsageChunk(
        usage=ev.TokenUsage(
            prompt_tokens=prompt, completion_tokens=completion, total_tokens=prompt + completion, cache_hit_tokens=hit
        )
    )


def tool_round(*calls: tuple[str, str, str], reasoning: str = "", content: str = "") -> list[ProviderEvent]:
    requests = tuple(ToolCallRequest(id=i, name=n, arguments=a) for i, n, a in calls)
    items: list[ProviderEvent] = []
    if reasoning:
        items.append(ReasoningChunk(text=reasoning))
    if content:
        items.append(ContentChunk(text=content))
    items += [usage(), Completion(content=content, reasoning=reasoning, tool_calls=requests, finish_reason="tool_use")]
    return items


def make_runtime(provider: FakeProvider, host: FakeHost) -> Runtime:
    settings = Settings(provider=ProviderSettings(base_url="http://127.0.0.1:9/v1", model="m"))
    return Runtime(settings=settings, host=host, policy=ApprovalPolicy("ask"), provider_factory=lambda _s, _k: provider)


class Approver:
    def __init__(self, runtime: Runtime, answers: dict[str, tuple[bool, str | None]]) -> None:
        self.runtime, self.answers = runtime, answers
        self.ids = ModelIds()  # ``answers`` are keyed on the model's ids

    def __call__(self, event: ev.Event) -> None:
        self.ids(event)
        if isinstance(event, ev.ApprovalRequired):
            approved, reason = self.answers[self.ids.model(event.tool_call_id)]
            self.runtime.answer(event.tool_call_id, approved=approved, reason=reason)


@pytest.mark.asyncio
async def test_a_full_run_round_trips_to_the_same_model_messages(store: Store) -> None:
    def fail(_args: dict[str, Any]) -> str:
        raise ZeroDivisionError("division by zero")

    host = FakeHost(handlers={"clock": lambda args: f"noon in {args['tz']}", "fail": fail})
    provider = FakeProvider(
        [
            tool_round(("t1", "mcp__fake__clock", '{"tz": "UTC"}'), reasoning="Need the time.", content="Checking."),
            tool_round(("t2", "mcp__fake__fail", "{}"), ("t3", "mcp__fake__nope", "{}"),
                       ("t4", "mcp__fake__clock", "{}")),
            tool_round(("t5", "mcp__fake__clock", '{"tz": "CET"}')),  # a round with no text at all
            [ReasoningChunk(text="Got "), ReasoningChunk(text="it."), ContentChunk(text="It is "),
             ContentChunk(text="noon."), usage(20, 7, hit=12), Completion(content="It is noon.", reasoning="Got it.")],
        ]
    )  # fmt: skip
    runtime = make_runtime(provider, host)
    recorder = attach_store(runtime, store)
    runtime.subscribe(approver := Approver(runtime, {"t1": (True, None), "t2": (True, None), "t4": (False, "not twice"),
                                         "t5": (True, None)}))  # fmt: skip
    cid = runtime.new_conversation()
    outcome = await runtime.run(cid, "What time is it?")
    await runtime.aclose()
    recorder.close()
    assert outcome.status == "finished"

    live = [m for m in runtime.conversation(cid).messages if not isinstance(m, SystemMessage)]
    assert store.load_messages(cid) == live
    assert [m.role for m in store.messages(cid)] == ["user", "assistant", "tool", "assistant", "tool", "tool", "tool",
                                                     "assistant", "tool", "assistant"]  # fmt: skip
    assert {m.status for m in store.messages(cid)} == {"complete"}
    info = store.get_conversation(cid)
    assert info is not None
    assert (info.title, info.model, info.base_url) == ("What time is it?", "m", "http://127.0.0.1:9/v1")
    (run,) = store.runs(cid).values()
    assert run.status == "finished" and run.ended_at is not None
    approvals = {approver.ids.model(a["tool_call_id"]): a for a in store.approvals(cid)}
    assert approvals["t1"]["decision"] == "approved" and approvals["t1"]["source"] == "user"
    assert approvals["t1"]["arguments_before"] == {"tz": "UTC"} == approvals["t1"]["arguments_after"]
    assert approvals["t4"]["decision"] == "denied" and approvals["t4"]["reason"] == "not twice"
    assert approvals["t1"]["server"] == "fake" and approvals["t1"]["tool"] == "clock"
    assert "t3" not in approvals  # an unknown tool is never asked about
    totals = store.usage(cid)
    assert len(totals) == 4 and totals[-1]["cache_hit_tokens"] == 12 and totals[-1]["total_tokens"] == 27
    assert recorder.stats.count > 0
    assert [h.conversation_id for h in store.search("noon")] == [cid]


def started(recorder: Recorder, prompt: str = "hi") -> None:
    recorder(ev.RunStarted(**IDS, model="m", prompt=prompt))


def stored_text(store: Store, kind: str = "text") -> str:
    return "".join(m.text_of(kind) for m in store.messages("c1") if m.role == "assistant")


def test_deltas_flush_at_once_for_a_new_part_then_every_200_ms_and_on_other_events(
    store: Store, clock: FakeClock
) -> None:
    """The default interval is the README's: stored every 200 ms while streaming."""
    recorder = Recorder(store, clock=clock, use_timer=False)
    started(recorder)
    recorder(ev.ContentDelta(**IDS, text="a"))
    assert stored_text(store) == "a"  # the first delta of a part is written at once
    clock.advance(0.1)
    recorder(ev.ContentDelta(**IDS, text="b"))
    clock.advance(0.099)
    recorder(ev.ContentDelta(**IDS, text="c"))
    assert stored_text(store) == "a"  # 199 ms since the last flush: still buffered
    clock.advance(0.001)
    recorder(ev.ContentDelta(**IDS, text="d"))
    assert stored_text(store) == "abcd"  # the delta past the deadline flushed the buffer
    clock.advance(0.01)
    recorder(ev.ContentDelta(**IDS, text="e"))
    assert stored_text(store) == "abcd"
    recorder.flush()
    assert stored_text(store) == "abcde"
    clock.advance(0.01)
    recorder(ev.ContentDelta(**IDS, text="f"))
    recorder(ev.Usage(**IDS, usage=ev.TokenUsage(total_tokens=3)))  # any other event flushes
    assert stored_text(store) == "abcdef"
    assert store.messages("c1")[-1].status == "streaming"
    recorder(ev.RunFinished(**IDS, content="abcdef"))
    assert store.messages("c1")[-1].status == "complete"
    assert recorder.stats.max_s < 0.05


def test_switching_between_reasoning_and_text_ends_the_part_and_indexes_it(store: Store, clock: FakeClock) -> None:
    recorder = Recorder(store, clock=clock, use_timer=False)
    started(recorder)
    recorder(ev.ReasoningDelta(**IDS, text="pondering "))
    recorder(ev.ReasoningDelta(**IDS, text="quokkas"))
    assert store.search("quokkas") == []
    recorder(ev.ContentDelta(**IDS, text="Answer"))
    assert stored_text(store, "reasoning") == "pondering quokkas"  # the part's end flushed it
    assert [h.kind for h in store.search("quokkas")] == ["reasoning"]
    kinds = [p.kind for p in store.messages("c1")[-1].parts]
    assert kinds == ["reasoning", "text"]


@pytest.mark.asyncio
async def test_a_paused_stream_is_flushed_by_the_deadline_timer(store: Store) -> None:
    written = asyncio.Event()

    class Watched(Store):
        def append_text(self, part_id: int, text: str) -> None:
            super().append_text(part_id, text)
            written.set()

    with Watched(store.path) as watched:
        recorder = Recorder(watched, interval=0.05)
        started(recorder)
        recorder(ev.ContentDelta(**IDS, text="first "))
        recorder(ev.ContentDelta(**IDS, text="second"))  # buffered; no further delta comes
        assert stored_text(watched) == "first "
        await asyncio.wait_for(written.wait(), timeout=5)
        assert stored_text(watched) == "first second"
        recorder.close()


def test_a_stream_reset_discards_the_partial_output_of_that_attempt(store: Store, clock: FakeClock) -> None:
    recorder = Recorder(store, clock=clock, use_timer=False)
    started(recorder)
    recorder(ev.ReasoningDelta(**IDS, text="old thoughts"))
    recorder(ev.ContentDelta(**IDS, text="old answ"))
    retry = ev.RetryInfo(attempt=1, max_attempts=6, delay_s=1, stage="stream", reason="disconnected", stream_reset=True)
    recorder(ev.RetryScheduled(**IDS, retry=retry))
    assert [m.role for m in store.messages("c1")] == ["user"]
    assert store.search("thoughts") == []
    recorder(ev.ContentDelta(**IDS, text="new answer"))
    recorder(ev.RunFinished(**IDS, content="new answer"))
    assert [(m.role, m.text_of("text")) for m in store.messages("c1")] == [("user", "hi"), ("assistant", "new answer")]
    no_reset = retry.model_copy(update={"stream_reset": False, "stage": "request"})
    recorder(ev.RetryScheduled(conversation_id="c1", run_id="r2", retry=no_reset))
    assert len(store.messages("c1")) == 2


@pytest.mark.parametrize(
    ("end", "message_status", "run_status"),
    [
        (ev.RunFinished(**IDS, reason="cancelled", content="part"), "stopped", "cancelled"),
        (ev.Error(**IDS, code="stream_disconnected", message="The stream broke; try again."), "failed", "failed"),
        (ev.RunFinished(**IDS, reason="max_tokens", content="part"), "complete", "finished"),
    ],
)
def test_how_a_run_ends_sets_the_message_and_run_status(
    store: Store, clock: FakeClock, end: Any, message_status: str, run_status: str
) -> None:
    recorder = Recorder(store, clock=clock, use_timer=False)
    started(recorder)
    recorder(ev.ContentDelta(**IDS, text="pa"))
    clock.advance(0.01)
    recorder(ev.ContentDelta(**IDS, text="rt"))
    recorder(end)
    last = store.messages("c1")[-1]
    assert (last.status, last.text_of("text")) == (message_status, "part")
    run = store.runs("c1")["r1"]
    assert run.status == run_status and run.ended_at is not None
    if isinstance(end, ev.Error):
        assert last.parts[-1].kind == "notice" and last.parts[-1].text == end.message
        assert run.error == end.message
    assert store.load_messages("c1")[-1].content == "part"


def test_an_error_before_any_output_is_kept_as_a_notice_only(store: Store, clock: FakeClock) -> None:
    recorder = Recorder(store, clock=clock, use_timer=False)
    started(recorder)
    recorder(ev.Error(**IDS, code="provider_http_error", message="401: bad key"))
    assert [(m.role, m.status, [p.kind for p in m.parts]) for m in store.messages("c1")] == [
        ("user", "complete", ["text"]),
        ("assistant", "failed", ["notice"]),
    ]
    assert len(store.load_messages("c1")) == 1  # a notice is not sent back to the model


def test_a_recorder_attached_mid_run_still_records(store: Store, clock: FakeClock) -> None:
    recorder = Recorder(store, clock=clock, use_timer=False)
    recorder(ev.ContentDelta(**IDS, text="late"))
    recorder(ev.RunFinished(**IDS, content="late"))
    assert store.runs("c1")["r1"].status == "finished"
    assert stored_text(store) == "late"


def test_a_continued_run_reuses_the_stored_tool_call_and_edited_arguments_replace_it(
    store: Store, clock: FakeClock
) -> None:
    recorder = Recorder(store, clock=clock, use_timer=False)
    started(recorder, "list files")
    call = {"tool_call_id": "t1", "name": "mcp__sh__ls", "server": "sh", "tool": "ls"}
    recorder(ev.ToolCall(**IDS, **call, arguments={"path": "/"}))
    recorder(ev.ApprovalRequired(**IDS, tool_call_id="t1", server="sh", tool="ls", arguments={"path": "/"}))
    recorder(ev.RunFinished(**IDS, reason="tool_round_limit"))  # the turn paused
    assert store.runs("c1")["r1"].status == "paused"

    again = {"conversation_id": "c1", "run_id": "r2"}
    recorder(ev.RunStarted(**again, model="m", prompt="", continued=True))
    recorder(ev.ToolCall(**again, **call, arguments={"path": "/"}))
    recorder(
        ev.ApprovalDecided(
            **again, tool_call_id="t1", approved=True, scope="conversation", edited_arguments={"path": "/tmp"}
        )
    )
    recorder(ev.ToolResult(**again, tool_call_id="t1", server="sh", tool="ls", text="x.txt"))
    recorder(ev.ContentDelta(**again, text="One file."))
    recorder(ev.RunFinished(**again, content="One file."))
    assert [m.role for m in store.messages("c1")] == ["user", "assistant", "tool", "assistant"]
    calls = store.load_messages("c1")[1].tool_calls  # type: ignore[union-attr]
    assert [(c.id, c.parsed_arguments()) for c in calls] == [("t1", {"path": "/tmp"})]
    (approval,) = store.approvals("c1")
    assert approval["arguments_before"] == {"path": "/"} and approval["arguments_after"] == {"path": "/tmp"}
    assert (approval["decision"], approval["scope"]) == ("approved", "conversation")
    assert [r.status for r in store.runs("c1").values()] == ["paused", "finished"]


@pytest.mark.asyncio
async def test_a_conversation_is_stored_with_the_endpoint_of_its_own_provider(store: Store) -> None:
    runtime = make_runtime(FakeProvider([[Completion(content="Hi.")]]), FakeHost())
    recorder = attach_store(runtime, store)
    cid = runtime.new_conversation()
    runtime.set_conversation_provider(
        cid, ProviderSettings(base_url="https://api.anthropic.com", model="claude-x", dialect="anthropic")
    )
    await runtime.run(cid, "Hello")
    await runtime.aclose()
    recorder.close()
    info = store.get_conversation(cid)
    assert info is not None
    assert (info.base_url, info.model) == ("https://api.anthropic.com", "claude-x")


@pytest.mark.asyncio
async def test_tool_rounds_without_text_or_usage_stay_separate_assistant_messages(store: Store) -> None:
    """Local servers may send no usage: each response's calls are still their own assistant message, so a
    reopened conversation sends the model the history it saw, byte for byte (#16)."""
    host = FakeHost(handlers={"clock": lambda args: "noon"})

    def bare(call_id: str) -> list[ProviderEvent]:
        call = ToolCallRequest(id=call_id, name="mcp__fake__clock", arguments="{}")
        return [Completion(tool_calls=(call,), finish_reason="tool_use")]

    provider = FakeProvider([bare("t1"), bare("t2"), [ContentChunk(text="Noon."), Completion(content="Noon.")]])
    runtime = make_runtime(provider, host)
    recorder = attach_store(runtime, store)
    runtime.subscribe(Approver(runtime, {"t1": (True, None), "t2": (True, None)}))
    cid = runtime.new_conversation()
    assert (await runtime.run(cid, "Time?")).status == "finished"
    await runtime.aclose()
    recorder.close()
    live = [m for m in runtime.conversation(cid).messages if not isinstance(m, SystemMessage)]
    assert store.load_messages(cid) == live
    assert [m.role for m in store.messages(cid)] == ["user", "assistant", "tool", "assistant", "tool", "assistant"]


@pytest.mark.asyncio
async def test_a_prompts_context_and_text_files_are_stored_so_a_reopen_sends_the_same_history(store: Store) -> None:
    from desktop_app.runtime.context import text_item
    from desktop_app.runtime.messages import Attachment, UserMessage

    provider = FakeProvider([[ContentChunk(text="Read it."), Completion(content="Read it.")]])
    runtime = make_runtime(provider, FakeHost())
    recorder = attach_store(runtime, store)
    cid = runtime.new_conversation()
    notes = Attachment(name="notes.txt", mime_type="text/plain", kind="text", data="line one\nline two", size=17)
    context = [text_item("the selected words"), *runtime.default_context()]
    assert (await runtime.run(cid, "Summarise", attachments=[notes], context=context)).status == "finished"
    await runtime.aclose()
    recorder.close()
    live = [m for m in runtime.conversation(cid).messages if not isinstance(m, SystemMessage)]
    assert store.load_messages(cid) == live  # context block and file included, byte for byte
    first = live[0]
    assert isinstance(first, UserMessage) and "the selected words" in first.context and first.attachments == (notes,)
    parts = store.messages(cid)[0].parts
    assert [(p.kind, p.text) for p in parts] == [("text", "Summarise"), ("text", "")]
    assert parts[1].payload is not None and "prompt_context" in parts[1].payload


def test_a_reasoning_part_keeps_how_long_it_took(store: Store, clock: FakeClock) -> None:
    recorder = Recorder(store, clock=clock, use_timer=False)
    recorder(ev.RunStarted(**IDS, model="m", prompt="p"))
    recorder(ev.ReasoningDelta(**IDS, text="pondering "))
    clock.now += 3.0
    recorder(ev.ReasoningDelta(**IDS, text="more"))
    clock.now += 1.25
    recorder(ev.ContentDelta(**IDS, text="Answer"))  # the reasoning ends here: 4.25 s after it began
    recorder(ev.RunFinished(**IDS, content="Answer"))
    [assistant] = [m for m in store.messages("c1") if m.role == "assistant"]
    [reasoning] = [part for part in assistant.parts if part.kind == "reasoning"]
    assert reasoning.payload == {"duration_s": 4.2}
