"""Compaction in the window (#16), with the real Runtime and the store: "Compact now" puts the divider in front
of the turns kept verbatim and folds the older ones; Show original unfolds them; the Summary shows what the
model reads; Undo takes the divider away and the next request has the full history; after a restart the
divider, Show original and Undo work the same; a failed compaction says so in the chat and changes nothing."""

from __future__ import annotations

from PySide6.QtCore import Qt

from desktop_app.runtime.errors import ProviderHTTPError
from desktop_app.runtime.messages import UserMessage
from desktop_app.runtime.service import Runtime
from desktop_app.runtime.settings import ProviderSettings, Settings
from desktop_app.runtime.store import Store, attach_store
from desktop_app.ui.chat.blocks import AnswerBlock, UserMessageBlock
from desktop_app.ui.chat.compaction import CompactionDivider
from tests.support.fakes import FakeHost, FakeProvider, answer
from tests.unit.ui.chat.test_replay import _wait, _window

SUMMARY = "The user asked q0 and q1; both were answered."


def _runtime(provider: FakeProvider) -> Runtime:
    settings = Settings(provider=ProviderSettings(base_url="http://127.0.0.1:9/v1", model="m"), compact_keep_turns=2)
    return Runtime(settings=settings, host=FakeHost(), provider_factory=lambda _s, _k: provider, api_key_override="k")


def _visible(win, cls) -> list:
    return [b for b in win.view.blocks() if isinstance(b, cls) and not b.isHidden()]


def _send(qtbot, win, text: str) -> None:
    win.composer.edit.setPlainText(text)
    win.composer.button.click()
    qtbot.waitUntil(lambda: not win.controller.busy, timeout=5000)


def _divider(win) -> CompactionDivider | None:
    found = [b for b in win.view.blocks() if isinstance(b, CompactionDivider)]
    return found[0] if found else None


def test_compact_now_divider_show_original_undo_and_after_a_restart(qtbot, qloop, tmp_path):
    path = tmp_path / "switchboard.db"
    provider = FakeProvider([answer(f"a{n}") for n in range(4)])
    store1 = Store.open(path)
    runtime1 = _runtime(provider)
    recorder1 = attach_store(runtime1, store1)
    win1 = _window(qtbot, runtime1, store1)
    for n in range(4):
        _send(qtbot, win1, f"q{n}")
    provider.responses.append(answer(SUMMARY))
    win1.compaction.action.trigger()  # File → Compact conversation now
    qtbot.waitUntil(lambda: _divider(win1) is not None, timeout=5000)
    qtbot.waitUntil(lambda: not win1.composer.button.text().startswith("Stop"), timeout=5000)
    divider = _divider(win1)
    assert divider.label.text() == "Conversation compacted — 4 earlier messages summarised"
    assert [u.text for u in _visible(win1, UserMessageBlock)] == ["q2", "q3"]  # q0, q1 folded behind it
    blocks = win1.view.blocks()
    assert blocks.index(divider) < blocks.index(_visible(win1, UserMessageBlock)[0])
    qtbot.mouseClick(divider.original_button, Qt.MouseButton.LeftButton)
    assert [u.text for u in _visible(win1, UserMessageBlock)] == ["q0", "q1", "q2", "q3"]
    assert divider.original_button.text() == "Hide original"
    qtbot.mouseClick(divider.summary_button, Qt.MouseButton.LeftButton)
    assert divider.summary.isVisible() and divider.summary.text() == SUMMARY
    qtbot.mouseClick(divider.original_button, Qt.MouseButton.LeftButton)
    assert [u.text for u in _visible(win1, UserMessageBlock)] == ["q2", "q3"]
    cid = win1.controller.conversation_id
    win1.close()
    _wait(qtbot, qloop, runtime1.aclose())
    recorder1.close()
    store1.close()

    # A restart: the reopened conversation has its divider, Show original and Undo.
    store2 = Store.open(path)
    provider2 = FakeProvider([answer("a4")])
    runtime2 = _runtime(provider2)
    recorder2 = attach_store(runtime2, store2)
    win2 = _window(qtbot, runtime2, store2)
    try:
        win2.open_conversation(cid)
        divider = _divider(win2)
        assert divider is not None and divider.label.text().endswith("4 earlier messages summarised")
        assert [u.text for u in _visible(win2, UserMessageBlock)] == ["q2", "q3"]
        qtbot.mouseClick(divider.original_button, Qt.MouseButton.LeftButton)
        assert [a.text for a in _visible(win2, AnswerBlock)] == ["a0", "a1", "a2", "a3"]
        qtbot.mouseClick(divider.undo_button, Qt.MouseButton.LeftButton)
        assert _divider(win2) is None
        assert [u.text for u in _visible(win2, UserMessageBlock)] == ["q0", "q1", "q2", "q3"]
        assert "Compaction undone" in win2.status.text()
        _send(qtbot, win2, "q4")
        users = [m.content for m in provider2.requests[-1].messages if isinstance(m, UserMessage)]
        assert users == ["q0", "q1", "q2", "q3", "q4"]  # the next request has the full history again
        win2.open_conversation(cid)
        assert _divider(win2) is None
    finally:
        win2.close()
        _wait(qtbot, qloop, runtime2.aclose())
        recorder2.close()
        store2.close()


