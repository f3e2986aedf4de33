"""Keyboard and window: Ctrl+F finds in the conversation (next/previous, highlighting, Esc closes),
Ctrl+Shift+C copies the last answer, the window's geometry, docks and maximised state come back after a
restart, and the title names the conversation."""

from __future__ import annotations

from PySide6.QtCore import QSize, Qt
from PySide6.QtGui import QGuiApplication, QKeySequence
from PySide6.QtWidgets import QLabel

from desktop_app.ui.window.main_window import MainWindow
from tests.support.fake_runtime import Content


def _send(qtbot, win: MainWindow, prompt: str) -> None:
    win.composer.edit.setPlainText(prompt)
    qtbot.mouseClick(win.composer.button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not win.controller.busy, timeout=5000)


def _highlighted(widget) -> list[str]:
    if isinstance(widget, QLabel):
        return [widget.selectedText()] if widget.hasSelectedText() else []
    return [s.cursor.selectedText() for s in widget.extraSelections()]


def test_find_in_the_conversation_with_next_previous_and_highlighting(qtbot, window, fake_runtime):
    fake_runtime.script(Content("The **Louvre** is big.\n\n```text\nlouvre tickets\n```\n\nSee the Louvre."))
    _send(qtbot, window, "Tell me about the louvre")
    qtbot.keySequence(window, QKeySequence("Ctrl+F"))  # the menu action's shortcut
    bar = window.find_bar
    assert bar.isVisible() and bar.query.hasFocus()
    qtbot.keyClicks(bar.query, "louvre")
    # the user's message, the prose (twice) and the code block
    assert len(bar.matches) == 4 and bar.count.text() == "1 of 4"
    assert isinstance(bar.current_match.widget, QLabel)  # the first match: in "Tell me about the louvre"
    prose = [m.widget for m in bar.matches if not isinstance(m.widget, QLabel)]
    assert all(_highlighted(w) for w in prose)  # every match highlighted
    qtbot.keyClick(bar.query, Qt.Key.Key_Return)
    assert bar.count.text() == "2 of 4" and bar.current_match.widget.objectName() == "markdownProse"
    qtbot.mouseClick(bar.next_button, Qt.MouseButton.LeftButton)
    assert bar.count.text() == "3 of 4" and bar.current_match.widget.objectName() == "codeText"
    qtbot.keyClick(bar.query, Qt.Key.Key_Return)
    assert bar.count.text() == "4 of 4"
    qtbot.keyClick(bar.query, Qt.Key.Key_Return, Qt.KeyboardModifier.ShiftModifier)  # previous
    assert bar.count.text() == "3 of 4"
    bar.query.setText("no such words")
    assert bar.count.text() == "No matches"
    bar.query.setText("louvre")
    qtbot.keyClick(window, Qt.Key.Key_Escape)  # no run: Esc closes the bar and its highlighting
    assert not bar.isVisible()
    assert not any(_highlighted(w) for w in prose)


def test_ctrl_shift_c_copies_the_last_answer_as_markdown(qtbot, window, fake_runtime):
    fake_runtime.script(Content("First."))
    fake_runtime.script(Content("## Second\n\n- **bold** item"))
    _send(qtbot, window, "one")
    _send(qtbot, window, "two")
    QGuiApplication.clipboard().clear()
    qtbot.keySequence(window, QKeySequence("Ctrl+Shift+C"))
    assert QGuiApplication.clipboard().text() == "## Second\n\n- **bold** item"


def test_geometry_docks_and_maximised_state_survive_a_restart(qtbot, qloop, tmp_path):
    path = tmp_path / "window.ini"
    first = MainWindow()
    qtbot.addWidget(first)
    first.restore_state(path)  # nothing stored yet: the defaults
    first.resize(701, 533)
    first.show()
    first.servers_dock.hide()
    first.save_state()
    second = MainWindow()
    qtbot.addWidget(second)
    assert second.restore_state(path)
    second.show()
    assert second.size() == QSize(701, 533)
    assert second.servers_dock.isHidden()
    second.showMaximized()
    qtbot.waitUntil(second.isMaximized, timeout=2000)
    second.close()  # closing saves
    third = MainWindow()
    qtbot.addWidget(third)
    third.restore_state(path)
    third.show()
    assert third.isMaximized()


def test_a_window_built_after_its_first_paint_gets_its_docks_and_layout_back(qtbot, qloop, tmp_path):
    """The app's order: the shell (geometry restored) is shown first, the hidden docks are built after the
    first paint, and only then is the dock layout restored; the result is the one a window built whole and
    restored before it is shown gets."""
    path = tmp_path / "window.ini"
    first = MainWindow()
    qtbot.addWidget(first)
    first.show()
    first.servers_dock.show()
    first.conversations_dock.hide()
    first.resize(first.minimumSizeHint().width() + 40, 544)
    qtbot.waitUntil(lambda: first.height() == 544, timeout=2000)
    first.state_path = path
    first.save_state()
    whole = MainWindow()
    qtbot.addWidget(whole)
    whole.restore_state(path)
    whole.show()
    deferred = MainWindow(defer_rest=True)
    qtbot.addWidget(deferred)
    assert not hasattr(deferred, "servers_dock") and not deferred.rest_built
    assert deferred.restore_geometry(path)
    deferred.show()
    deferred.build_rest()
    assert deferred.restore_state(path)
    assert deferred.servers_dock.isVisible() and whole.servers_dock.isVisible()
    assert deferred.conversations_dock.isHidden() and whole.conversations_dock.isHidden()
    assert deferred.size() == whole.size()
    assert deferred.size().height() == 544


def test_the_title_names_the_conversation(qtbot, window, fake_runtime):
    assert window.windowTitle() == "Switchboard"
    window.show_title("Trip to Paris")
    assert window.windowTitle() == "Trip to Paris — Switchboard"
    window.new_chat_action.trigger()
    assert window.windowTitle() == "Switchboard"


def test_every_message_copies_as_markdown_or_plain_text(qtbot, window, fake_runtime):
    from desktop_app.ui.chat.blocks import AnswerBlock, UserMessageBlock

    fake_runtime.script(Content("## Plan\n\n- **one** step"))
    _send(qtbot, window, "make a plan")
    [answer] = [b for b in window.view.blocks() if isinstance(b, AnswerBlock)]
    [question] = [b for b in window.view.blocks() if isinstance(b, UserMessageBlock)]
    qtbot.mouseClick(answer.actions_row.copy_button, Qt.MouseButton.LeftButton)
    assert QGuiApplication.clipboard().text() == "## Plan\n\n- **one** step"
    answer.actions_row.copy_plain_action.trigger()
    assert QGuiApplication.clipboard().text() == "Plan\none step"
    question.actions_row.copy_markdown_action.trigger()
    assert QGuiApplication.clipboard().text() == "make a plan"


def test_the_composer_holds_the_provider_and_model_picker(qtbot, window, fake_runtime):
    picker = window.composer.model_button
    assert window.composer.field.isAncestorOf(picker)  # inside the one rounded field
    settings = fake_runtime.provider_settings
    assert picker.text() == settings.model  # the dialect is in the tooltip: the name fits the row whole
    assert f"{settings.model} · {settings.dialect}" in picker.toolTip()
    labels = [a.text() for a in picker.menu().actions() if a.text()]
    assert labels[0] == f"Default: {settings.model} · {settings.dialect}" and labels[-1] == "Provider settings…"
    assert picker.menu().actions()[0].isChecked()
