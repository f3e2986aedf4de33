"""MCP App views in the real window (issue 26; Qt WebEngine, offscreen): the probe app server's view renders in
its tool card and its bridge traffic is asserted — initialize, tool-input-partial while the model is still
writing, tool-input, tool-result, a tools/call from the view that waits for the user's approval, a size
change, the model context shown, teardown on close — and what a view must not do fails: reach a host outside
its CSP, read a local file, navigate its frame or the window, touch the host page, call another server's
tool or a model-only one, send a message or open a link the user did not agree to.

One WebEngine warm-up serves the whole walk-through (each view costs seconds on 2 cores)."""

from __future__ import annotations

import json
from typing import Any

from PySide6.QtCore import QEvent, QObject, QPoint, QPointF, Qt
from PySide6.QtGui import QWheelEvent
from PySide6.QtWidgets import QApplication, QPushButton

from desktop_app.ui.apps.frame import AppFrame, AskRow
from desktop_app.ui.chat.blocks import UserMessageBlock
from desktop_app.ui.chat.tool_card import ToolCard
from tests.support.llm_server import DONE, Gate, Reply, ScriptedLLMServer, chunk, text_reply, usage_frame
from tests.unit.ui.apps.conftest import AppWindow

ACTIONS = [
    "size:240",
    "bump:2",
    "context:Seat 14C",
    "fetch:https://evil.example/steal",
    "fetch:https://api.example.com/ok",
    "fetch:file:///etc/hostname",
    "call:secret",
    "call:model_only",
    "parent",
    "top:https://evil.example/",
    "mode:pip",
    "message:Book it",
    "link:https://example.com/docs",
    "navigate:https://evil.example/",
]


def gated_call(arguments: dict[str, Any], gate: Gate) -> Reply:
    """The model's greet call, its arguments streamed in two halves with a pause (the gate) between."""
    raw = json.dumps(arguments)
    half = raw.index('"actions"')
    first = {
        "index": 0,
        "id": "c1",
        "type": "function",
        "function": {"name": "mcp__probe__greet", "arguments": raw[:half]},
    }
    return Reply(
        steps=[
            chunk(tool_calls=[first]),
            gate,
            chunk(tool_calls=[{"index": 0, "function": {"arguments": raw[half:]}}]),
            chunk(finish_reason="tool_calls"),
            usage_frame(),
            DONE,
        ]
    )


def question(qtbot: Any, frame: AppFrame, start: str) -> AskRow:
    found: list[AskRow] = []

    def shown() -> bool:
        found[:] = [r for r in frame.findChildren(AskRow) if r.isVisible() and r.label.text().startswith(start)]
        return bool(found)

    qtbot.waitUntil(shown, timeout=20_000)
    return found[0]


