"""Regenerate keeps the old answer as a version (the real MainWindow, Runtime and Store): ``‹ 2/2 ›`` under the
new answer, ``‹`` brings the old text back with its own usage footer, both versions survive a restart, and
Edit's versions and Regenerate's stay right when one follows the other (also across a switch and a restart)."""

from __future__ import annotations

from desktop_app.runtime.errors import ProviderHTTPError
from desktop_app.runtime.events import TokenUsage
from desktop_app.runtime.providers.base import Completion, ContentChunk, UsageChunk
from desktop_app.runtime.store import Store, attach_store
from desktop_app.ui.chat.answer_versions import AnswerVersions
from desktop_app.ui.chat.blocks import AnswerBlock, UserMessageBlock
from desktop_app.ui.chat.replay import REPLAY_WINDOW
from desktop_app.ui.chat.usage import UsageFooter
from tests.support.fakes import FakeHost, FakeProvider
from tests.unit.ui.chat.test_edit_resend import _click, _edit, _of, _send, _Session
from tests.unit.ui.chat.test_replay import _runtime, _window


def _answer(text: str, prompt: int, completion: int) -> list:
    usage = TokenUsage(prompt_tokens=prompt, completion_tokens=completion, total_tokens=prompt + completion)
    return [ContentChunk(text=text), UsageChunk(usage=usage), Completion(content=text)]


class _Provided(_Session):
    """A window session whose answers carry token usage (each version's footer can be told apart)."""

    def __init__(self, qtbot, qloop, path, answers: list[tuple[str, int, int]]) -> None:
        self.qtbot, self.qloop = qtbot, qloop
        self.store = Store.open(path)
        self.provider = FakeProvider([_answer(*a) for a in answers])
        self.runtime = _runtime(self.provider, FakeHost())
        self.recorder = attach_store(self.runtime, self.store)
        self.win = _window(qtbot, self.runtime, self.store)


def _session(qtbot, qloop, path, answers: list[tuple[str, int, int]]) -> _Session:
    return _Provided(qtbot, qloop, path, answers)


def _answers(win) -> list[str]:
    return [a.text for a in _of(win, AnswerBlock)]


def _rows(win) -> list[AnswerVersions]:
    """The answers' ``‹ n/m ›`` switchers shown, top to bottom (on an answer's line, or a row of their own)."""
    rows = [row for row in win.view.findChildren(AnswerVersions) if row.isVisibleTo(win)]
    return sorted(rows, key=lambda row: row.mapTo(win.view.widget(), row.rect().topLeft()).y())


def _switchers(win) -> list[str]:
    return [row.version_label.text() for row in _rows(win)]


def _footers(win) -> list[str]:
    return [f.text().splitlines()[0] for f in _of(win, UsageFooter)]


def _footers_are(qtbot, win, expected: list[str]) -> bool:
    """The usage footers shown (a footer added to the shown transcript appears on the next event-loop turn)."""
    qtbot.waitUntil(lambda: _footers(win) == expected, timeout=3000)
    return True


def _regenerate(qtbot, win) -> None:
    _click(qtbot, win, _of(win, AnswerBlock)[-1].actions_row.regenerate_button)
    qtbot.waitUntil(lambda: not win.controller.busy, timeout=5000)


def _wait_rows(qtbot, win, labels: list[str]) -> None:
    qtbot.waitUntil(lambda: _switchers(win) == labels, timeout=3000)


def test_regenerate_keeps_the_old_answer_and_its_footer_as_a_version_after_a_restart(qtbot, qloop, tmp_path):
    path = tmp_path / "switchboard.db"
    first = _session(qtbot, qloop, path, [("Paris.", 11, 3), ("Paris, in France.", 22, 7)])
    try:
        win = first.win
        _send(qtbot, win, "Capital of France?")
        assert _switchers(win) == [] and _footers_are(qtbot, win, ["11 prompt · 3 completion tokens"])
        _regenerate(qtbot, win)
        assert _answers(win) == ["Paris, in France."]
        _wait_rows(qtbot, win, ["2/2"])
        assert _footers_are(qtbot, win, ["22 prompt · 7 completion tokens"])  # the new version's own usage
        [row] = _rows(win)
        assert not row.next_version_button.isEnabled() and row.previous_version_button.isEnabled()
        [question] = _of(win, UserMessageBlock)
        assert question.versions.isHidden()  # the prompt has one version: only the answer has two
        assert [type(m).__name__ for m in first.provider.requests[1].messages][-1] == "UserMessage"

        _click(qtbot, win, row.previous_version_button)  # ‹ : the old answer, with its footer
        assert _answers(win) == ["Paris."] and _switchers(win) == ["1/2"]
        assert _footers_are(qtbot, win, ["11 prompt · 3 completion tokens"])
        conversation = win.controller.conversation_id
        assert [m.role for m in first.store.messages(conversation)] == ["user", "assistant"]
    finally:
        first.close()

    second = _session(qtbot, qloop, path, [])
    try:
        win = second.win
        win.open_conversation(conversation)
        assert _answers(win) == ["Paris."] and _switchers(win) == ["1/2"]
        assert _footers_are(qtbot, win, ["11 prompt · 3 completion tokens"])
        _click(qtbot, win, _rows(win)[0].next_version_button)  # › : the regenerated one
        assert _answers(win) == ["Paris, in France."] and _switchers(win) == ["2/2"]
        assert _footers_are(qtbot, win, ["22 prompt · 7 completion tokens"])
        assert [u.text for u in _of(win, UserMessageBlock)] == ["Capital of France?"]
    finally:
        second.close()


