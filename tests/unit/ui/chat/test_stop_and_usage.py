"""Stop keeps the partial answer (marked stopped); the usage footer shows tokens and the cache-hit rate."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from desktop_app.runtime import events as ev
from desktop_app.runtime.service import Runtime
from desktop_app.runtime.settings import ProviderSettings, Settings
from desktop_app.ui.chat.blocks import AnswerBlock, NoticeLine, UsageFooter, cache_hit_rate
from desktop_app.ui.window.main_window import MainWindow
from tests.support.fakes import FakeHost
from tests.support.llm_server import DONE, Gate, Reply, chunk, usage_frame


def _usage(**kw: int) -> ev.TokenUsage:
    return ev.TokenUsage(**kw)


def test_footer_shows_tokens_and_cache_hit_rate(qtbot) -> None:
    footer = UsageFooter()
    qtbot.addWidget(footer)
    footer.add(_usage(prompt_tokens=1000, completion_tokens=20))
    assert footer.text() == "1.0k prompt · 20 completion tokens"  # no cache reported: no rate
    footer.add(_usage(prompt_tokens=1000, completion_tokens=30, cache_hit_tokens=900, cache_miss_tokens=100))
    assert footer.text() == "2.0k prompt · 50 completion tokens · cache hit 90 %"
    assert "900 prompt tokens" in footer.toolTip()


@pytest.mark.parametrize(
    ("totals", "rate"),
    [
        ({"prompt_tokens": 100, "cache_hit_tokens": 25, "cache_miss_tokens": 75}, 25.0),
        ({"prompt_tokens": 200, "cache_hit_tokens": 50, "cache_miss_tokens": 0}, 25.0),  # hit / prompt
        ({"prompt_tokens": 200, "cache_hit_tokens": 0, "cache_miss_tokens": 200}, 0.0),
        ({"prompt_tokens": 200}, None),
    ],
)
def test_cache_hit_rate(totals: dict[str, int], rate: float | None) -> None:
    assert cache_hit_rate(totals) == rate


def test_footer_from_the_loopback_stream_with_deepseek_cache_counts(qtbot, qloop, llm_server) -> None:
    llm_server.enqueue(
        Reply(steps=[chunk(content="Hi"), chunk(finish_reason="stop"), usage_frame(400, 7, hit=300, miss=100), DONE])
    )
    settings = Settings(provider=ProviderSettings(base_url=llm_server.url, model="test-model", dialect="deepseek"))
    runtime = Runtime(settings=settings, host=FakeHost(), api_key_override="k")
    win = MainWindow()
    qtbot.addWidget(win)
    win.attach_runtime(runtime)
    try:
        win.composer.edit.setPlainText("hi")
        qtbot.mouseClick(win.composer.button, Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda: not win.controller.busy, timeout=5000)
        [footer] = [b for b in win.view.blocks() if isinstance(b, UsageFooter)]
        assert footer.text() == (
            "400 prompt · 7 completion tokens · cache hit 75 %\n"
            "Conversation: 400 prompt · 7 completion tokens · cache hit 75 %"  # no known price: tokens only
        )
    finally:
        task = qloop.create_task(runtime.aclose())
        qtbot.waitUntil(task.done)


@pytest.mark.parametrize("how", ["escape", "button"])
def test_stop_keeps_the_partial_answer_marked_stopped(qtbot, qloop, llm_server, how: str) -> None:
    gate = Gate()  # the stream stays open after the first words until the test opens it (it never does)
    llm_server.enqueue(Reply(steps=[chunk(content="The first "), chunk(content="words"), gate, DONE]))
    settings = Settings(provider=ProviderSettings(base_url=llm_server.url, model="test-model"))
    runtime = Runtime(settings=settings, host=FakeHost(), api_key_override="k")
    win = MainWindow()
    qtbot.addWidget(win)
    win.attach_runtime(runtime)
    win.show()
    qtbot.waitExposed(win)
    try:
        win.composer.edit.setPlainText("tell me")
        qtbot.mouseClick(win.composer.button, Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda: win.view.answer is not None and win.view.answer.text == "The first words")
        assert win.composer.button.text() == "Stop"

        if how == "escape":
            win.activateWindow()
            qtbot.keyClick(win.composer.edit, Qt.Key.Key_Escape)
        else:
            qtbot.mouseClick(win.composer.button, Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda: not win.controller.busy, timeout=5000)

        [answer] = [b for b in win.view.blocks() if isinstance(b, AnswerBlock)]
        assert answer.text == "The first words" and answer.stopped and answer.finished
        assert "stopped" in answer.accessibleName()
        notes = [b for b in win.view.blocks() if isinstance(b, NoticeLine)]
        assert [n.kind for n in notes] == ["stopped"]
        assert notes[0].text().startswith("■ Stopped — the partial answer above is kept")
        assert runtime.conversation(win.controller.conversation_id).messages[-1].content == "The first words"
    finally:
        gate.open()
        task = qloop.create_task(runtime.aclose())
        qtbot.waitUntil(task.done)


def test_footer_shows_the_conversation_totals_and_estimated_cost(qtbot) -> None:
    from desktop_app.runtime import events as ev
    from desktop_app.runtime.usage import summarize

    footer = UsageFooter()
    qtbot.addWidget(footer)
    footer.add(ev.TokenUsage(prompt_tokens=1200, completion_tokens=80, cache_hit_tokens=1000, cache_miss_tokens=200))
    totals = ev.TokenUsage(prompt_tokens=52_000, completion_tokens=3_000, cache_hit_tokens=48_000,
                           cache_miss_tokens=4_000)  # fmt: skip
    footer.set_conversation(summarize(totals, "https://api.deepseek.com", "deepseek-chat"))
    turn, conversation = footer.text().split("\n")
    assert turn == "1.2k prompt · 80 completion tokens · cache hit 83 %"
    assert conversation == "Conversation: 52.0k prompt · 3.0k completion tokens · cache hit 92 % · ≈ $0.0037"
