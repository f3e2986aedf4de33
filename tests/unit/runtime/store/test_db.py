"""The Store's conversation API: titles, rename, soft delete + restore, interrupted runs and FTS search."""

from __future__ import annotations

import sqlite3

import pytest

from desktop_app.runtime.messages import AssistantMessage, Message, ToolCallRequest, ToolMessage, UserMessage
from desktop_app.runtime.store import Store, StoreError, fts_query, make_title
from desktop_app.runtime.store.read import make_snippet
from tests.unit.runtime.store.conftest import FakeClock


def add_exchange(store: Store, cid: str, prompt: str, answer: str, *, run_id: str = "r1") -> None:
    store.ensure_conversation(cid)
    store.start_run(run_id, cid)
    user = store.add_message(cid, "user", run_id=run_id, status="complete")
    store.add_part(user, "text", prompt, index=True)
    reply = store.add_message(cid, "assistant", run_id=run_id, status="complete")
    store.add_part(reply, "text", answer, index=True)
    store.set_run_status(run_id, "finished", ended=True)


def test_titles_are_one_trimmed_line_of_at_most_sixty_characters() -> None:
    assert make_title("  Hello\n  world ") == "Hello world"
    long = "Please explain how the write-ahead log in SQLite interacts with checkpoints and readers"
    title = make_title(long)
    assert len(title) <= 60 and title.endswith("…")
    assert long.startswith(title[:-1])
    assert make_title("x" * 200) == "x" * 59 + "…"


def test_set_title_if_empty_only_titles_untitled_conversations(store: Store) -> None:
    cid = store.create_conversation()
    assert store.set_title_if_empty(cid, "   ") is False
    assert store.set_title_if_empty(cid, "First prompt\nwith two lines") is True
    assert store.set_title_if_empty(cid, "Second prompt") is False
    info = store.get_conversation(cid)
    assert info is not None and info.title == "First prompt with two lines"


def test_rename_list_soft_delete_restore_and_purge(store: Store, clock: FakeClock) -> None:
    a = store.create_conversation(title="A")
    clock.advance(1)
    b = store.create_conversation(title="B")
    assert [c.id for c in store.list_conversations()] == [b, a]
    clock.advance(1)
    store.rename_conversation(a, "  Renamed   A ")
    assert [c.title for c in store.list_conversations()] == ["Renamed A", "B"]  # rename counts as an update
    add_exchange(store, b, "find the walrus", "the walrus is here")
    store.delete_conversation(b)
    assert [c.id for c in store.list_conversations()] == [a]
    assert store.search("walrus") == []
    deleted = store.list_conversations(include_deleted=True)
    assert {c.id: c.deleted for c in deleted} == {a: False, b: True}
    store.restore_conversation(b)
    assert len(store.search("walrus")) == 2
    store.delete_conversation(b)
    clock.advance(10)
    assert store.purge_deleted(older_than_s=5) == 1
    assert store.get_conversation(b) is None
    assert store.connection.execute("SELECT COUNT(*) FROM parts_fts").fetchone()[0] == 0
    with pytest.raises(StoreError, match="does not exist"):
        store.rename_conversation("nope", "x")


def test_mark_interrupted_runs_keeps_partial_text_and_makes_it_searchable(store: Store) -> None:
    cid = "c1"
    add_exchange(store, cid, "first question", "first answer", run_id="r1")
    store.start_run("r2", cid)
    user = store.add_message(cid, "user", run_id="r2", status="complete")
    store.add_part(user, "text", "second question", index=True)
    partial = store.add_message(cid, "assistant", run_id="r2", status="streaming")
    part = store.add_part(partial, "reasoning", "Thinking about zeppelins")
    store.append_text(part, " and blimps")
    text = store.add_part(partial, "text", "Half an answ")
    store.add_part(partial, "tool_call", "mcp__x__y", payload={"name": "mcp__x__y", "arguments": {}}, tool_call_id="t9")
    assert store.search("zeppelins") == []  # a streaming part is not indexed yet
    assert text > part

    assert store.mark_interrupted_runs() == 1
    assert store.mark_interrupted_runs() == 0
    runs = store.runs(cid)
    assert runs["r1"].status == "finished" and runs["r2"].status == "interrupted"
    assert runs["r2"].ended_at is not None
    statuses = [m.status for m in store.messages(cid)]
    assert statuses == ["complete", "complete", "complete", "interrupted"]
    call = ToolCallRequest(id="t9", name="mcp__x__y", arguments="{}")
    partial_message = AssistantMessage(
        content="Half an answ", reasoning="Thinking about zeppelins and blimps", tool_calls=(call,)
    )
    head: list[Message] = [UserMessage(content="first question"), AssistantMessage(content="first answer")]
    head.append(UserMessage(content="second question"))
    # the call stays pending (the runtime may continue it); or is closed with an error result on request
    assert store.load_messages(cid) == [*head, partial_message]
    closed = store.load_messages(cid, close_dangling_calls=True)
    assert closed[:-1] == [*head, partial_message]
    assert isinstance(closed[-1], ToolMessage) and closed[-1].is_error and "interrupted" in closed[-1].content
    hits = store.search("blimps")
    assert [(h.kind, h.role) for h in hits] == [("reasoning", "assistant")]