def test_the_probe_view_in_the_window(qtbot: Any, app_window: AppWindow, llm_server: ScriptedLLMServer) -> None:
    app, window = app_window, app_window.window
    gate = Gate()
    llm_server.enqueue(gated_call({"name": "Ada", "actions": ACTIONS}, gate), text_reply("Greeted."))
    window.composer.edit.setPlainText("greet Ada")
    qtbot.keyClick(window.composer.edit, Qt.Key.Key_Return)

    # While the model writes: the view opens from the first fragment and gets the partial input.
    qtbot.waitUntil(lambda: bool(app.apps.early), timeout=20_000)
    [early] = app.apps.early.values()
    qtbot.waitUntil(lambda: early.session is not None and early.session.bridge is not None, timeout=20_000)
    assert early.session is not None and early.session.bridge is not None
    bridge = early.session.bridge
    qtbot.waitUntil(lambda: bridge.initialized, timeout=30_000)
    partial_id = early.session.tool_call_id
    qtbot.waitUntil(lambda: app.report(partial_id, "partial") is not None, timeout=20_000)
    assert json.loads(app.report(partial_id, "partial")["detail"]) == {"name": "Ada"}  # type: ignore[index]
    gate.open()

    # The call: the frame joins its card, which waits for approval.
    qtbot.waitUntil(lambda: bool(window.view.cards), timeout=20_000)
    [card] = window.view.cards.values()
    assert isinstance(card, ToolCard)
    qtbot.waitUntil(lambda: card.state == "waiting", timeout=20_000)
    assert early.parent() is card and app.apps.frames[card.tool_call_id] is early
    qtbot.mouseClick(card.approve_button, Qt.MouseButton.LeftButton)
    call_id = card.tool_call_id

    # A tools/call from the view waits for the user, then runs through the host.
    approval = question(qtbot, early, "The app view wants to call bump(count=2) on probe.")
    assert approval.objectName() == "appViewApproval"
    assert app.report(call_id, "bump") is None
    qtbot.mouseClick(approval.yes, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: app.report(call_id, "bump") is not None, timeout=20_000)
    assert app.report(call_id, "bump") == {"probe": "bump", "ok": True, "detail": '{"count":2}'}
    assert early.calls_note.text().startswith("Called by the view: bump · done")  # labelled in the card

    # The message is shown first and not sent without the user; the link opens only when agreed.
    row = question(qtbot, early, "The app wants to send this message for you:\nBook it")
    users_before = len(window.view.findChildren(UserMessageBlock))
    qtbot.mouseClick(row.no, Qt.MouseButton.LeftButton)
    row = question(qtbot, early, "The app wants to open this link in your browser:\nhttps://example.com/docs")
    qtbot.mouseClick(row.yes, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: app.report(call_id, "done") is not None, timeout=30_000)
    assert len(window.view.findChildren(UserMessageBlock)) == users_before  # discarded: never sent

    reports = {r["probe"]: r for r in app.reports(call_id)}
    assert json.loads(reports["input"]["detail"]) == {"name": "Ada", "actions": ACTIONS}
    assert json.loads(reports["result"]["detail"]) == {"greeting": "Hello, Ada!", "apps": True}
    initialized = json.loads(reports["initialized"]["detail"])
    assert initialized["displayMode"] == "inline" and initialized["theme"] in ("light", "dark")
    assert {"locale", "timeZone", "containerDimensions", "availableDisplayModes"} <= set(initialized)
    assert reports["size"]["ok"] and early.height_hint == 240
    assert reports["context"]["ok"] and early.context_note.text() == "The app told the model: Seat 14C"
    assert reports["link"]["ok"] and app.opened == ["https://example.com/docs"]
    assert not reports["message"]["ok"] and "denied" in reports["message"]["detail"]
    # outside its CSP, a local file, another server's tool, a model-only tool, the host page, the window
    assert not reports["fetch"]["ok"]  # the first fetch (evil.example); the declared one is below
    fetches = [r for r in app.reports(call_id) if r["probe"] == "fetch"]
    assert [f["ok"] for f in fetches] == [False, False, False]  # declared but unreachable offline, too
    assert "only call tools of its own MCP server 'probe'" in reports["call:secret"]["detail"]
    assert "for the model only" in reports["call:model_only"]["detail"]
    assert not reports["parent"]["ok"] and not reports["top"]["ok"]
    page = early.web.app_page
    # the view tried to navigate its frame away: it is still there and still answers
    theme = "dark" if bridge.host_context["theme"] == "light" else "light"
    bridge.host_context_changed({"theme": theme})

    def last_context() -> dict[str, Any]:
        seen = [r for r in app.reports(call_id) if r["probe"] == "host-context"]
        return json.loads(seen[-1]["detail"]) if seen else {}

    qtbot.waitUntil(lambda: last_context() == {"theme": theme}, timeout=20_000)
    # and the window's page itself never leaves the host's outer page
    page.runJavaScript("window.location.href = 'https://evil.example/'")
    qtbot.waitUntil(lambda: "https://evil.example/" in page.refused, timeout=20_000)
    assert page.url().toString() == "https://switchboard-app.invalid/"
    traffic = bridge.traffic
    ins = [m for d, m in traffic if d == "in" and m != "notifications/message"]
    outs = [m for d, m in traffic if d == "out"]
    assert ins[:2] == ["ui/initialize", "ui/notifications/initialized"]
    assert "tools/call" in ins and "ui/notifications/size-changed" in ins
    assert outs.index("ui/notifications/tool-input-partial") < outs.index("ui/notifications/tool-input")
    assert outs.index("ui/notifications/tool-input") < outs.index("ui/notifications/tool-result")

    # The view asked for picture-in-picture: it moved into a window of its own; closing it brings it back.
    assert json.loads(reports["mode"]["detail"]) == {"mode": "pip"}
    assert early.popout is not None and early.web.window() is early.popout
    early.popout.close()
    qtbot.waitUntil(lambda: early.mode == "inline" and early.popout is None, timeout=10_000)
    assert early.web.window() is window and bridge.host_context["displayMode"] == "inline"
    assert early.web.height() == 240  # inline again at the height the view asked for

    # The wheel over the view scrolls the chat (the view is sized to its content).
    wheels: list[int] = []
    spy = EventSpy(QEvent.Type.Wheel, wheels)
    target = window.view.viewport()
    target.installEventFilter(spy)
    proxy = early.web.focusProxy()
    point = QPointF(10, 10)
    wheel = QWheelEvent(
        point,
        point,
        QPoint(),
        QPoint(0, -120),
        Qt.MouseButton.NoButton,
        Qt.KeyboardModifier.NoModifier,
        Qt.ScrollPhase.NoScrollPhase,
        False,
    )
    QApplication.sendEvent(proxy, wheel)
    assert wheels == [int(QEvent.Type.Wheel)]
    target.removeEventFilter(spy)
    assert early.web.focusPolicy() == Qt.FocusPolicy.ClickFocus  # the keyboard only when clicked

    # Close: the view is asked to tear down first, then removed; the text result stays.
    qtbot.mouseClick(early.close_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: early.web is None, timeout=20_000)
    assert ("out", "ui/resource-teardown") in traffic
    assert early.session is not None
    assert ("info", {"probe": "teardown", "ok": True, "detail": "closed by the user"}) in early.session.logs
    assert early.note.text() == "View closed. The text result is above." and card.has_result
    assert not [b for b in early.findChildren(QPushButton) if b.isVisible()]


