"""The composer follows every run the same way, however it started (send, Retry, regenerate, edit-and-resend):
Send turns into Stop while the answer streams, Esc or Stop stops it, and Send comes back. Real Runtime and
Store; the fake provider streams the answer's text, then waits on a gate (the run is mid-stream)."""

from __future__ import annotations

import asyncio

from PySide6.QtCore import Qt

from desktop_app.ui.chat.blocks import AnswerBlock, UserMessageBlock
from tests.support.fakes import answer
from tests.unit.ui.chat.test_edit_resend import _click, _of, _Session


def _streaming(qtbot, session, text: str) -> None:
    """The run is going: its text is on screen, Send has become Stop, and a second send is refused."""
    win = session.win
    assert win.composer.button.text() == "Stop"  # at once, in the click's own turn of the event loop
    qtbot.waitUntil(lambda: [a.text for a in _of(win, AnswerBlock)][-1:] == [text], timeout=5000)
    assert win.controller.busy and win.composer.busy
    button = win.composer.button
    assert button.text() == "Stop" and button.accessibleName() == "Stop" and "Esc" in button.toolTip()
    requests = len(session.provider.requests)
    win.composer.edit.setPlainText("a second message while one runs")
    win.composer.submit()
    assert len(session.provider.requests) == requests  # nothing else was sent
    win.composer.edit.clear()


def _stopped(qtbot, session) -> None:
    win = session.win
    qtbot.waitUntil(lambda: not win.controller.busy, timeout=5000)
    assert win.composer.button.text() == "Send" and not win.composer.busy
    assert win.view.retry_run_row is not None and win.view.retry_run_row.isVisible()


def test_send_retry_regenerate_and_edit_all_turn_send_into_stop_and_esc_stops_them(qtbot, qloop, tmp_path):
    session = _Session(qtbot, qloop, tmp_path / "switchboard.db", [])
    session.provider.responses.extend(
        [answer("first"), answer("retried"), answer("regenerated"), answer("edited"), answer("done")]
    )
    session.provider.gate = asyncio.Event()  # each answer streams its text, then waits here
    win = session.win
    try:
        win.composer.edit.setPlainText("q")
        qtbot.mouseClick(win.composer.button, Qt.MouseButton.LeftButton)
        _streaming(qtbot, session, "first")
        qtbot.keyClick(win.composer.edit, Qt.Key.Key_Escape)  # Esc stops the run
        _stopped(qtbot, session)

        retry = win.view.retry_run_row.findChild(type(win.composer.button), "retryRunButton")
        _click(qtbot, win, retry)
        _streaming(qtbot, session, "retried")
        qtbot.mouseClick(win.composer.button, Qt.MouseButton.LeftButton)  # Stop stops it too
        _stopped(qtbot, session)

        [last] = _of(win, AnswerBlock)[-1:]
        qtbot.waitUntil(last.actions_row.regenerate_button.isVisible, timeout=3000)
        _click(qtbot, win, last.actions_row.regenerate_button)
        _streaming(qtbot, session, "regenerated")
        qtbot.keyClick(win, Qt.Key.Key_Escape)
        _stopped(qtbot, session)

        [question] = _of(win, UserMessageBlock)
        _click(qtbot, win, question.actions_row.edit_button)
        question.editor.setPlainText("q, edited")
        _click(qtbot, win, question.edit_send_button)
        _streaming(qtbot, session, "edited")
        qtbot.keyClick(win.composer.edit, Qt.Key.Key_Escape)
        _stopped(qtbot, session)

        session.provider.gate.set()  # an unhindered run ends by itself, and Send is back
        win.composer.edit.setPlainText("go on")
        qtbot.mouseClick(win.composer.button, Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda: [a.text for a in _of(win, AnswerBlock)][-1:] == ["done"], timeout=5000)
        qtbot.waitUntil(lambda: not win.controller.busy, timeout=5000)
        assert win.composer.button.text() == "Send"
    finally:
        session.close()
