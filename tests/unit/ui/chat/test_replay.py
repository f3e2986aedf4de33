"""Replaying stored conversations: every kind of part and status comes back as the live stream showed it, and
a turn that waited for an approval when the app closed resumes on the same card after a restart (real
Runtime, real Store in a tmp folder)."""

from __future__ import annotations

import itertools

import pytest

from desktop_app.runtime import events as ev
from desktop_app.runtime.service import Runtime
from desktop_app.runtime.settings import ProviderSettings, Settings
from desktop_app.runtime.store import Recorder, Store, attach_store
from desktop_app.ui.chat.blocks import AnswerBlock, NoticeLine, ReasoningBlock, UsageFooter, UserMessageBlock
from desktop_app.ui.chat.paused import PausedLine
from desktop_app.ui.chat.replay import INTERRUPTED_NOTE, STOPPED_NOTE, read_transcript, settle_unanswered
from desktop_app.ui.chat.tool_card import ToolCard
from desktop_app.ui.chat.view import ChatView
from desktop_app.ui.window.main_window import MainWindow
from tests.support.fakes import FakeHost, FakeProvider, answer, calls, only_card

CID = "conv-1"


class _Events:
    """Feeds a ``Recorder`` run by run, the way the runtime would."""

    def __init__(self, recorder: Recorder) -> None:
        self.recorder = recorder
        self.runs = itertools.count(1)
        self.run_id = ""

    def __call__(self, cls: type, **fields: object) -> None:
        self.recorder(cls(conversation_id=CID, run_id=self.run_id, **fields))

    def start(self, prompt: str, **fields: object) -> None:
        self.run_id = f"run-{next(self.runs)}"
        self(ev.RunStarted, model="m", prompt=prompt, **fields)


@pytest.fixture
def store(tmp_path):
    db = Store.open(tmp_path / "switchboard.db")
    yield db
    db.close()


def _record_everything(store: Store) -> None:
    recorder = Recorder(store, use_timer=False, base_url=lambda _cid: "http://127.0.0.1:9/v1")
    e = _Events(recorder)
    e.start("Hello")
    e(ev.ReasoningDelta, text="The user greets me.")
    e(ev.ContentDelta, text="**Hi** there")
    e(ev.Usage, usage=ev.TokenUsage(prompt_tokens=10, completion_tokens=5, total_tokens=15))
    e(ev.RunFinished, content="**Hi** there")

    e.start("List my files")
    args = {"path": "/"}
    e(ev.ToolCall, tool_call_id="t1", name="mcp__fs__list", server="fs", tool="list", arguments=args)
    e(ev.ApprovalRequired, tool_call_id="t1", server="fs", tool="list", arguments=args)
    e(ev.ApprovalDecided, tool_call_id="t1", approved=True, edited_arguments={"path": "/tmp"})
    e(ev.ToolResult, tool_call_id="t1", server="fs", tool="list", text="a.txt b.txt")
    e(ev.Usage, usage=ev.TokenUsage(prompt_tokens=20, completion_tokens=2, total_tokens=22))
    e(ev.ToolCall, tool_call_id="t2", name="mcp__fs__rm", server="fs", tool="rm", arguments={"path": "a.txt"})
    e(ev.ApprovalRequired, tool_call_id="t2", server="fs", tool="rm", arguments={"path": "a.txt"})
    e(ev.ApprovalDecided, tool_call_id="t2", approved=False, reason="keep it")
    e(ev.ToolResult, tool_call_id="t2", server="fs", tool="rm", text="The user denied this tool call.", is_error=True)
    e(ev.ContentDelta, text="You have `a.txt` and `b.txt`.")
    e(ev.RunFinished, content="You have `a.txt` and `b.txt`.")

    e.start("Tell me a story")
    e(ev.ContentDelta, text="Once upon")
    e(ev.RunFinished, reason="cancelled", content="Once upon")

    e.start("Fail please")
    e(ev.Error, code="provider_error", message="The provider said no. Try again later.")

    e.start("Write a poem")
    e(ev.ContentDelta, text="Roses are")
    recorder.close()  # the app "crashes" here
    assert store.mark_interrupted_runs() == 1  # the next start


