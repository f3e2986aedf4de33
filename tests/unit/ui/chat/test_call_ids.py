"""A model that reuses ``call_0`` (in a later turn and twice in one response) still gets one card per call,
each with its own approval and result, its text in its own block, and the same after reopening (real Runtime,
real Store)."""

from __future__ import annotations

from desktop_app.runtime.service import Runtime
from desktop_app.runtime.settings import ProviderSettings, Settings
from desktop_app.runtime.store import Store, attach_store
from desktop_app.ui.chat.blocks import AnswerBlock
from desktop_app.ui.chat.replay import read_transcript
from desktop_app.ui.chat.tool_card import ToolCard
from desktop_app.ui.chat.view import ChatView
from desktop_app.ui.window.main_window import MainWindow
from tests.support.fakes import FakeHost, FakeProvider, answer, calls


def _of(view: ChatView, cls: type) -> list:  # type: ignore[type-arg]
    return [b for b in view.blocks() if isinstance(b, cls)]


def _wait(qtbot, loop, coro) -> None:
    task = loop.create_task(coro)
    qtbot.waitUntil(task.done)
    task.result()


def test_reused_call_ids_get_their_own_cards_live_and_after_reopening(qtbot, qloop, tmp_path):
    provider = FakeProvider(
        [
            calls(("call_0", "mcp__fake__echo", '{"x": 1}')),
            answer("First."),
            calls(("call_0", "mcp__fake__echo", '{"x": 2}'), ("call_0", "mcp__fake__echo", '{"x": 3}')),
            answer("Second."),
        ]
    )
    host = FakeHost(handlers={"echo": lambda a: f"echo {a['x']}"})
    settings = Settings(provider=ProviderSettings(base_url="http://127.0.0.1:9/v1", model="m"))
    runtime = Runtime(settings=settings, host=host, provider_factory=lambda _s, _k: provider, api_key_override="k")
    store = Store.open(tmp_path / "switchboard.db")
    recorder = attach_store(runtime, store)
    win = MainWindow()
    qtbot.addWidget(win)
    win.attach_runtime(runtime)
    win.attach_store(store)
    win.show()
    qtbot.waitExposed(win)
    try:
        for prompt, expected in (("one", 1), ("two and three", 3)):
            win.composer.edit.setPlainText(prompt)
            win.composer.button.click()
            for _ in range(expected - len([c for c in win.view.cards.values() if c.has_result])):
                qtbot.waitUntil(lambda: any(c.pending for c in win.view.cards.values()))
                next(c for c in win.view.cards.values() if c.pending).approve_button.click()
            qtbot.waitUntil(lambda: not win.controller.busy)

        cards = _of(win.view, ToolCard)
        assert len(cards) == 3 and len(win.view.cards) == 3
        assert [c.result.text() for c in cards] == ["echo 1", "echo 2", "echo 3"]
        assert all(c.status.text() == "Approved" for c in cards)
        assert [a.text for a in _of(win.view, AnswerBlock)] == ["First.", "Second."]

        conversation = win.controller.conversation_id
        view = ChatView()
        qtbot.addWidget(view)
        view.load_transcript(read_transcript(store, conversation))
        replayed = _of(view, ToolCard)
        assert [c.result.text() for c in replayed] == ["echo 1", "echo 2", "echo 3"]
        assert [c.args.original for c in replayed] == [{"x": 1}, {"x": 2}, {"x": 3}]
        assert [a.text for a in _of(view, AnswerBlock)] == ["First.", "Second."]
    finally:
        _wait(qtbot, qloop, runtime.aclose())
        recorder.close()
        store.close()
