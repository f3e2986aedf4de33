"""Unfolding a finished tool card keeps it where it is on screen: the transcript, which follows the stream
while at the bottom, does not jump to the bottom and push the card just clicked off the top."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from desktop_app.ui.chat.view import ChatView


def _settle() -> None:
    for _ in range(5):  # the layout passes that follow a change
        QApplication.processEvents()


def test_a_card_unfolded_at_the_bottom_of_the_transcript_stays_in_place(qtbot):
    view = ChatView()
    qtbot.addWidget(view)
    view.resize(700, 420)
    view.show()
    qtbot.waitExposed(view)
    view.add_user_message("List the files")
    card = view.add_tool_card("t1", "fs", "list", {f"option_{n}": n for n in range(20)})  # tall arguments
    card.show_result("\n".join(f"file_{n}.txt" for n in range(30)), is_error=False)  # finished: folded
    bar = view.verticalScrollBar()
    while bar.maximum() < 40:  # just more than a screen: at the bottom, the folded card is still on screen
        view.add_answer("A paragraph of the answer.")
        _settle()
    qtbot.waitUntil(lambda: bar.value() == bar.maximum(), timeout=3000)  # following the end
    top = card.mapTo(view.viewport(), card.rect().topLeft()).y()
    assert 0 <= top < view.viewport().height() and not card.expanded
    qtbot.mouseClick(card.toggle, Qt.MouseButton.LeftButton)
    _settle()
    assert card.expanded and card.args.isVisible()
    assert card.mapTo(view.viewport(), card.rect().topLeft()).y() == top  # it did not move
