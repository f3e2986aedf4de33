"""A message's actions (Copy, Edit, Delete, Regenerate) show on hover and on keyboard focus, not always; no
action row sits between an answer's text and the tool card that follows it (real MainWindow and Runtime, the
store, a reopened conversation)."""

from __future__ import annotations

from PySide6.QtCore import QPoint, Qt
from PySide6.QtTest import QTest

from desktop_app.runtime.messages import ToolCallRequest
from desktop_app.runtime.providers.base import Completion, ContentChunk
from desktop_app.runtime.run.approvals import ApprovalPolicy
from desktop_app.runtime.service import Runtime
from desktop_app.runtime.settings import ProviderSettings, Settings
from desktop_app.runtime.store import Store, attach_store
from desktop_app.ui.chat.blocks import AnswerBlock, UserMessageBlock
from desktop_app.ui.chat.tool_card import ToolCard
from tests.support.fakes import FakeHost, FakeProvider, answer
from tests.unit.ui.chat.test_replay import _wait, _window


def _text_then_call() -> list:
    call = ToolCallRequest(id="c1", name="mcp__fake__echo", arguments='{"x": 1}')
    return [ContentChunk(text="Let me look."), Completion(content="Let me look.", tool_calls=(call,))]


def _runtime(provider: FakeProvider) -> Runtime:
    settings = Settings(provider=ProviderSettings(base_url="http://127.0.0.1:9/v1", model="m"))
    return Runtime(
        settings=settings,
        host=FakeHost(handlers={"echo": lambda a: f"echo {a['x']}"}),
        provider_factory=lambda _s, _k: provider,
        api_key_override="k",
        policy=ApprovalPolicy("always"),
    )


def _turn(win) -> list:
    return [b for b in win.view.blocks() if isinstance(b, UserMessageBlock | AnswerBlock | ToolCard)]


def _check_turn(qtbot, win) -> None:
    user, text, card, last = _turn(win)
    QTest.mouseMove(win.composer, QPoint(5, 5))  # the pointer away from the messages (an earlier test left it)
    win.composer.edit.setFocus(Qt.FocusReason.OtherFocusReason)
    assert isinstance(text, AnswerBlock) and isinstance(card, ToolCard) and isinstance(last, AnswerBlock)
    assert text.actions_row.isHidden()  # no Copy between "Let me look." and the card
    bottom = text.mapTo(win.view.column, QPoint(0, text.height())).y()
    assert bottom <= card.mapTo(win.view.column, QPoint(0, 0)).y()
    assert not last.actions_row.isHidden() and not user.actions_row.isHidden()  # there, but not shown yet
    for block in (user, last):
        qtbot.waitUntil(lambda block=block: not block.actions_row.revealed)
        assert block.actions_row.opacity.opacity() == 0.0


def _check_hover_and_focus(qtbot, win) -> None:
    user, _text, _card, last = _turn(win)
    win.activateWindow()
    for block in (last, user):
        actions = block.actions_row
        QTest.mouseMove(block, QPoint(block.width() // 2, 4))  # the pointer over the message
        qtbot.waitUntil(lambda actions=actions: actions.revealed)
        assert actions.opacity.opacity() == 1.0
        QTest.mouseMove(win.composer, QPoint(5, 5))  # and away
        qtbot.waitUntil(lambda actions=actions: not actions.revealed)
        assert actions.opacity.opacity() == 0.0
    last.actions_row.copy_button.setFocus(Qt.FocusReason.TabFocusReason)  # the keyboard reaches them
    qtbot.waitUntil(lambda: last.actions_row.opacity.opacity() == 1.0)
    win.composer.edit.setFocus(Qt.FocusReason.TabFocusReason)
    qtbot.waitUntil(lambda: last.actions_row.opacity.opacity() == 0.0)


def test_actions_show_on_hover_and_focus_and_never_between_text_and_a_card(qtbot, qloop, tmp_path):
    path = tmp_path / "switchboard.db"
    store1 = Store.open(path)
    runtime1 = _runtime(FakeProvider([_text_then_call(), answer("It echoed 1.")]))
    recorder1 = attach_store(runtime1, store1)
    win1 = _window(qtbot, runtime1, store1)
    win1.composer.edit.setPlainText("Echo 1")
    win1.composer.button.click()
    qtbot.waitUntil(lambda: not win1.controller.busy and len(_turn(win1)) == 4, timeout=5000)
    conversation = win1.controller.conversation_id
    try:
        _check_turn(qtbot, win1)
        _check_hover_and_focus(qtbot, win1)
    finally:
        win1.close()
        _wait(qtbot, qloop, runtime1.aclose())
        recorder1.close()
        store1.close()

    store2 = Store.open(path)
    runtime2 = _runtime(FakeProvider([]))
    recorder2 = attach_store(runtime2, store2)
    win2 = _window(qtbot, runtime2, store2)
    try:
        item = win2.conversations.item_for(conversation)
        assert item is not None
        win2.conversations.list.itemClicked.emit(item)
        qtbot.waitUntil(lambda: len(_turn(win2)) == 4)
        _check_turn(qtbot, win2)
    finally:
        _wait(qtbot, qloop, runtime2.aclose())
        recorder2.close()
        store2.close()
