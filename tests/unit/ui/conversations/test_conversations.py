"""The conversation list: newest first, search (title and content), rename, delete with undo, export, and
reopening a stored conversation in the window (with the fake runtime and a real store in a tmp folder)."""

from __future__ import annotations

import itertools
import json

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QAbstractItemView, QLineEdit

from desktop_app.runtime.store import Store, attach_store
from desktop_app.ui.chat.blocks import AnswerBlock, NoticeLine, UserMessageBlock
from desktop_app.ui.conversations.panel import ID_ROLE, UNTITLED, ConversationList
from desktop_app.ui.window.main_window import MainWindow
from tests.support.fake_runtime import Content, FakeRuntime


@pytest.fixture
def store(tmp_path):
    ticks = itertools.count(1_700_000_000, 60)
    db = Store.open(tmp_path / "switchboard.db", clock=lambda: float(next(ticks)))
    yield db
    db.close()


def _conversation(store: Store, title: str, prompt: str, answer: str, *, model: str = "old-model") -> str:
    cid = store.create_conversation(title=title, base_url="http://old.example/v1", model=model)
    user = store.add_message(cid, "user", run_id=None, status="complete")
    store.add_part(user, "text", prompt, index=True)
    reply = store.add_message(cid, "assistant", run_id=None, status="complete")
    store.add_part(reply, "text", answer, index=True)
    store.touch(cid)
    return cid


@pytest.fixture
def three(store):
    a = _conversation(store, "Paris trip", "Plan a weekend in Paris", "Visit the **Louvre** and walk the Seine.")
    b = _conversation(store, "Sourdough", "How do I feed a starter?", "Use flour and water, equal weights.")
    c = _conversation(store, "", "untitled prompt", "An answer about kangaroos.")
    return a, b, c


def _panel(qtbot, store: Store) -> ConversationList:
    panel = ConversationList()
    qtbot.addWidget(panel)
    panel.set_store(store)
    panel.show()
    return panel


def _texts(panel: ConversationList) -> list[str]:
    """The conversations' titles, top to bottom (not the group headers)."""
    items = (panel.list.item(i) for i in range(panel.list.count()))
    return [item.text() for item in items if item.data(ID_ROLE)]


def _groups(panel: ConversationList) -> list[str]:
    items = (panel.list.item(i) for i in range(panel.list.count()))
    return [item.text() for item in items if not item.data(ID_ROLE)]


def test_newest_first_with_titles_and_provider_tooltips(qtbot, store, three):
    a, b, c = three
    panel = _panel(qtbot, store)
    assert panel.conversation_ids() == [c, b, a]
    assert _texts(panel) == [UNTITLED, "Sourdough", "Paris trip"]
    assert panel.item_for(c).font().italic()
    tip = panel.item_for(a).toolTip()
    assert tip.startswith("Paris trip\nold-model at http://old.example/v1\nLast activity ")
    assert panel.empty_label.isHidden()


def test_search_filters_by_title_and_by_content_with_snippets(qtbot, store, three):
    a, b, c = three
    panel = _panel(qtbot, store)
    panel.search.setText("sour")  # title (and, as a prefix, nothing else)
    assert panel.conversation_ids() == [b]
    panel.search.setText("louvre")  # content only: the FTS index
    assert panel.conversation_ids() == [a]
    assert "[Louvre]" in panel.item_for(a).toolTip()
    panel.search.setText("kangaroos")
    assert panel.conversation_ids() == [c]
    panel.search.setText("nothing like this")
    assert panel.conversation_ids() == [] and panel.empty_label.text() == "No conversation matches."
    panel.search.clear()
    assert panel.conversation_ids() == [c, b, a]


def test_the_empty_note_is_centred_inside_the_list(qtbot, store):
    panel = _panel(qtbot, store)
    panel.resize(250, 500)
    qtbot.waitExposed(panel)
    note, viewport = panel.empty_label, panel.list.viewport()
    assert panel.conversation_ids() == [] and note.isVisible() and note.text() == "No conversations yet."
    assert note.parent() is viewport and note.geometry() == viewport.rect()
    assert note.alignment() & Qt.AlignmentFlag.AlignCenter == Qt.AlignmentFlag.AlignCenter
    panel.resize(300, 600)
    qtbot.waitUntil(lambda: note.geometry() == viewport.rect() and viewport.height() > 400)
    _conversation(store, "First", "a prompt", "an answer")
    panel.refresh()
    assert note.isHidden() and len(panel.conversation_ids()) == 1


def test_rename_inline_with_f2(qtbot, store, three):
    a, _b, _c = three
    panel = _panel(qtbot, store)
    panel.list.setCurrentItem(panel.item_for(a))
    panel.list.setFocus()
    qtbot.keyClick(panel.list, Qt.Key.Key_F2)
    assert panel.list.state() == QAbstractItemView.State.EditingState
    editor = panel.list.findChild(QLineEdit)
    assert editor is not None and editor.text() == "Paris trip"
    editor.selectAll()
    qtbot.keyClicks(editor, "Weekend in Paris")
    qtbot.keyClick(editor, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: store.get_conversation(a).title == "Weekend in Paris")
    qtbot.waitUntil(lambda: panel.item_for(a) is not None and panel.item_for(a).text() == "Weekend in Paris")


