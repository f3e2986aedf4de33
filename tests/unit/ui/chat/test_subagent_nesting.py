"""A sub-agent's run nests under the parent's ``chat-with-<agent>`` tool card as a collapsible sub-conversation:
live while it streams (its tokens, its own tool cards, its approvals answered in the window), and again after a
restart, replayed from the store. The real app assembly (``assemble``: Host, built-ins, agents from
``agents/*.md``, the store) on the loopback SSE server; every wait is on observable state."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt

from desktop_app.assembly import Assembly, assemble
from desktop_app.paths import app_paths
from desktop_app.runtime.run.approvals import ApprovalPolicy
from desktop_app.runtime.settings import ProviderSettings, Settings, save_settings
from desktop_app.ui.chat.subagents import SubConversation
from desktop_app.ui.chat.tool_card import ToolCard
from desktop_app.ui.window.main_window import MainWindow
from tests.support.llm_server import Gate, Reply, split, text_reply, tool_call_reply

RESEARCHER = """---
description: Looks things up in past conversations and tells the time
servers: [switchboard.history, time]
tools: ["switchboard.history/*", "time/*"]
---
You are the researcher. Answer briefly.
"""
ANSWER = "We talked about Paris on Monday, in the trip plan."


def make_home(tmp_path: Path, url: str, *, time_server: bool = False) -> Any:
    paths = app_paths(tmp_path / "home")
    (paths.config_dir / "agents").mkdir(parents=True)
    (paths.config_dir / "agents" / "researcher.md").write_text(RESEARCHER, encoding="utf-8")
    settings = Settings(
        provider=ProviderSettings(base_url=url, model="test-model", dialect="openai"),
        context_datetime=False,
        context_os=False,
    )
    save_settings(paths.settings_file, settings)
    servers = {"time": {"command": sys.executable, "args": ["-m", "mcp_server_time"]}} if time_server else {}
    paths.mcp_config_file.write_text(json.dumps({"mcpServers": servers}), encoding="utf-8")
    return paths


def open_window(qtbot: Any, assembly: Assembly) -> MainWindow:
    win = MainWindow()
    qtbot.addWidget(win)
    win.attach_runtime(assembly.runtime)
    assert assembly.store is not None
    win.attach_store(assembly.store)
    win.show()
    qtbot.waitExposed(win)
    return win


def close(qtbot: Any, qloop: Any, win: MainWindow, assembly: Assembly) -> None:
    win.controller.close()
    closing = qloop.create_task(assembly.aclose())
    qtbot.waitUntil(closing.done, timeout=10_000)
    closing.result()


def agent_card(win: MainWindow) -> ToolCard | None:
    return next((c for c in win.view.cards.values() if c.tool == "chat-with-researcher"), None)


def sub_of(card: ToolCard | None) -> SubConversation | None:
    sub = getattr(card, "subconversation", None)
    return sub if isinstance(sub, SubConversation) else None


def send(qtbot: Any, win: MainWindow, text: str) -> None:
    win.composer.edit.setPlainText(text)
    qtbot.keyClick(win.composer.edit, Qt.Key.Key_Return)


@pytest.mark.integration
def test_the_researchers_run_nests_live_under_its_card_and_again_after_a_restart(qtbot, qloop, llm_server, tmp_path):
    gate = Gate()  # hold the researcher's answer half-way, to see its tokens stream inside the card
    answer = text_reply(ANSWER)
    half = 2 + len(split(ANSWER)) // 2
    llm_server.enqueue(
        tool_call_reply(
            [("call_r", "chat-with-researcher", {"prompt": "What did we say about Paris?"})],
            content="I'll ask the researcher.",
        ),
        tool_call_reply([("call_s", "search_conversations", {"query": "Paris"})], reasoning="Search the history."),
        Reply(steps=[*answer.steps[:half], gate, *answer.steps[half:]]),
        text_reply("The researcher says: Monday, in the trip plan."),
    )
    paths = make_home(tmp_path, llm_server.url)
    assembly = assemble(paths, strict=True, policy=ApprovalPolicy("always"))
    win = open_window(qtbot, assembly)
    try:
        send(qtbot, win, "What did we say about Paris?")
        qtbot.waitUntil(lambda: sub_of(agent_card(win)) is not None, timeout=10_000)
        card = agent_card(win)
        sub = sub_of(card)
        assert sub is not None and card is not None
        body = sub.body
        # Live: the researcher's own tool card and its half-streamed answer, inside the parent's card.
        qtbot.waitUntil(lambda: body.last_answer is not None and "Paris" in body.last_answer.text, timeout=10_000)
        assert sub.expanded and body.isVisible() and sub.isVisible()
        assert sub.status.text() == "Working…"
        assert body.last_answer.text != ANSWER  # still streaming
        assert [c.tool for c in body.cards.values()] == ["search_conversations"]
        assert body.cards[next(iter(body.cards))].has_result
        assert [p.text() for p in body.prompts] and "What did we say about Paris?" in body.prompts[0].text()
        assert card.isAncestorOf(sub)  # nested in the card, not a card of its own in the transcript
        assert all(c.tool != "search_conversations" for c in win.view.cards.values())
        gate.open()
        qtbot.waitUntil(lambda: not win.controller.busy, timeout=10_000)
        assert body.last_answer.text == ANSWER
        assert sub.status.text() == "Answered" and not sub.expanded and not body.isVisible()
        assert body.tokens > 0 and "tokens" in sub.summary.text()  # the researcher's own usage
        assert sub.isVisible()  # the header stays, under the folded card
        qtbot.mouseClick(sub.toggle, Qt.MouseButton.LeftButton)
        assert sub.expanded and body.isVisible()
        qtbot.mouseClick(sub.toggle, Qt.MouseButton.LeftButton)
        assert not body.isVisible()
        assert "Monday" in win.view.last_answer.text
        parent = win.controller.conversation_id
        child = next(iter(win.view.nested.subs))
        assert child != parent
    finally:
        close(qtbot, qloop, win, assembly)
    win.close()

    # A restart: a new assembly and window on the same store.
    assembly = assemble(paths, strict=True, policy=ApprovalPolicy("always"))
    win = open_window(qtbot, assembly)
    try:
        assert assembly.store is not None
        listed = [c.id for c in assembly.store.list_conversations()]
        assert listed == [parent]  # the researcher's run is reached from the card, not listed on its own
        assert win.conversations.conversation_ids() == [parent]
        hits = assembly.store.search("trip plan")
        assert hits and {h.conversation_id for h in hits} == {parent}  # a hit in the run opens its parent
        win.open_conversation(parent)
        card = agent_card(win)
        sub = sub_of(card)
        assert sub is not None and not sub.expanded and not sub.body.blocks()  # read when opened
        qtbot.mouseClick(sub.toggle, Qt.MouseButton.LeftButton)
        body = sub.body
        assert sub.expanded and body.isVisible()
        assert [c.tool for c in body.cards.values()] == ["search_conversations"]
        assert body.last_answer is not None and body.last_answer.text == ANSWER
        assert "What did we say about Paris?" in body.prompts[0].text()
        qtbot.mouseClick(sub.toggle, Qt.MouseButton.LeftButton)
        assert not body.isVisible() and sub.isVisible()
    finally:
        close(qtbot, qloop, win, assembly)


@pytest.mark.integration
def test_an_approval_inside_the_researcher_is_answered_in_the_window_and_the_run_goes_on(
    qtbot, qloop, llm_server, tmp_path
):
    llm_server.enqueue(
        tool_call_reply([("call_r", "chat-with-researcher", {"prompt": "What time is it in UTC?"})]),
        tool_call_reply([("call_t", "mcp__time__get_current_time", {"timezone": "UTC"})]),
        text_reply("It is noon in UTC."),
        text_reply("The researcher says it is noon in UTC."),
    )
    paths = make_home(tmp_path, llm_server.url, time_server=True)
    assembly = assemble(paths, strict=True, policy=ApprovalPolicy("ask"))
    win = open_window(qtbot, assembly)
    try:
        starting = qloop.create_task(assembly.host.start())  # as the app does: mcp-server-time connects
        qtbot.waitUntil(starting.done, timeout=20_000)
        starting.result()
        send(qtbot, win, "What time is it?")
        qtbot.waitUntil(lambda: agent_card(win) is not None and agent_card(win).pending, timeout=10_000)
        card = agent_card(win)
        assert card is not None
        qtbot.mouseClick(card.approve_button, Qt.MouseButton.LeftButton)  # the default agent may ask it

        def nested_card() -> ToolCard | None:
            sub = sub_of(card)
            return next(iter(sub.body.cards.values()), None) if sub is not None else None

        qtbot.waitUntil(lambda: nested_card() is not None and nested_card().pending, timeout=20_000)
        time_card = nested_card()
        sub = sub_of(card)
        assert time_card is not None and sub is not None
        assert time_card.tool == "get_current_time" and time_card.approve_button.isVisible()
        assert sub.expanded and sub.status.text() == "Waiting for your approval"
        assert win.status.text() == "Waiting for your approval: get_current_time"
        assert win.view.pending_cards() == [time_card]
        assert assembly.runtime.pending_approvals() == [time_card.tool_call_id]
        qtbot.mouseClick(time_card.approve_button, Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda: not win.controller.busy, timeout=20_000)
        assert time_card.status.text() == "Approved" and time_card.has_result and not time_card.is_error
        assert '"timezone": "UTC"' in time_card.result.text() or "UTC" in time_card.result.text()
        assert sub.body.last_answer is not None and sub.body.last_answer.text == "It is noon in UTC."
        assert sub.status.text() == "Answered"
        assert card.result.text() == "It is noon in UTC." and not card.is_error
        assert win.view.last_answer.text == "The researcher says it is noon in UTC."
    finally:
        close(qtbot, qloop, win, assembly)


def test_stopping_while_the_agent_waits_for_approval_settles_its_sub_conversation(qtbot, qloop):
    from desktop_app.runtime.settings import AgentSettings
    from tests.support.fakes import answer, calls
    from tests.unit.runtime.agents.test_agents import build, chat

    helper = AgentSettings(name="helper", servers=["switchboard.t"], tools=["ping"])
    runtime, _provider, _seen = build(
        [helper], [chat("1", "helper"), calls(("p", "ping", "{}")), answer("x")], mode="ask"
    )
    win = MainWindow()
    qtbot.addWidget(win)
    win.attach_runtime(runtime)
    win.show()
    qtbot.waitExposed(win)
    try:
        send(qtbot, win, "start")
        card_of = lambda: next((c for c in win.view.cards.values() if c.tool == "chat-with-helper"), None)  # noqa: E731
        qtbot.waitUntil(lambda: card_of() is not None and card_of().pending, timeout=10_000)
        qtbot.mouseClick(card_of().approve_button, Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda: bool(win.view.nested.pending_cards()), timeout=10_000)
        [ping] = win.view.nested.pending_cards()
        sub = sub_of(card_of())
        assert sub is not None and sub.status.text() == "Waiting for your approval"
        qtbot.keyClick(win, Qt.Key.Key_Escape)  # Stop
        qtbot.waitUntil(lambda: not win.controller.busy, timeout=10_000)
        assert sub.status.text() == "Stopped" and not ping.pending and ping.state == "unanswered"
        assert runtime.pending_approvals() == []
    finally:
        win.controller.close()
        closing = qloop.create_task(runtime.aclose())
        qtbot.waitUntil(closing.done, timeout=5000)


def test_a_nested_approval_is_answerable_as_soon_as_it_is_asked(qtbot, qloop):
    """The nested card and its Approve button are on screen when the event that asks is handled, not a turn of
    the event loop later (Qt shows a widget added to a shown parent on a later turn): a keystroke or a click that
    comes first must find them."""
    from desktop_app.runtime.settings import AgentSettings
    from tests.support.fakes import answer, calls
    from tests.unit.runtime.agents.test_agents import build, chat

    helper = AgentSettings(name="helper", servers=["switchboard.t"], tools=["ping"])
    runtime, _provider, _seen = build(
        [helper], [chat("1", "helper"), calls(("p", "ping", "{}")), answer("pong seen"), answer("done")], mode="ask"
    )
    win = MainWindow()
    qtbot.addWidget(win)
    win.attach_runtime(runtime)
    win.show()
    qtbot.waitExposed(win)
    seen: list[tuple[bool, bool]] = []

    def on_nested(event: object) -> None:  # connected after the view: runs right after the view handled it
        if getattr(event, "kind", "") == "approval_required":
            card = win.view.nested.find_card(getattr(event, "tool_call_id", ""))
            assert card is not None
            seen.append((card.isVisible(), card.approve_button.isVisible()))

    win.controller.subagent_event.connect(on_nested)
    try:
        send(qtbot, win, "start")
        card_of = lambda: next((c for c in win.view.cards.values() if c.tool == "chat-with-helper"), None)  # noqa: E731
        qtbot.waitUntil(lambda: card_of() is not None and card_of().pending, timeout=10_000)
        qtbot.mouseClick(card_of().approve_button, Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda: bool(seen), timeout=10_000)
        assert seen == [(True, True)]
        [ping] = win.view.nested.pending_cards()
        qtbot.mouseClick(ping.approve_button, Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda: not win.controller.busy, timeout=10_000)
        assert ping.status.text() == "Approved" and ping.has_result
    finally:
        win.controller.close()
        closing = qloop.create_task(runtime.aclose())
        qtbot.waitUntil(closing.done, timeout=5000)
