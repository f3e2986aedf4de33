"""What the store keeps about agents: each conversation's agent, and sub-agent runs as children of the tool
call that started them (left out of lists, deleted and restored with the parent, search hits name the parent)."""

from __future__ import annotations

from desktop_app.runtime import events as ev
from desktop_app.runtime.store import Recorder, Store
from desktop_app.runtime.store.agents import conversation_agent, root_of, subagent_runs


def test_a_subagent_run_is_a_child_of_its_tool_call_and_not_listed(store: Store) -> None:
    recorder = Recorder(store, use_timer=False, agent=lambda cid: {"p": "assistant", "c": "researcher"}[cid])
    recorder(ev.RunStarted(conversation_id="p", run_id="r1", model="m", prompt="Ask the researcher"))
    recorder(ev.ToolCall(conversation_id="p", run_id="r1", tool_call_id="t1", name="chat-with-researcher",
                         server="switchboard.agent.researcher", tool="chat-with-researcher", arguments={}))  # fmt: skip
    recorder(ev.SubagentStarted(conversation_id="p", run_id="r1", tool_call_id="t1", agent="researcher",
                                child_conversation_id="c", depth=1, prompt="Find the trip plan"))  # fmt: skip
    recorder(ev.RunStarted(conversation_id="c", run_id="r2", model="m", prompt="Find the trip plan"))
    recorder(ev.ContentDelta(conversation_id="c", run_id="r2", text="The trip plan says Monday."))
    recorder(ev.RunFinished(conversation_id="c", run_id="r2", reason="end_turn", content="The trip plan says Monday."))
    recorder.flush()

    assert [c.id for c in store.list_conversations()] == ["p"]
    assert {c.id for c in store.list_conversations(include_deleted=True)} == {"p", "c"}
    assert conversation_agent(store, "p") == "assistant" and conversation_agent(store, "c") == "researcher"
    info = store.get_conversation("c")
    assert info is not None and (info.agent, info.parent_id) == ("researcher", "p")
    [link] = subagent_runs(store, "p").values()
    assert (link.tool_call_id, link.conversation_id, link.agent) == ("t1", "c", "researcher")
    assert root_of(store, "c") == "p" and root_of(store, "p") == "p"
    assert [(h.conversation_id, h.conversation_title) for h in store.search("Monday")] == [("p", "Ask the researcher")]

    store.delete_conversation("p")
    assert store.search("Monday") == []
    assert store.get_conversation("c").deleted  # type: ignore[union-attr]
    store.restore_conversation("p")
    assert not store.get_conversation("c").deleted  # type: ignore[union-attr]
    store.delete_conversation("p")
    store.purge_deleted()
    assert store.get_conversation("c") is None


def test_an_export_carries_the_subagent_runs_under_their_tool_calls(store: Store) -> None:
    from desktop_app.runtime.store.export import to_json_data, to_markdown

    recorder = Recorder(store, use_timer=False)
    recorder(ev.RunStarted(conversation_id="p", run_id="r1", model="m", prompt="Ask the researcher"))
    recorder(ev.ToolCall(conversation_id="p", run_id="r1", tool_call_id="t1", name="chat-with-researcher",
                         server="switchboard.agent.researcher", tool="chat-with-researcher", arguments={}))  # fmt: skip
    recorder(ev.SubagentStarted(conversation_id="p", run_id="r1", tool_call_id="t1", agent="researcher",
                                child_conversation_id="c", depth=1, prompt="Find it"))  # fmt: skip
    recorder(ev.RunStarted(conversation_id="c", run_id="r2", model="m", prompt="Find it"))
    recorder(ev.RunFinished(conversation_id="c", run_id="r2", reason="end_turn", content="Found: Monday."))
    recorder.flush()
    markdown = to_markdown(store, "p")
    assert "> **Sub-agent `researcher`** (`t1`)" in markdown and "> Find it" in markdown
    [child] = to_json_data(store, "p")["subagents"]
    assert (child["tool_call_id"], child["agent"], child["conversation"]["id"]) == ("t1", "researcher", "c")
    assert child["messages"][0]["parts"][0]["text"] == "Find it"