def test_a_failed_compaction_says_why_in_the_chat_and_changes_nothing(qtbot, qloop, tmp_path):
    provider = FakeProvider([answer(f"a{n}") for n in range(3)])
    store = Store.open(tmp_path / "switchboard.db")
    runtime = _runtime(provider)
    recorder = attach_store(runtime, store)
    win = _window(qtbot, runtime, store)
    try:
        for n in range(3):
            _send(qtbot, win, f"q{n}")
        provider.responses.append([ProviderHTTPError(503, '{"error": {"message": "overloaded"}}')])
        assert win.composer.context_meter.isVisible()
        qtbot.mouseClick(win.composer.context_meter, Qt.MouseButton.LeftButton)  # a click on ctx: Compact now
        qtbot.waitUntil(lambda: "Compaction failed" in win.status.text(), timeout=5000)
        errors = [b for b in win.view.blocks() if b.objectName() == "errorNotice"]
        assert errors and "could not be compacted" in errors[-1].text() and "left as it was" in errors[-1].text()
        assert _divider(win) is None and runtime.compactions(win.controller.conversation_id) == []
        assert [u.text for u in _visible(win, UserMessageBlock)] == ["q0", "q1", "q2"]
    finally:
        win.close()
        _wait(qtbot, qloop, runtime.aclose())
        recorder.close()
        store.close()


def test_stop_during_compact_now_leaves_the_conversation_as_it_was(qtbot, qloop, tmp_path):
    import asyncio

    provider = FakeProvider([answer(f"a{n}") for n in range(3)])
    store = Store.open(tmp_path / "switchboard.db")
    runtime = _runtime(provider)
    recorder = attach_store(runtime, store)
    win = _window(qtbot, runtime, store)
    try:
        for n in range(3):
            _send(qtbot, win, f"q{n}")
        provider.gate = asyncio.Event()  # the summary never comes
        provider.responses.append(answer("Never shown."))
        assert win.compaction.compact_now()
        qtbot.waitUntil(lambda: win.composer.button.text() == "Stop" and len(provider.requests) == 4, timeout=5000)
        qtbot.mouseClick(win.composer.button, Qt.MouseButton.LeftButton)  # Stop
        qtbot.waitUntil(lambda: win.status.text() == "Compaction stopped", timeout=5000)
        assert win.compaction.compacting is None and _divider(win) is None
        assert runtime.compactions(win.controller.conversation_id) == []
        assert [b.objectName() for b in win.view.blocks()][-1] == "stoppedNotice"
    finally:
        win.close()
        _wait(qtbot, qloop, runtime.aclose())
        recorder.close()
        store.close()


def test_an_automatic_compaction_mid_run_shows_its_divider_live(qtbot, qloop, tmp_path):
    long = "word " * 400  # ~500 tokens an answer
    provider = FakeProvider([answer(f"a{n} {long}") for n in range(3)])
    settings = Settings(provider=ProviderSettings(base_url="http://127.0.0.1:9/v1", model="m"), compact_keep_turns=1)
    runtime = Runtime(
        settings=settings, host=FakeHost(), provider_factory=lambda _s, _k: provider, api_key_override="k"
    )
    runtime.windows.remember("http://127.0.0.1:9/v1", {"m": 1_800})  # as if the endpoint's model list said so
    store = Store.open(tmp_path / "switchboard.db")
    recorder = attach_store(runtime, store)
    win = _window(qtbot, runtime, store)
    try:
        for n in range(3):
            _send(qtbot, win, f"q{n}")
        assert _divider(win) is None
        provider.responses += [answer("q0-q2 had long answers."), answer("a3")]
        _send(qtbot, win, "q3")  # its request would pass 80 % of the window: compacted first
        divider = _divider(win)
        assert divider is not None and divider.label.text().endswith("6 earlier messages summarised")
        assert [u.text for u in _visible(win, UserMessageBlock)] == ["q3"]
        assert [a.text for a in _visible(win, AnswerBlock)] == ["a3"]
        assert win.composer.context_meter.text().startswith("ctx ")
    finally:
        win.close()
        _wait(qtbot, qloop, runtime.aclose())
        recorder.close()
        store.close()
