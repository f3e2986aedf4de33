"""The working indicator through the loopback LLM server with a held first token: visible right after Send,
there as long as the model sends nothing, gone when the first token arrives (the real Runtime and window)."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from desktop_app.runtime.service import Runtime
from desktop_app.runtime.settings import ProviderSettings, Settings
from desktop_app.ui.chat.blocks import AnswerBlock
from desktop_app.ui.chat.working import WorkingLine
from desktop_app.ui.window.main_window import MainWindow
from tests.support.fakes import FakeHost
from tests.support.llm_server import Gate, Reply, text_reply


@pytest.mark.integration
def test_the_indicator_shows_from_send_to_the_first_token(qtbot, qloop, llm_server) -> None:
    gate = Gate()
    answer = text_reply("Here it is.")
    llm_server.enqueue(Reply(steps=[gate, *answer.steps]))
    settings = Settings(provider=ProviderSettings(base_url=llm_server.url, model="test-model"))
    runtime = Runtime(settings=settings, host=FakeHost(), api_key_override="k")
    win = MainWindow()
    qtbot.addWidget(win)
    win.attach_runtime(runtime)
    win.show()
    qtbot.waitExposed(win)
    try:
        win.composer.edit.setPlainText("hello?")
        qtbot.mouseClick(win.composer.button, Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda: win.view.working is not None and win.view.working.isVisible(), timeout=5000)
        assert not any(isinstance(b, AnswerBlock) for b in win.view.blocks())  # nothing came yet
        assert win.view.blocks()[-1] is win.view.working  # last in the transcript, under the prompt
        gate.open()  # the first token goes out
        qtbot.waitUntil(lambda: any(isinstance(b, AnswerBlock) for b in win.view.blocks()), timeout=5000)
        assert win.view.working is None
        assert not [b for b in win.view.blocks() if isinstance(b, WorkingLine) and b.isVisible()]
        qtbot.waitUntil(lambda: not win.controller.busy, timeout=5000)
    finally:
        gate.open()
        task = qloop.create_task(runtime.aclose())
        qtbot.waitUntil(task.done)