def test_edit_and_regenerate_keep_each_others_versions_across_switches_and_a_restart(qtbot, qloop, tmp_path):
    path = tmp_path / "switchboard.db"
    answers = [("a1", 1, 1), ("a1 again", 2, 2), ("b1", 3, 3), ("b1 again", 4, 4)]
    first = _session(qtbot, qloop, path, answers)
    try:
        win = first.win
        _send(qtbot, win, "q")
        _regenerate(qtbot, win)  # the answer: a1, a1 again
        _wait_rows(qtbot, win, ["2/2"])
        _edit(qtbot, win, _of(win, UserMessageBlock)[0], "q edited")  # the prompt: q, q edited
        assert _answers(win) == ["b1"]
        qtbot.waitUntil(lambda: _of(win, UserMessageBlock)[0].version_label.text() == "2/2", timeout=3000)
        assert _switchers(win) == []  # the edited prompt's answer has one version so far
        _regenerate(qtbot, win)  # its answer: b1, b1 again
        _wait_rows(qtbot, win, ["2/2"])
        [prompt] = _of(win, UserMessageBlock)
        assert prompt.text == "q edited" and prompt.version_label.text() == "2/2"
        assert _answers(win) == ["b1 again"] and _footers_are(qtbot, win, ["4 prompt · 4 completion tokens"])

        _click(qtbot, win, prompt.previous_version_button)  # the first prompt, with its regenerated answer
        [prompt] = _of(win, UserMessageBlock)
        assert (prompt.text, prompt.version_label.text()) == ("q", "1/2")
        assert _answers(win) == ["a1 again"] and _switchers(win) == ["2/2"]
        _click(qtbot, win, _rows(win)[0].previous_version_button)
        assert (
            _answers(win) == ["a1"]
            and _switchers(win) == ["1/2"]
            and _footers_are(qtbot, win, ["1 prompt · 1 completion tokens"])
        )
        assert _of(win, UserMessageBlock)[0].version_label.text() == "1/2"
        conversation = win.controller.conversation_id
    finally:
        first.close()

    second = _session(qtbot, qloop, path, [])
    try:
        win = second.win
        win.open_conversation(conversation)
        [prompt] = _of(win, UserMessageBlock)
        assert (prompt.text, prompt.version_label.text()) == ("q", "1/2")
        assert _answers(win) == ["a1"] and _switchers(win) == ["1/2"]
        _click(qtbot, win, prompt.next_version_button)  # the edited prompt: its answer as it was left
        [prompt] = _of(win, UserMessageBlock)
        assert (prompt.text, prompt.version_label.text()) == ("q edited", "2/2")
        assert _answers(win) == ["b1 again"] and _switchers(win) == ["2/2"]
        _click(qtbot, win, _rows(win)[0].previous_version_button)
        assert _answers(win) == ["b1"] and _footers_are(qtbot, win, ["3 prompt · 3 completion tokens"])
        assert [m.role for m in second.store.messages(conversation)] == ["user", "assistant"]
    finally:
        second.close()


def test_after_a_failed_regenerate_the_old_answer_can_be_brought_back(qtbot, qloop, tmp_path):
    session = _Provided(qtbot, qloop, tmp_path / "switchboard.db", [("Paris.", 11, 3)])
    session.provider.responses.append([ProviderHTTPError(400, "bad request")])
    try:
        win = session.win
        _send(qtbot, win, "Capital of France?")
        _regenerate(qtbot, win)  # fails before any answer: no answer part for the switcher to sit on
        assert _answers(win) == [] and win.view.retry_run_row is not None
        _wait_rows(qtbot, win, ["2/2"])
        _click(qtbot, win, _rows(win)[0].previous_version_button)
        assert _answers(win) == ["Paris."] and _switchers(win) == ["1/2"]
        assert _footers_are(qtbot, win, ["11 prompt · 3 completion tokens"])
    finally:
        session.close()


def test_a_regenerated_answer_behind_show_earlier_gets_its_switcher(qtbot, qloop, tmp_path):
    path = tmp_path / "switchboard.db"
    answers = [("a1", 1, 1), ("a1 again", 2, 2), *[(f"a{n}", 1, 1) for n in range(2, 15)]]
    first = _session(qtbot, qloop, path, answers)
    try:
        _send(qtbot, first.win, "q1")
        _regenerate(qtbot, first.win)
        for n in range(2, 15):
            _send(qtbot, first.win, f"q{n}")
        conversation = first.win.controller.conversation_id
        assert len(first.store.messages(conversation)) == 28 > REPLAY_WINDOW
    finally:
        first.close()

    second = _session(qtbot, qloop, path, [])
    try:
        win = second.win
        win.open_conversation(conversation)
        assert "q1" not in [u.text for u in _of(win, UserMessageBlock)] and _switchers(win) == []
        _click(qtbot, win, win.view.earlier_line.button)  # the whole conversation, rebuilt from the store
        assert _answers(win)[0] == "a1 again" and _switchers(win) == ["2/2"]
        _click(qtbot, win, _rows(win)[0].previous_version_button)  # what followed the answer goes with it, as
        assert _answers(win) == ["a1"] and _switchers(win) == ["1/2"]  # after an edit
        _click(qtbot, win, _rows(win)[0].next_version_button)
        assert _answers(win)[-1] == "a14" and len(second.store.messages(conversation)) == 28  # all back (windowed)
    finally:
        second.close()
