"""Regenerate the last answer, Retry after a failed run and delete a message pair, with the real Runtime and
the store; each survives a restart of the window on the same database."""

from __future__ import annotations

from PySide6.QtCore import Qt

from desktop_app.runtime.errors import ProviderHTTPError
from desktop_app.runtime.store import Store, attach_store
from desktop_app.ui.chat.blocks import AnswerBlock, UserMessageBlock
from tests.support.fakes import FakeHost, FakeProvider, answer
from tests.unit.ui.chat.test_replay import _runtime, _wait, _window


def _of(win, cls) -> list:
    return [b for b in win.view.blocks() if isinstance(b, cls) and not b.isHidden()]


def _send(qtbot, win, text: str) -> None:
    win.composer.edit.setPlainText(text)
    win.composer.button.click()
    qtbot.waitUntil(lambda: not win.controller.busy, timeout=5000)


def test_regenerate_retry_and_delete_survive_a_restart(qtbot, qloop, tmp_path):
    path = tmp_path / "switchboard.db"
    host = FakeHost()
    provider = FakeProvider(
        [
            answer("First answer."),
            answer("Second answer."),
            [ProviderHTTPError(400, "bad request")],
            answer("Recovered."),
        ]
    )
    store1 = Store.open(path)
    runtime1 = _runtime(provider, host)
    recorder1 = attach_store(runtime1, store1)
    win1 = _window(qtbot, runtime1, store1)
    _send(qtbot, win1, "q1")
    [first] = _of(win1, AnswerBlock)
    assert first.text == "First answer." and first.actions_row.regenerate_button.isVisible()

    qtbot.mouseClick(first.actions_row.regenerate_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: [a.text for a in _of(win1, AnswerBlock)] == ["Second answer."], timeout=5000)
    qtbot.waitUntil(lambda: not win1.controller.busy, timeout=5000)
    asked_again = provider.requests[1].messages
    assert [type(m).__name__ for m in asked_again][-1] == "UserMessage"  # the old answer is not sent again

    _send(qtbot, win1, "q2")  # this run fails
    assert win1.view.retry_run_row is not None and win1.view.retry_run_row.isVisible()
    retry = win1.view.retry_run_row.findChild(type(win1.composer.button), "retryRunButton")
    qtbot.mouseClick(retry, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: [a.text for a in _of(win1, AnswerBlock)][-1:] == ["Recovered."], timeout=5000)
    qtbot.waitUntil(lambda: not win1.controller.busy, timeout=5000)
    assert [u.text for u in _of(win1, UserMessageBlock)] == ["q1", "q2"]  # the prompt is not sent twice

    q1 = _of(win1, UserMessageBlock)[0]
    qtbot.mouseClick(q1.actions_row.delete_button, Qt.MouseButton.LeftButton)  # the pair q1 + its answer
    assert [u.text for u in _of(win1, UserMessageBlock)] == ["q2"]
    assert [a.text for a in _of(win1, AnswerBlock)] == ["Recovered."]
    conversation = win1.controller.conversation_id
    win1.close()
    _wait(qtbot, qloop, runtime1.aclose())
    recorder1.close()
    store1.close()

    store2 = Store.open(path)
    runtime2 = _runtime(FakeProvider([answer("Later.")]), host)
    recorder2 = attach_store(runtime2, store2)
    win2 = _window(qtbot, runtime2, store2)
    try:
        win2.open_conversation(conversation)
        assert [u.text for u in _of(win2, UserMessageBlock)] == ["q2"]
        assert [a.text for a in _of(win2, AnswerBlock)] == ["Recovered."]
        assert [m.role for m in store2.messages(conversation)] == ["user", "assistant"]
    finally:
        win2.close()
        _wait(qtbot, qloop, runtime2.aclose())
        recorder2.close()
        store2.close()


