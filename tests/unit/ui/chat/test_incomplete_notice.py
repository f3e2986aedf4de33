"""An answer cut at the token limit or stopped by the content filter says so under the answer, live (real
Runtime, loopback provider) and after reopening (real Store)."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from desktop_app.runtime import events as ev
from desktop_app.runtime.service import Runtime
from desktop_app.runtime.settings import ProviderSettings, Settings
from desktop_app.runtime.store import Recorder, Store
from desktop_app.ui.chat.blocks import AnswerBlock, NoticeLine
from desktop_app.ui.chat.replay import read_transcript
from desktop_app.ui.chat.view import ChatView
from desktop_app.ui.window.main_window import MainWindow
from tests.support.fakes import FakeHost
from tests.support.llm_server import DONE, Reply, chunk

FILTERED = "The provider's content filter stopped this answer; it is incomplete."
CUT = "The answer hit the model's token limit and may be cut short."


@pytest.mark.parametrize(("finish_reason", "notice"), [("content_filter", FILTERED), ("length", CUT)])
def test_the_answer_shows_why_it_is_incomplete(qtbot, qloop, llm_server, finish_reason: str, notice: str) -> None:
    llm_server.enqueue(Reply(steps=[chunk(content="Once upon"), chunk(finish_reason=finish_reason), DONE]))
    settings = Settings(provider=ProviderSettings(base_url=llm_server.url, model="test-model"))
    runtime = Runtime(settings=settings, host=FakeHost(), api_key_override="k")
    win = MainWindow()
    qtbot.addWidget(win)
    win.attach_runtime(runtime)
    try:
        win.composer.edit.setPlainText("tell me")
        qtbot.mouseClick(win.composer.button, Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda: not win.controller.busy, timeout=5000)
        blocks = win.view.blocks()
        [answer] = [b for b in blocks if isinstance(b, AnswerBlock)]
        notices = [b for b in blocks if isinstance(b, NoticeLine)]
        assert [n.text() for n in notices] == [notice]
        assert blocks.index(notices[0]) > blocks.index(answer)
    finally:
        task = qloop.create_task(runtime.aclose())
        qtbot.waitUntil(task.done)


def test_reopening_shows_the_notice_under_each_incomplete_answer(qtbot, tmp_path) -> None:
    store = Store.open(tmp_path / "switchboard.db")
    try:
        recorder = Recorder(store, use_timer=False)
        for run_id, reason in (("r1", "content_filter"), ("r2", "end_turn"), ("r3", "max_tokens")):
            recorder(ev.RunStarted(conversation_id="c", run_id=run_id, model="m", prompt=f"prompt {run_id}"))
            recorder(ev.ContentDelta(conversation_id="c", run_id=run_id, text=f"answer {run_id}"))
            recorder(ev.RunFinished(conversation_id="c", run_id=run_id, reason=reason, content=f"answer {run_id}"))
        recorder.close()
        view = ChatView()
        qtbot.addWidget(view)
        view.load_transcript(read_transcript(store, "c"))
    finally:
        store.close()
    notices = [b.text() for b in view.blocks() if isinstance(b, NoticeLine)]
    assert notices == [FILTERED, CUT]