def _of(view: ChatView, cls: type) -> list:
    return [b for b in view.blocks() if isinstance(b, cls)]


def test_replay_rebuilds_every_part_and_status(qtbot, store):
    _record_everything(store)
    view = ChatView()
    qtbot.addWidget(view)
    view.load_transcript(read_transcript(store, CID))

    assert [u.text for u in _of(view, UserMessageBlock)] == [
        "Hello",
        "List my files",
        "Tell me a story",
        "Fail please",
        "Write a poem",
    ]
    [reasoning] = _of(view, ReasoningBlock)
    assert reasoning.text == "The user greets me." and not reasoning.expanded and not reasoning.live
    answers = _of(view, AnswerBlock)
    assert [a.text for a in answers] == ["**Hi** there", "You have `a.txt` and `b.txt`.", "Once upon", "Roses are"]
    assert all(a.finished for a in answers) and answers[0].toPlainText() == "Hi there"
    assert answers[2].stopped and not answers[0].stopped

    t1, t2 = view.cards["t1"], view.cards["t2"]
    assert _of(view, ToolCard) == [t1, t2]
    assert t1.status.text() == "Approved" and t1.result.text() == "a.txt b.txt"
    assert t1.args.original == {"path": "/"} and not t1.args.changes.isHidden()  # the edit is shown
    assert t2.status.text() == "Denied: keep it" and t2.is_error and t2.buttons.isHidden()

    notices = [(n.kind, n.text()) for n in _of(view, NoticeLine)]
    assert notices == [
        ("stopped", "■ " + STOPPED_NOTE),
        ("error", "⚠ The provider said no. Try again later."),
        ("stopped", "■ " + INTERRUPTED_NOTE),
    ]
    footers = _of(view, UsageFooter)
    assert len(footers) == 2  # one per run that reported usage
    assert view.footer is None and view.last_answer is None  # the next live run starts fresh


def test_a_stopped_sub_run_replays_into_its_sub_conversation(qtbot, store):
    """A sub-agent's (or workflow step's) stored run replays into a ``SubTranscript``; an answer that was
    stopped says so there too (it raised AttributeError: the sub-conversation's answer has no mark_stopped)."""
    from desktop_app.ui.chat.replay import replay_nested
    from desktop_app.ui.chat.subagents import SubTranscript

    _record_everything(store)
    body = SubTranscript()
    qtbot.addWidget(body)
    replay_nested(body, read_transcript(store, CID))
    notices = [(n.kind, n.text()) for n in body.blocks() if isinstance(n, NoticeLine)]
    assert ("stopped", "■ " + STOPPED_NOTE) in notices
    assert [p.text().rpartition("</span> ")[2] for p in body.prompts][:3] == [
        "Hello",
        "List my files",
        "Tell me a story",
    ]


def test_calls_without_results_get_a_status(qtbot, store):
    recorder = Recorder(store, use_timer=False)
    e = _Events(recorder)
    e.start("Two calls")
    for call_id in ("p1", "p2"):
        e(ev.ToolCall, tool_call_id=call_id, name="mcp__fs__list", server="fs", tool="list", arguments={})
        e(ev.ApprovalRequired, tool_call_id=call_id, server="fs", tool="list", arguments={})
    recorder.close()
    store.mark_interrupted_runs()
    view = ChatView()
    qtbot.addWidget(view)
    transcript = read_transcript(store, CID)
    view.load_transcript(transcript)
    settle_unanswered(view, ["p1"], transcript.approvals)
    assert view.cards["p1"].status.text() == "Resuming…" and view.cards["p1"].state == "running"
    assert view.cards["p2"].status.text() == "Not answered — the app closed while it waited"
    assert view.cards["p2"].state == "unanswered" and view.pending_cards() == []