def test_an_empty_new_title_keeps_the_old_one(qtbot, store, three):
    a, _b, _c = three
    panel = _panel(qtbot, store)
    panel.rename(a, "   ")
    assert store.get_conversation(a).title == "Paris trip" and panel.item_for(a).text() == "Paris trip"


def test_delete_then_undo_restores(qtbot, store, three):
    a, b, c = three
    panel = _panel(qtbot, store)
    with qtbot.waitSignal(panel.conversation_deleted) as deleted:
        panel.list.setCurrentItem(panel.item_for(b))
        panel.list.setFocus()
        qtbot.keyClick(panel.list, Qt.Key.Key_Delete)
    assert deleted.args == [b]
    assert panel.conversation_ids() == [c, a]
    assert store.get_conversation(b).deleted and not panel.undo_bar.isHidden()
    assert panel.undo_label.text() == "Conversation deleted" and panel.undo_timer.isActive()
    panel.delete(a)
    assert panel.undo_label.text() == "2 conversations deleted"
    qtbot.mouseClick(panel.undo_button, Qt.MouseButton.LeftButton)
    assert panel.conversation_ids() == [c, b, a] and panel.undo_bar.isHidden()
    assert not store.get_conversation(a).deleted and not store.get_conversation(b).deleted


def test_undo_time_over_hides_the_bar_and_the_next_start_purges(qtbot, store, three):
    a, b, c = three
    panel = _panel(qtbot, store)
    panel.delete(b)
    panel.undo_timer.timeout.emit()  # the ten seconds are over (driven directly: no waiting)
    assert panel.undo_bar.isHidden() and panel.deleted == []
    assert store.get_conversation(b).deleted  # still there until the next start
    assert store.purge_deleted() == 1  # what the app does at start
    assert store.get_conversation(b) is None and panel.conversation_ids() == [c, a]


def test_export_markdown_and_json(qtbot, store, three, tmp_path):
    a, _b, _c = three
    panel = _panel(qtbot, store)
    with qtbot.waitSignal(panel.status_message) as status:
        md = panel.export_to(a, tmp_path / "paris.md")
    assert status.args == [f"Exported to {md}"]
    text = md.read_text(encoding="utf-8")
    assert text.startswith("# Paris trip") and "Visit the **Louvre**" in text
    data = json.loads(panel.export_to(a, tmp_path / "paris.json", "json").read_text(encoding="utf-8"))
    assert data["conversation"]["title"] == "Paris trip" and len(data["messages"]) == 2
    with qtbot.waitSignal(panel.error_occurred) as failed:
        assert panel.export_to(a, tmp_path / "missing" / "x.md") is None
    assert failed.args[0].startswith("Could not export the conversation")


def test_context_menu_offers_rename_exports_and_delete(qtbot, store, three):
    a, _b, _c = three
    panel = _panel(qtbot, store)
    menu = panel.context_menu(a)
    labels = [action.text() for action in menu.actions() if not action.isSeparator()]
    assert labels == [
        "&Rename conversation\tF2",
        "Export as &Markdown…",
        "Export as &JSON…",
        "&Delete conversation\tDel",
    ]
    menu.actions()[-1].trigger()
    assert store.get_conversation(a).deleted


def _window(qtbot, runtime: FakeRuntime, store: Store) -> MainWindow:
    win = MainWindow()
    qtbot.addWidget(win)
    win.attach_runtime(runtime)
    win.attach_store(store)
    win.show()
    qtbot.waitExposed(win)
    return win


def _of(win: MainWindow, cls: type) -> list:
    return [b for b in win.view.blocks() if isinstance(b, cls)]


