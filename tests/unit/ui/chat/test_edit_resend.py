"""Edit-and-resend with the real Runtime and Store: the edited message goes again with the original's context
chips and text attachments (also after a restart), and the ``‹ n/m ›`` switcher picks the right message in a
conversation longer than the reopened window ("Show earlier")."""

from __future__ import annotations

from PySide6.QtCore import Qt

from desktop_app.runtime.context import text_item
from desktop_app.runtime.store import Store, attach_store
from desktop_app.ui.chat.blocks import AnswerBlock, UserMessageBlock
from desktop_app.ui.chat.replay import REPLAY_WINDOW
from tests.support.fakes import FakeHost, FakeProvider, answer
from tests.unit.ui.chat.test_replay import _runtime, _wait, _window


def _of(win, cls) -> list:
    return [b for b in win.view.blocks() if isinstance(b, cls) and not b.isHidden()]


def _send(qtbot, win, text: str) -> None:
    win.composer.edit.setPlainText(text)
    win.composer.button.click()
    qtbot.waitUntil(lambda: not win.controller.busy, timeout=5000)


def _click(qtbot, win, button) -> None:
    """A click where the user would click: the transcript scrolled (once laid out) to show the button."""

    def on_screen() -> bool:
        win.view.ensureWidgetVisible(button, 0, 0)
        return win.childAt(button.mapTo(win, button.rect().center())) is button

    qtbot.waitUntil(on_screen, timeout=3000)
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)


def _edit(qtbot, win, block: UserMessageBlock, text: str) -> None:
    _click(qtbot, win, block.actions_row.edit_button)
    block.editor.setPlainText(text)
    _click(qtbot, win, block.edit_send_button)
    qtbot.waitUntil(lambda: not win.controller.busy, timeout=5000)


class _Session:
    """One run of the window on the store at ``path`` (a restart is a new session on the same path)."""

    def __init__(self, qtbot, qloop, path, answers: list[str], host: FakeHost | None = None) -> None:
        self.qtbot, self.qloop = qtbot, qloop
        self.store = Store.open(path)
        self.provider = FakeProvider([answer(a) for a in answers])
        self.runtime = _runtime(self.provider, host or FakeHost())
        self.recorder = attach_store(self.runtime, self.store)
        self.win = _window(qtbot, self.runtime, self.store)

    def close(self) -> None:
        self.win.close()
        _wait(self.qtbot, self.qloop, self.runtime.aclose())
        self.recorder.close()
        self.store.close()


def test_an_edited_message_goes_again_with_its_chips_and_files_after_a_restart(qtbot, qloop, tmp_path):
    path = tmp_path / "switchboard.db"
    notes = tmp_path / "notes.txt"
    notes.write_text("alpha beta gamma\n", encoding="utf-8")
    first = _Session(qtbot, qloop, path, ["It lists three words."])
    try:
        composer = first.win.composer
        composer.add_files([str(notes)])
        composer.add_context(text_item("the selected paragraph", kind="selection"))
        _send(qtbot, first.win, "What is in the file?")
        sent = first.provider.requests[0].messages[-1]
        assert [a.name for a in sent.attachments] == ["notes.txt"] and "the selected paragraph" in sent.context
        [question] = _of(first.win, UserMessageBlock)
        assert "notes.txt" in question.sent_with.text() and "Selected text" in question.sent_with.text()
        conversation = first.win.controller.conversation_id
    finally:
        first.close()

    second = _Session(qtbot, qloop, path, ["It lists words, in order."])
    try:
        second.win.open_conversation(conversation)
        [question] = _of(second.win, UserMessageBlock)
        assert question.sent_with.isVisibleTo(second.win) and "notes.txt" in question.sent_with.text()
        _edit(qtbot, second.win, question, "What is in the file, in order?")
        resent = second.provider.requests[0].messages[-1]
        assert resent.content.endswith("What is in the file, in order?")
        assert [(a.name, a.data) for a in resent.attachments] == [("notes.txt", "alpha beta gamma\n")]
        assert "the selected paragraph" in resent.context and "notes.txt" in resent.context
        assert "date:" in resent.context  # the date-and-time chip goes again, taken at this sending
        [edited] = _of(second.win, UserMessageBlock)
        assert edited.version_label.text() == "2/2" and "notes.txt" in edited.sent_with.text()
        assert [a.text for a in _of(second.win, AnswerBlock)] == ["It lists words, in order."]
    finally:
        second.close()


def test_the_version_switcher_picks_the_right_message_in_a_windowed_conversation_after_a_restart(
    qtbot, qloop, tmp_path
):
    path = tmp_path / "switchboard.db"
    answers = ["a1", "a2", "a2b", *[f"a{n}" for n in range(3, 14)], "a13b", "a14", "a15"]
    first = _Session(qtbot, qloop, path, answers)
    try:
        win = first.win
        _send(qtbot, win, "q1")
        _send(qtbot, win, "q2")
        _edit(qtbot, win, _of(win, UserMessageBlock)[-1], "q2b")
        for n in range(3, 14):
            _send(qtbot, win, f"q{n}")
        _edit(qtbot, win, _of(win, UserMessageBlock)[-1], "q13b")
        _send(qtbot, win, "q14")
        _send(qtbot, win, "q15")
        conversation = win.controller.conversation_id
        assert len(first.store.messages(conversation)) == 30 > REPLAY_WINDOW
    finally:
        first.close()

    second = _Session(qtbot, qloop, path, [])
    try:
        win = second.win
        win.open_conversation(conversation)
        users = _of(win, UserMessageBlock)
        assert [u.text for u in users] == [f"q{n}" for n in range(4, 13)] + ["q13b", "q14", "q15"]
        assert win.view.earlier_line is not None  # q1-q3 are behind "Show earlier"
        versions = {u.text: (u.versions.isVisible(), u.version_label.text()) for u in users}
        assert versions["q13b"] == (True, "2/2") and not versions["q14"][0] and not versions["q12"][0]

        [edited] = [u for u in users if u.text == "q13b"]
        _click(qtbot, win, edited.previous_version_button)  # ‹ on a message in the middle of the window
        users = _of(win, UserMessageBlock)
        assert [u.text for u in users][-2:] == ["q12", "q13"] and users[-1].version_label.text() == "1/2"
        assert [a.text for a in _of(win, AnswerBlock)][-1] == "a13"
        assert [m.role for m in second.store.messages(conversation)][-2:] == ["user", "assistant"]

        if win.view.earlier_line is not None:  # the older edit, behind "Show earlier"
            _click(qtbot, win, win.view.earlier_line.button)
        users = _of(win, UserMessageBlock)
        assert [u.text for u in users][:3] == ["q1", "q2b", "q3"]
        q2b = users[1]
        assert q2b.versions.isVisible() and q2b.version_label.text() == "2/2"
        assert not users[0].versions.isVisible() and not users[2].versions.isVisible()
        _click(qtbot, win, q2b.previous_version_button)
        assert [u.text for u in _of(win, UserMessageBlock)] == ["q1", "q2"]
        assert [a.text for a in _of(win, AnswerBlock)] == ["a1", "a2"]
        assert _of(win, UserMessageBlock)[-1].version_label.text() == "1/2"
    finally:
        second.close()
