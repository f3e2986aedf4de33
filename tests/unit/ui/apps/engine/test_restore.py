"""A reopened conversation shows its MCP App views again (issue 26): after a restart (a new window, Runtime
and Host on the same store) the view renders from the stored tool input and result, and the tool does not
run again; when the view's server is gone, the card keeps its text result and says why there is no view."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt

from desktop_app.runtime.apps.known import KnownViews
from desktop_app.runtime.store import Store
from desktop_app.ui.apps.controller import GONE_NOTE
from tests.support.llm_server import ScriptedLLMServer, text_reply, tool_call_reply
from tests.unit.ui.apps.conftest import build, close


def test_views_come_back_from_the_store_without_running_the_tool(
    qtbot: Any, qloop: Any, llm_server: ScriptedLLMServer, tmp_path: Path
) -> None:
    store = Store.open(tmp_path / "switchboard.db")
    known = tmp_path / "app-views.json"
    ran: list[str] = []
    try:
        first = build(qtbot, llm_server, store=store, known=KnownViews(known), policy="always", ran=ran)
        llm_server.enqueue(tool_call_reply([("c1", "mcp__probe__greet", {"name": "Ada"})]), text_reply("Done."))
        first.window.composer.edit.setPlainText("greet Ada")
        qtbot.keyClick(first.window.composer.edit, Qt.Key.Key_Return)
        qtbot.waitUntil(lambda: any(r.get("probe") == "result" for r in first.reports_any()), timeout=30_000)
        qtbot.waitUntil(lambda: not first.window.controller.busy, timeout=20_000)  # type: ignore[union-attr]
        conversation = first.window.controller.conversation_id  # type: ignore[union-attr]
        close(qtbot, first)
        assert ran == ["Ada"]

        # a restart: everything new but the store and the data folder
        second = build(qtbot, llm_server, store=store, known=KnownViews(known), policy="always", ran=ran)
        second.window.conversation_ctl.open_conversation(conversation)
        qtbot.waitUntil(lambda: bool(second.apps.frames), timeout=20_000)
        [frame] = second.apps.frames.values()
        qtbot.waitUntil(lambda: any(r.get("probe") == "result" for r in second.reports_any()), timeout=30_000)
        reports = {r["probe"]: r for r in second.reports_any()}
        assert json.loads(reports["input"]["detail"]) == {"name": "Ada"}
        assert json.loads(reports["result"]["detail"]) == {"greeting": "Hello, Ada!", "apps": True}
        assert ran == ["Ada"] and len(llm_server.requests) == 2  # nothing ran again, nothing was asked
        assert frame.parent() is second.window.view.cards[frame.tool_call_id]
        close(qtbot, second)

        # the server is gone: the text stays, with a note instead of the view
        third = build(qtbot, llm_server, store=store, known=KnownViews(known), policy="always", probe=False)
        third.window.conversation_ctl.open_conversation(conversation)
        [card] = third.window.view.cards.values()
        assert not third.apps.frames and card.has_result and "Hello, Ada!" in card.result.text()
        assert card.note is not None and card.note.text() == "✎ " + GONE_NOTE.format(server="probe")
        close(qtbot, third)
    finally:
        store.close()