def test_window_reopens_a_conversation_and_sending_continues_it(qtbot, qloop, store, three):
    a, _b, _c = three
    runtime = FakeRuntime()
    win = _window(qtbot, runtime, store)
    assert win.conversations_dock.isVisible() and win.conversations.conversation_ids()[-1] == a
    file_menu = {a.text(): a for a in win.menuBar().actions()[0].menu().actions()}
    assert file_menu["&Rename conversation"].isEnabled() and file_menu["&Rename conversation"].shortcut() == "F2"
    assert file_menu["Export as &JSON…"].isEnabled() and file_menu["&Delete conversation"].isEnabled()
    [view] = [a.menu() for a in win.menuBar().actions() if a.text() == "&View"]
    view_menu = {a.text(): a for a in view.actions()}
    assert view_menu["&Conversations"].isChecked()

    item = win.conversations.item_for(a)
    rect = win.conversations.list.visualItemRect(item)
    qtbot.mouseClick(win.conversations.list.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    assert win.controller.conversation_id == a
    assert [m.content for m in runtime.loaded[a]] == [
        "Plan a weekend in Paris",
        "Visit the **Louvre** and walk the Seine.",
    ]
    assert [u.text for u in _of(win, UserMessageBlock)] == ["Plan a weekend in Paris"]
    [answer] = _of(win, AnswerBlock)
    assert answer.finished and answer.toPlainText() == "Visit the Louvre and walk the Seine."  # rendered markdown
    notices = [n.text() for n in _of(win, NoticeLine)]
    assert notices == [
        "This conversation continues with old-model at http://old.example/v1, "
        "the provider it was started with (new chats use fake-model)."
    ]
    assert runtime.conversation_providers[a] == ("http://old.example/v1", "old-model")
    assert win.model_label.text().startswith("old-model")  # the status bar names the conversation's own model
    assert win.conversations.list.currentItem() is item

    runtime.script(Content("Also the Orsay."))
    win.composer.edit.setPlainText("More museums?")
    qtbot.mouseClick(win.composer.button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not win.controller.busy)
    assert runtime.emitted[0].conversation_id == a and runtime.prompts == ["More museums?"]
    assert _of(win, AnswerBlock)[-1].text == "Also the Orsay."

    qtbot.keyClick(win, Qt.Key.Key_N, Qt.KeyboardModifier.ControlModifier)  # Ctrl+N: a new chat
    assert win.controller.conversation_id != a and win.conversations.list.selectedItems() == []
    assert win.view.blocks() == [win.view.empty_hint]


def test_deleting_the_open_conversation_starts_a_new_chat(qtbot, qloop, store, three):
    a, _b, _c = three
    win = _window(qtbot, FakeRuntime(), store)
    win.open_conversation(a)
    assert _of(win, UserMessageBlock)
    win.conversations.delete(a)
    assert win.controller.conversation_id != a and win.view.blocks() == [win.view.empty_hint]
    win.conversations.undo_delete()
    assert a in win.conversations.conversation_ids()


def test_a_new_chat_appears_in_the_list_titled_by_its_first_prompt(qtbot, qloop, store, three):
    runtime = FakeRuntime()
    recorder = attach_store(runtime, store)  # subscribed before the window, as in the app
    win = _window(qtbot, runtime, store)
    runtime.script(Content("Hello!"))
    win.composer.edit.setPlainText("Say hello to the list")
    qtbot.mouseClick(win.composer.button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not win.controller.busy)
    recorder.close()
    cid = win.controller.conversation_id
    assert win.conversations.conversation_ids()[0] == cid
    item = win.conversations.item_for(cid)
    assert item.text() == "Say hello to the list" and win.conversations.list.currentItem() is item
    assert "fake-model at http://127.0.0.1:9/v1" in item.toolTip()
    win.open_conversation(cid)  # already shown: nothing is rebuilt
    assert _of(win, AnswerBlock)[-1].text == "Hello!"


def test_the_list_is_grouped_by_day_with_dates(qtbot, tmp_path):
    import time as _time

    from desktop_app.ui.conversations.groups import DATE_ROLE, group_of

    now = _time.time()
    day = 86_400
    stamps = iter([now - 40 * day, now - 4 * day, now - day, now - 60])
    db = Store.open(tmp_path / "grouped.db", clock=lambda: next(stamps))
    try:
        for title in ("Old", "Last week", "Yesterday's", "Today's"):
            db.create_conversation(title=title)
        panel = _panel(qtbot, db)
        assert _texts(panel) == ["Today's", "Yesterday's", "Last week", "Old"]
        old_group = group_of(now - 40 * day, now)
        assert _groups(panel) == ["Today", "Yesterday", "Previous 7 days", old_group]
        items = [panel.list.item(i) for i in range(panel.list.count())]
        assert all(not item.flags() & Qt.ItemFlag.ItemIsSelectable for item in items if not item.data(ID_ROLE))
        dates = [item.data(DATE_ROLE) for item in items if item.data(ID_ROLE)]
        assert dates[1] == "Yesterday" and ":" in dates[0] and dates[3][:2].isdigit()
    finally:
        db.close()


def test_a_search_hit_shows_its_snippet_and_opens_at_the_match(qtbot, qloop, store, three):
    from desktop_app.ui.conversations.groups import MARKS, SNIPPET_ROLE

    a, _b, _c = three
    win = _window(qtbot, FakeRuntime(), store)
    win.conversations.search.setText("walk")
    item = win.conversations.item_for(a)
    snippet = item.data(SNIPPET_ROLE)
    assert f"{MARKS[0]}walk{MARKS[1]}" in snippet  # drawn on a second line, the match in bold
    rect = win.conversations.list.visualItemRect(item)
    assert rect.height() > win.conversations.list.visualItemRect(win.conversations.list.item(0)).height()
    win.conversations.list.itemClicked.emit(item)
    assert win.controller.conversation_id == a
    bar = win.find_bar
    assert bar.isVisible() and bar.query.text() == "walk"
    assert bar.current_match is not None and bar.current_match.widget.objectName() == "markdownProse"
    assert "walk" in bar.current_match.widget.toPlainText()
