"""What the store keeps about agents: the agent each conversation talks to, and the sub-agent runs.

A ``chat-with-<agent>`` call runs that agent in a child conversation (see :mod:`desktop_app.runtime.agents`).
The child is stored like any conversation, with ``parent_id`` and ``parent_tool_call_id`` naming the tool
call that started it and ``root_id`` its top-level conversation: lists leave children out (they are reached
from the parent's tool card), deleting a conversation deletes its sub-agent runs with it, and a search hit in
a child names its top-level conversation.
"""

from __future__ import annotations

from dataclasses import dataclass

from desktop_app.runtime.store.db import Store


@dataclass(frozen=True)
class SubagentLink:
    """A sub-agent run started by one tool call of a conversation."""

    tool_call_id: str
    conversation_id: str
    agent: str


def set_agent(store: Store, conversation_id: str, agent: str) -> None:
    """Record the agent a conversation talks to (the conversation is created if it is new)."""
    with store.transaction() as c:
        store.ensure_conversation(conversation_id)
        c.execute("UPDATE conversations SET agent = ? WHERE id = ?", (agent, conversation_id))


def conversation_agent(store: Store, conversation_id: str) -> str:
    """The agent a stored conversation talks to ("" when none was recorded: the default agent)."""
    row = store.connection.execute("SELECT agent FROM conversations WHERE id = ?", (conversation_id,)).fetchone()
    return str(row[0]) if row else ""


def link_subagent(store: Store, child_id: str, parent_id: str, tool_call_id: str, agent: str) -> None:
    """Store ``child_id`` as the run of ``agent`` that ``parent_id``'s tool call ``tool_call_id`` started."""
    with store.transaction() as c:
        store.ensure_conversation(parent_id)
        store.ensure_conversation(child_id)
        row = c.execute("SELECT COALESCE(root_id, id) FROM conversations WHERE id = ?", (parent_id,)).fetchone()
        c.execute(
            "UPDATE conversations SET agent = ?, parent_id = ?, parent_tool_call_id = ?, root_id = ? WHERE id = ?",
            (agent, parent_id, tool_call_id, row[0], child_id),
        )


def subagent_runs(store: Store, conversation_id: str) -> dict[str, SubagentLink]:
    """The sub-agent runs ``conversation_id``'s tool calls started, by tool-call id."""
    rows = store.connection.execute(
        "SELECT parent_tool_call_id, id, agent FROM conversations WHERE parent_id = ? ORDER BY created_at, rowid",
        (conversation_id,),
    ).fetchall()
    return {str(r[0]): SubagentLink(str(r[0]), str(r[1]), str(r[2])) for r in rows if r[0]}


def root_of(store: Store, conversation_id: str) -> str:
    """The top-level conversation a sub-agent run belongs to (itself for a top-level one)."""
    row = store.connection.execute(
        "SELECT COALESCE(root_id, id) FROM conversations WHERE id = ?", (conversation_id,)
    ).fetchone()
    return str(row[0]) if row else conversation_id


__all__ = ["SubagentLink", "conversation_agent", "link_subagent", "root_of", "set_agent", "subagent_runs"]