class EventSpy(QObject):
    def __init__(self, kind: QEvent.Type, seen: list[int]) -> None:
        super().__init__()
        self.kind, self.seen = kind, seen

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == self.kind:
            self.seen.append(int(event.type()))
        return False


def test_a_views_message_is_sent_once_the_user_agrees(
    qtbot: Any, app_window: AppWindow, llm_server: ScriptedLLMServer
) -> None:
    app, window = app_window, app_window.window
    llm_server.enqueue(
        gated_call({"name": "Ada", "actions": ["message:Book seat 14C"]}, opened_gate()),
        text_reply("Greeted."),
        text_reply("Booked."),
    )
    window.composer.edit.setPlainText("greet Ada")
    qtbot.keyClick(window.composer.edit, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: bool(window.view.cards), timeout=20_000)
    [card] = window.view.cards.values()
    qtbot.waitUntil(lambda: card.state == "waiting", timeout=20_000)
    qtbot.mouseClick(card.approve_button, Qt.MouseButton.LeftButton)
    frame = app.apps.frames[card.tool_call_id]
    row = question(qtbot, frame, "The app wants to send this message for you:\nBook seat 14C")
    controller = window.controller
    assert controller is not None
    qtbot.waitUntil(lambda: not controller.busy, timeout=20_000)  # the turn is over; nothing was sent yet
    assert len(llm_server.requests) == 2
    qtbot.mouseClick(row.yes, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: len(llm_server.requests) == 3, timeout=20_000)
    assert "Book seat 14C" in json.dumps(llm_server.requests[2].json["messages"][-1])
    assert [b for b in window.view.findChildren(UserMessageBlock) if b.label.text() == "Book seat 14C"]
    qtbot.waitUntil(lambda: app.report(card.tool_call_id, "message") is not None, timeout=20_000)
    assert app.report(card.tool_call_id, "message") == {"probe": "message", "ok": True, "detail": "{}"}


def opened_gate() -> Gate:
    gate = Gate()
    gate.open()
    return gate
