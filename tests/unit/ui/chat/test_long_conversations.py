"""A long stored conversation opens on its latest turns at once ("Show earlier" brings the rest), and the
next run still sends the model the whole history (real Runtime, real Store; the history is read lazily)."""

from __future__ import annotations

import pytest

from desktop_app.runtime.messages import AssistantMessage, UserMessage
from desktop_app.runtime.service import Runtime
from desktop_app.runtime.settings import ProviderSettings, Settings
from desktop_app.runtime.store import Store, attach_store
from desktop_app.ui.chat.blocks import AnswerBlock, UserMessageBlock
from desktop_app.ui.chat.replay import REPLAY_WINDOW, read_transcript
from desktop_app.ui.window.main_window import MainWindow
from tests.support.fakes import FakeHost, FakeProvider, answer

CID = "long"
MESSAGES = 300  # 150 turns


def _fill(store: Store, messages: int = MESSAGES) -> None:
    with store.transaction():
        store.create_conversation(CID, title="Long", model="m", base_url="http://127.0.0.1:9/v1")
        for position in range(messages):
            role = "user" if position % 2 == 0 else "assistant"
            run_id = f"r{position // 2}"
            if role == "user":
                store.start_run(run_id, CID)
                store.set_run_status(run_id, "finished", ended=True, reason="end_turn")
            message = store.add_message(CID, role, run_id=run_id, status="complete")
            store.add_part(message, "text", f"{role} {position // 2}", index=True)


@pytest.fixture
def store(tmp_path):
    db = Store.open(tmp_path / "switchboard.db")
    _fill(db)
    yield db
    db.close()


def _of(win: MainWindow, cls: type) -> list:
    return [b for b in win.view.blocks() if isinstance(b, cls)]


def test_the_transcript_window_starts_at_a_turn_and_counts_what_it_leaves_out(store):
    transcript = read_transcript(store, CID)
    assert len(transcript.messages) == REPLAY_WINDOW and transcript.messages[0].role == "user"
    assert transcript.earlier == MESSAGES - REPLAY_WINDOW
    assert transcript.messages[-1].text_of("text") == f"assistant {MESSAGES // 2 - 1}"
    bigger = transcript.more() if transcript.more else None
    assert bigger is not None and len(bigger.messages) == 4 * REPLAY_WINDOW
    assert bigger.earlier == MESSAGES - 4 * REPLAY_WINDOW
    whole = read_transcript(store, CID, None)
    assert len(whole.messages) == MESSAGES and whole.earlier == 0 and whole.more is None


def test_a_long_conversation_opens_on_its_latest_turns_and_the_model_gets_all_of_it(qtbot, qloop, store):
    loads: list[int] = []
    original = store.load_messages

    def counting_load(conversation_id: str, **kwargs):
        loads.append(1)
        return original(conversation_id, **kwargs)

    store.load_messages = counting_load  # type: ignore[method-assign]
    provider = FakeProvider([answer("Still here.")])
    settings = Settings(provider=ProviderSettings(base_url="http://127.0.0.1:9/v1", model="m"))
    runtime = Runtime(
        settings=settings, host=FakeHost(), provider_factory=lambda _s, _k: provider, api_key_override="k"
    )
    recorder = attach_store(runtime, store)
    win = MainWindow()
    qtbot.addWidget(win)
    win.attach_runtime(runtime)
    win.attach_store(store)
    win.show()
    qtbot.waitExposed(win)
    try:
        win.open_conversation(CID)
        users = [u.text for u in _of(win, UserMessageBlock)]
        assert users == [f"user {n}" for n in range(MESSAGES // 2 - REPLAY_WINDOW // 2, MESSAGES // 2)]
        line = win.view.earlier_line
        assert line is not None and line.label.text() == f"{MESSAGES - REPLAY_WINDOW:,} earlier messages are not shown."
        assert loads == []  # the whole history is not read to show the window

        line.button.click()
        assert len(_of(win, UserMessageBlock)) == 4 * REPLAY_WINDOW // 2
        assert win.view.earlier_line is not None and win.view.earlier_line.hidden == MESSAGES - 4 * REPLAY_WINDOW

        win.composer.edit.setPlainText("one more")
        win.composer.button.click()
        qtbot.waitUntil(lambda: not win.controller.busy and bool(provider.requests))
        qtbot.waitUntil(lambda: _of(win, AnswerBlock)[-1].text == "Still here.")
        sent = provider.requests[0].messages
        assert len(sent) == MESSAGES + 1 and loads == [1]
        assert isinstance(sent[0], UserMessage) and sent[0].content == "user 0"
        assert isinstance(sent[-2], AssistantMessage) and sent[-1].content.startswith("one more")
    finally:
        task = qloop.create_task(runtime.aclose())
        qtbot.waitUntil(task.done)
        recorder.close()
