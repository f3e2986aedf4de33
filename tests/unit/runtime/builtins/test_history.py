"""``switchboard.history``: full-text search over past conversations and reading one as text."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC
from pathlib import Path

import pytest

from desktop_app.runtime.builtins.history import HISTORY_OFF, format_time, make_history_server
from desktop_app.runtime.host import Host
from desktop_app.runtime.store import Store


class Clock:
    def __init__(self) -> None:
        self.now = 1_780_000_000.0  # 2026-05-28T20:26:40Z

    def __call__(self) -> float:
        self.now += 60
        return self.now


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    with Store.open(tmp_path / "data" / "switchboard.db", clock=Clock()) as s:
        yield s


def add_text(store: Store, conversation_id: str, role: str, text: str, *, kind: str = "text") -> None:
    message = store.add_message(conversation_id, role, run_id=None, status="complete")
    store.add_part(message, kind, text, index=True)


def fill(store: Store) -> tuple[str, str]:
    trip = store.create_conversation("trip", title="Planning a trip to Lisbon", model="deepseek-chat")
    add_text(store, trip, "user", "Which museums should I see in Lisbon?")
    add_text(store, trip, "assistant", "The secret is the tiles.", kind="reasoning")
    add_text(store, trip, "assistant", "See the Gulbenkian and the tile museum.")
    call = store.add_message(trip, "assistant", run_id=None, status="complete")
    store.add_part(
        call,
        "tool_call",
        "mcp__maps__route",
        payload={"name": "mcp__maps__route", "arguments": {"to": "Belém"}},
        tool_call_id="c1",
    )
    result = store.add_message(trip, "tool", run_id=None, status="complete")
    store.add_part(result, "tool_result", "25 minutes by tram", payload={"tool": "route"}, tool_call_id="c1")
    soup = store.create_conversation("soup", title="Soup recipes")
    add_text(store, soup, "user", "A soup for a cold evening in Lisbon style?")
    add_text(store, soup, "assistant", "Caldo verde: kale, potatoes, chouriço.")
    return trip, soup


@pytest.mark.asyncio
async def test_search_groups_hits_by_conversation_with_ids_titles_dates_and_snippets(host: Host, store: Store) -> None:
    fill(store)
    host.register_builtin("switchboard.history", lambda: make_history_server(store, zone=UTC))

    outcome = await host.call("switchboard.history", "search_conversations", {"query": "lisbon"})

    assert not outcome.is_error, outcome.text
    text = outcome.text
    assert text.startswith("2 conversation(s) match 'lisbon'")
    assert "conversation_id: trip" in text and "conversation_id: soup" in text
    assert "Planning a trip to Lisbon" in text and "Soup recipes" in text
    assert "[Lisbon]" in text  # the match is marked in the snippet
    first_user = store.messages("trip")[0]
    assert f"- {format_time(first_user.created_at, UTC)} user: " in text
    assert "read_conversation" in text

    one = await host.call("switchboard.history", "search_conversations", {"query": "lisbon", "limit": 1})
    assert one.text.startswith("1 conversation(s) match")

    tiles = await host.call("switchboard.history", "search_conversations", {"query": "tiles"})
    assert "reasoning: The secret is the [tiles]" in tiles.text


@pytest.mark.asyncio
async def test_search_without_matches_and_with_an_empty_query(host: Host, store: Store) -> None:
    fill(store)
    host.register_builtin("switchboard.history", lambda: make_history_server(store))
    none = await host.call("switchboard.history", "search_conversations", {"query": "zeppelin"})
    assert (none.is_error, none.text) == (False, "No conversations match 'zeppelin'.")
    empty = await host.call("switchboard.history", "search_conversations", {"query": "  "})
    assert empty.is_error and "query is empty" in empty.text


@pytest.mark.asyncio
async def test_read_conversation_as_readable_text(host: Host, store: Store) -> None:
    trip, _ = fill(store)
    host.register_builtin("switchboard.history", lambda: make_history_server(store, zone=UTC))

    outcome = await host.call("switchboard.history", "read_conversation", {"conversation_id": trip})

    assert not outcome.is_error, outcome.text
    lines = outcome.text.splitlines()
    info = store.get_conversation(trip)
    assert info is not None
    assert lines[:5] == [
        "Conversation: Planning a trip to Lisbon",
        "conversation_id: trip",
        f"started: {format_time(info.created_at, UTC)}; last active: {format_time(info.updated_at, UTC)}",
        "model: deepseek-chat",
        "messages: 4",
    ]
    body = "\n".join(lines[6:])
    assert "user: Which museums should I see in Lisbon?" in body
    assert "assistant: See the Gulbenkian and the tile museum." in body
    assert 'assistant called tool mcp__maps__route with {"to": "Belém"}' in body
    assert "tool result (route): 25 minutes by tram" in body
    assert "secret" not in body  # private reasoning stays out


@pytest.mark.asyncio
async def test_read_conversation_keeps_the_last_messages(host: Host, store: Store) -> None:
    trip, _ = fill(store)
    host.register_builtin("switchboard.history", lambda: make_history_server(store))
    outcome = await host.call("switchboard.history", "read_conversation", {"conversation_id": trip, "max_messages": 1})
    assert "(the first 3 message(s) are left out; showing the last 1)" in outcome.text
    assert "25 minutes by tram" in outcome.text and "museums" not in outcome.text


@pytest.mark.asyncio
async def test_unknown_and_deleted_conversations_are_clear_errors(host: Host, store: Store) -> None:
    _, soup = fill(store)
    store.delete_conversation(soup)
    host.register_builtin("switchboard.history", lambda: make_history_server(store))
    unknown = await host.call("switchboard.history", "read_conversation", {"conversation_id": "nope"})
    assert unknown.is_error
    assert unknown.text == (
        "Error executing tool read_conversation: "
        "Conversation 'nope' does not exist. Use search_conversations to find conversation ids."
    )
    deleted = await host.call("switchboard.history", "read_conversation", {"conversation_id": soup})
    assert deleted.is_error and "'soup' was deleted" in deleted.text
    search = await host.call("switchboard.history", "search_conversations", {"query": "kale"})
    assert search.text == "No conversations match 'kale'."  # deleted conversations are not searched


@pytest.mark.asyncio
async def test_without_a_store_history_is_off(host: Host) -> None:
    host.register_builtin("switchboard.history", lambda: make_history_server(None))
    await host.ensure_connected("switchboard.history")
    assert {t.name for t in host.tools()} == {"search_conversations", "read_conversation"}
    assert all(t.read_only for t in host.tools())
    for tool, arguments in (("search_conversations", {"query": "x"}), ("read_conversation", {"conversation_id": "x"})):
        outcome = await host.call("switchboard.history", tool, arguments)
        assert outcome.is_error and outcome.text == f"Error executing tool {tool}: {HISTORY_OFF}"