def test_edit_and_resend_keeps_the_old_version_switchable_after_a_restart(qtbot, qloop, tmp_path):
    path = tmp_path / "switchboard.db"
    host = FakeHost()
    provider = FakeProvider([answer("Paris is in France."), answer("Lyon is in France too.")])
    store1 = Store.open(path)
    runtime1 = _runtime(provider, host)
    recorder1 = attach_store(runtime1, store1)
    win1 = _window(qtbot, runtime1, store1)
    _send(qtbot, win1, "Where is Paris?")
    [question] = _of(win1, UserMessageBlock)
    assert question.versions.isHidden()
    qtbot.mouseClick(question.actions_row.edit_button, Qt.MouseButton.LeftButton)
    assert question.editor.isVisible() and question.editor.toPlainText() == "Where is Paris?"
    question.editor.setPlainText("Where is Lyon?")
    qtbot.mouseClick(question.edit_send_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: [a.text for a in _of(win1, AnswerBlock)] == ["Lyon is in France too."], timeout=5000)
    qtbot.waitUntil(lambda: not win1.controller.busy, timeout=5000)
    assert [type(m).__name__ for m in provider.requests[1].messages][-1] == "UserMessage"
    assert provider.requests[1].messages[-1].content.endswith("Where is Lyon?")
    [edited] = _of(win1, UserMessageBlock)
    assert edited.text == "Where is Lyon?"
    qtbot.waitUntil(lambda: edited.versions.isVisible(), timeout=2000)
    assert edited.version_label.text() == "2/2" and not edited.next_version_button.isEnabled()

    qtbot.mouseClick(edited.previous_version_button, Qt.MouseButton.LeftButton)  # ‹ : back to version 1
    [first] = _of(win1, UserMessageBlock)
    assert first.text == "Where is Paris?" and first.version_label.text() == "1/2"
    assert [a.text for a in _of(win1, AnswerBlock)] == ["Paris is in France."]
    conversation = win1.controller.conversation_id
    win1.close()
    _wait(qtbot, qloop, runtime1.aclose())
    recorder1.close()
    store1.close()

    store2 = Store.open(path)
    runtime2 = _runtime(FakeProvider([]), host)
    recorder2 = attach_store(runtime2, store2)
    win2 = _window(qtbot, runtime2, store2)
    try:
        win2.open_conversation(conversation)
        [shown] = _of(win2, UserMessageBlock)
        assert shown.text == "Where is Paris?" and shown.version_label.text() == "1/2" and shown.versions.isVisible()
        qtbot.mouseClick(shown.next_version_button, Qt.MouseButton.LeftButton)  # › : version 2 after a restart
        [second] = _of(win2, UserMessageBlock)
        assert second.text == "Where is Lyon?" and second.version_label.text() == "2/2"
        assert [a.text for a in _of(win2, AnswerBlock)] == ["Lyon is in France too."]
        assert [m.role for m in store2.messages(conversation)] == ["user", "assistant"]
    finally:
        win2.close()
        _wait(qtbot, qloop, runtime2.aclose())
        recorder2.close()
        store2.close()


def test_a_run_interrupted_by_a_crash_offers_retry_after_the_restart(qtbot, qloop, tmp_path):
    path = tmp_path / "switchboard.db"
    store1 = Store.open(path)
    cid = store1.create_conversation(title="cut")
    store1.start_run("r1", cid)
    store1.add_part(store1.add_message(cid, "user", run_id="r1", status="complete"), "text", "Tell me a story")
    store1.add_part(store1.add_message(cid, "assistant", run_id="r1", status="streaming"), "text", "Once upon")
    store1.close()  # the app died mid-stream

    store2 = Store.open(path)
    assert store2.mark_interrupted_runs() == 1
    provider = FakeProvider([answer("Once upon a time, a whole story.")])
    runtime = _runtime(provider, FakeHost())
    recorder = attach_store(runtime, store2)
    win = _window(qtbot, runtime, store2)
    try:
        win.open_conversation(cid)
        row = win.view.retry_run_row
        assert row is not None and row.isVisible()
        qtbot.mouseClick(row.findChild(type(win.composer.button), "retryRunButton"), Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda: not win.controller.busy and bool(_of(win, AnswerBlock)), timeout=5000)
        assert [a.text for a in _of(win, AnswerBlock)] == ["Once upon a time, a whole story."]
        assert [m.role for m in store2.messages(cid)] == ["user", "assistant"]
    finally:
        win.close()
        _wait(qtbot, qloop, runtime.aclose())
        recorder.close()
        store2.close()
