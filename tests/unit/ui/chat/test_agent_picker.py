"""The composer's agent picker: a new conversation talks to the default agent; the agent picked for a
conversation drives its runs (instructions, model, tools) and is stored with it, so after a restart on the
same store the reopened conversation goes on with it, while a new chat starts with the default again."""

from __future__ import annotations

from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QKeySequence

from desktop_app.assembly import assemble
from desktop_app.runtime.run.approvals import ApprovalPolicy
from desktop_app.runtime.store.agents import conversation_agent
from desktop_app.ui.chat.agent_picker import SHORTCUT, _row_of
from tests.support.llm_server import text_reply
from tests.unit.ui.chat.test_subagent_nesting import close, make_home, open_window, send

RESEARCHER_TOOLS = {"search_conversations", "read_conversation"}


def offered(request: Any) -> set[str]:
    return {t["function"]["name"] for t in request.json.get("tools", [])}


@pytest.mark.integration
def test_the_picked_agent_runs_the_conversation_and_survives_a_restart(qtbot, qloop, llm_server, tmp_path):
    llm_server.enqueue(text_reply("Researching."), text_reply("Still researching."), text_reply("Hello there."))
    paths = make_home(tmp_path, llm_server.url)
    agent_file = paths.config_dir / "agents" / "researcher.md"
    agent_file.write_text(agent_file.read_text().replace("---\nYou", "model: research-model\n---\nYou"))
    assembly = assemble(paths, strict=True, policy=ApprovalPolicy("always"))
    win = open_window(qtbot, assembly)
    try:
        picker = win.agent_picker
        assert picker is not None and picker.isVisible()
        # its keyboard shortcut is its own attribute: the button's shortcut() is still Qt's (it was replaced)
        assert picker.shortcut().isEmpty()
        assert picker.menu_shortcut is not None and picker.menu_shortcut.key() == QKeySequence(SHORTCUT)
        row = _row_of(win.composer.model_button, win.composer.field.layout())
        assert row is not None and row.indexOf(picker) == row.indexOf(win.composer.model_button) - 1  # beside it
        assert picker.text() == "" and "Agent: assistant (the default agent)" in picker.toolTip()  # the icon
        picker.picker_menu.aboutToShow.emit()
        actions = {a.objectName(): a for a in picker.picker_menu.actions() if a.objectName()}
        assert actions["pickAgent-assistant"].isChecked() and not actions["pickAgent-researcher"].isChecked()
        assert actions["pickAgent-researcher"].toolTip().startswith("Looks things up")
        assert "manageAgents" in actions
        actions["pickAgent-researcher"].trigger()
        assert picker.text() == "researcher"
        assert "research-model" in win.composer.model_button.text()  # the agent's model is shown
        send(qtbot, win, "Look it up")
        qtbot.waitUntil(lambda: not win.controller.busy, timeout=10_000)
        first = llm_server.requests[0].json
        assert first["model"] == "research-model"
        assert first["messages"][0] == {"role": "system", "content": "You are the researcher. Answer briefly."}
        assert offered(llm_server.requests[0]) == RESEARCHER_TOOLS
        conversation = win.controller.conversation_id
        assert assembly.store is not None and conversation_agent(assembly.store, conversation) == "researcher"
    finally:
        close(qtbot, qloop, win, assembly)
    win.close()

    assembly = assemble(paths, strict=True, policy=ApprovalPolicy("always"))
    win = open_window(qtbot, assembly)
    try:
        picker = win.agent_picker
        assert picker is not None and picker.text() == ""  # the new chat shown at start: the default agent
        win.open_conversation(conversation)
        assert picker.text() == "researcher"
        send(qtbot, win, "And more")
        qtbot.waitUntil(lambda: not win.controller.busy, timeout=10_000)
        again = llm_server.requests[1].json
        assert again["model"] == "research-model" and offered(llm_server.requests[1]) == RESEARCHER_TOOLS
        assert again["messages"][0]["content"] == "You are the researcher. Answer briefly."
        assert next(m["content"] for m in again["messages"] if m["role"] == "user").endswith("Look it up")

        qtbot.keyClick(win, Qt.Key.Key_N, Qt.KeyboardModifier.ControlModifier)  # a new chat: the default agent
        qtbot.waitUntil(lambda: win.controller.conversation_id != conversation, timeout=5000)
        assert picker.text() == "" and "assistant" in picker.toolTip()
        send(qtbot, win, "Hi")
        qtbot.waitUntil(lambda: not win.controller.busy, timeout=10_000)
        fresh = llm_server.requests[2].json
        assert fresh["model"] == "test-model" and "chat-with-researcher" in offered(llm_server.requests[2])
        assert all(m["content"] != "You are the researcher. Answer briefly." for m in fresh["messages"])
    finally:
        close(qtbot, qloop, win, assembly)