def test_a_run_paused_at_the_round_limit_offers_continue(qtbot, store):
    recorder = Recorder(store, use_timer=False)
    e = _Events(recorder)
    e.start("Loop")
    e(ev.ToolCall, tool_call_id="r1", name="mcp__fs__list", server="fs", tool="list", arguments={})
    e(ev.ApprovalDecided, tool_call_id="r1", approved=True, source="policy", reason="approved by policy")
    e(ev.ToolResult, tool_call_id="r1", server="fs", tool="list", text="ok")
    e(ev.RunFinished, reason="tool_round_limit")
    recorder.close()
    view = ChatView()
    qtbot.addWidget(view)
    view.load_transcript(read_transcript(store, CID))
    assert view.cards["r1"].status.text() == "Approved by policy"
    [line] = _of(view, PausedLine)
    assert view.paused_line is line and line.active


def _runtime(provider: FakeProvider, host: FakeHost) -> Runtime:
    settings = Settings(provider=ProviderSettings(base_url="http://127.0.0.1:9/v1", model="m"))
    return Runtime(settings=settings, host=host, provider_factory=lambda _s, _k: provider, api_key_override="k")


def _window(qtbot, runtime: Runtime, store: Store) -> MainWindow:
    win = MainWindow()
    qtbot.addWidget(win)
    win.attach_runtime(runtime)
    win.attach_store(store)
    win.show()
    qtbot.waitExposed(win)
    return win


def _wait(qtbot, loop, coro) -> None:
    task = loop.create_task(coro)
    qtbot.waitUntil(task.done)
    task.result()


def test_a_pending_approval_resumes_after_a_restart(qtbot, qloop, tmp_path):
    path = tmp_path / "switchboard.db"
    host = FakeHost(handlers={"echo": lambda a: f"echo {a['x']}"})

    # First session: the run stops on an approval, then the app dies (nothing more gets recorded).
    store1 = Store.open(path)
    runtime1 = _runtime(FakeProvider([calls(("c1", "mcp__fake__echo", '{"x": 1}'))]), host)
    recorder1 = Recorder(store1, base_url=lambda _cid: "http://127.0.0.1:9/v1")
    unsubscribe = runtime1.subscribe(recorder1)
    win1 = _window(qtbot, runtime1, store1)
    win1.composer.edit.setPlainText("echo 1")
    win1.composer.button.click()
    qtbot.waitUntil(lambda: only_card(win1.view) is not None and only_card(win1.view).pending)
    conversation = win1.controller.conversation_id
    assert win1.conversations.conversation_ids() == [conversation]
    unsubscribe()
    win1.close()
    _wait(qtbot, qloop, runtime1.aclose())
    recorder1.close()
    store1.close()

    # Second session: a new Runtime and Store on the same database.
    store2 = Store.open(path)
    assert store2.mark_interrupted_runs() == 1
    provider2 = FakeProvider([answer("Echoed.")])
    runtime2 = _runtime(provider2, host)
    recorder2 = attach_store(runtime2, store2)
    win2 = _window(qtbot, runtime2, store2)
    try:
        item = win2.conversations.item_for(conversation)
        assert item is not None and item.text() == "echo 1"
        win2.conversations.list.itemClicked.emit(item)
        assert [u.text for u in _of(win2.view, UserMessageBlock)] == ["echo 1"]
        card = only_card(win2.view)
        assert card.status.text() in ("Resuming…", "Waiting for approval")
        qtbot.waitUntil(lambda: card.pending)  # continue_run re-asked: the same card is armed again
        assert _of(win2.view, ToolCard) == [card] and card.args.original == {"x": 1}
        card.approve_button.click()
        qtbot.waitUntil(lambda: not win2.controller.busy)
        assert card.result.text() == "echo 1" and card.status.text() == "Approved"
        assert _of(win2.view, AnswerBlock)[-1].text == "Echoed."
        assert host.log == [("fake", "echo", {"x": 1})]
        sent = provider2.requests[0].messages
        assert [type(m).__name__ for m in sent] == ["UserMessage", "AssistantMessage", "ToolMessage"]
        stored = store2.messages(conversation)
        assert [m.role for m in stored] == ["user", "assistant", "tool", "assistant"]
        assert stored[-1].text_of("text") == "Echoed."
        assert store2.approvals(conversation)[0]["decision"] == "approved"
    finally:
        _wait(qtbot, qloop, runtime2.aclose())
        recorder2.close()
        store2.close()