def test_a_paused_run_waiting_for_approval_is_interrupted_but_a_finished_pause_is_not(store: Store) -> None:
    cid = store.create_conversation()
    store.start_run("waiting", cid)
    store.set_run_status("waiting", "paused")
    store.record_approval_request("t1", cid, "waiting", "srv", "tool", {"a": 1})
    store.start_run("limit", cid)
    store.set_run_status("limit", "paused", ended=True, reason="tool_round_limit")
    assert store.mark_interrupted_runs() == 1
    runs = store.runs(cid)
    assert runs["waiting"].status == "interrupted" and runs["limit"].status == "paused"
    assert store.approvals(cid)[0]["decision"] == "interrupted"


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("walrus", '"walrus"*'),
        ("walrus ", '"walrus"'),
        ('say "hi" AND (x OR y*) -z NEAR/3', '"say" """hi""" "AND" "(x" "OR" "y*)" "-z" "NEAR/3"'),
        ("!!! ??? ---", ""),
        ("", ""),
    ],
)
def test_fts_query_quotes_every_term(query: str, expected: str) -> None:
    assert fts_query(query) == expected


def test_snippets_mark_matches_around_the_first_hit() -> None:
    text = " ".join(f"w{i}" for i in range(40)) + " the Café opened; cafés everywhere " + "tail " * 20
    snippet = make_snippet(text, "cafe", marks=("<", ">"))
    assert "<Café>" in snippet and "<cafés>" in snippet
    assert snippet.startswith("…") and snippet.endswith("…")
    assert make_snippet("short text here", "text ") == "short [text] here"
    assert make_snippet("", "x") == ""


def test_search_finds_text_and_reasoning_across_conversations_with_snippets(store: Store) -> None:
    add_exchange(store, "c1", "How do I configure the walrus operator?", "Use := inside an expression.", run_id="r1")
    add_exchange(store, "c2", "Tell me about café culture", "Cafés in Paris… naïve résumé", run_id="r2")
    store.set_title_if_empty("c1", "Walrus help")
    hits = store.search("walrus operator")
    assert len(hits) == 1
    assert hits[0].conversation_id == "c1" and hits[0].conversation_title == "Walrus help"
    assert "[walrus]" in hits[0].snippet and "[operator]" in hits[0].snippet
    assert {h.conversation_id for h in store.search("cafe")} == {"c2"}  # diacritics folded, prefix match
    assert store.search("wal")[0].conversation_id == "c1"
    assert len(store.search("a", limit=1)) <= 1


@pytest.mark.parametrize(
    ("query", "finds"),
    [
        ('"', False), ('""', False), ("'", False), ("(", False), (")", False), ("*", False), ("-", False),
        ("^", False), (":=", False), ("\\", False), ("%", False),  # no word in them: nothing to look for
        ('a"b', True), ("AND", True), ("OR NOT", True), ("c++", True), ("x:y", True), ("{a b}", True),
        ("NEAR(", False),  # a word that is not in the text (and no FTS5 operator either)
    ],
)  # fmt: skip
def test_punctuation_heavy_queries_search_their_words_and_never_raise(store: Store, query: str, finds: bool) -> None:
    add_exchange(store, "c1", 'c++ and x:y and a"b AND OR NOT', "ok := 1", run_id="r1")
    add_exchange(store, "c2", "nothing to see", "here", run_id="r2")
    assert [h.conversation_id for h in store.search(query)] == (["c1"] if finds else [])
    # with a word that is in c1 ("c" from "c++"): found, unless the query's own word is missing
    assert [h.conversation_id for h in store.search(query + " c")] == ([] if query == "NEAR(" else ["c1"])


def test_a_failed_commit_rolls_back_and_the_store_stays_usable(store: Store) -> None:
    def add_orphan_message() -> None:
        with store.transaction() as c:
            c.execute("PRAGMA defer_foreign_keys = ON")  # the missing conversation fails at COMMIT, not at INSERT
            store.add_message("missing", "user", run_id=None, status="complete")

    with pytest.raises(sqlite3.IntegrityError):
        add_orphan_message()
    assert not store.connection.in_transaction
    store.ensure_conversation("c1")
    assert store.get_conversation("c1") is not None
