"""The chat's geometry, read from the laid-out widgets of the real MainWindow: the reading column keeps a
70–80 character line and follows the window's width; the inline edit's buttons sit below its text box."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QPoint, QRect
from PySide6.QtWidgets import QApplication

from desktop_app.ui.chat.blocks import AnswerBlock, UserMessageBlock
from tests.support.fake_runtime import Content

PARAGRAPH = " ".join(
    ["Write the new file beside the old one, flush it, and swap it in with a rename, so that a crash at any"]
    + ["moment leaves either the old settings or the new ones on disk, never an empty or half-written file."] * 6
)


def _send(qtbot, window, text: str) -> None:
    window.composer.edit.setPlainText(text)
    window.composer.button.click()
    qtbot.waitUntil(lambda: not window.controller.busy)


def _line_lengths(answer: AnswerBlock) -> list[int]:
    """Characters on each full line of the answer's first paragraph, as laid out (the last line is short)."""
    [prose] = answer.prose_views()
    block = prose.document().begin()
    layout = block.layout()
    return [layout.lineAt(i).textLength() for i in range(layout.lineCount() - 1)]


def _settle(qtbot, window, width: int) -> None:
    window.resize(width, 900)
    qtbot.waitUntil(lambda: window.width() == width)
    QApplication.processEvents()


def test_the_reading_column_keeps_a_70_to_80_character_line_and_follows_the_window(qtbot, window, fake_runtime):
    fake_runtime.script(Content(PARAGRAPH, pieces=3))
    _send(qtbot, window, "How do I save safely?")
    [answer] = [b for b in window.view.blocks() if isinstance(b, AnswerBlock)]
    view = window.view

    _settle(qtbot, window, 1920)
    wide = view.column.width()
    lines = _line_lengths(answer)
    assert len(lines) >= 4 and all(70 <= n <= 80 for n in lines), lines
    assert view.column.geometry().right() < view.viewport().width()  # inside the view, centred
    left = view.column.mapTo(view.viewport(), QPoint(0, 0)).x()
    right_gap = view.viewport().width() - (left + view.column.width())
    assert abs(left - right_gap) <= 2

    _settle(qtbot, window, 640)  # a narrower window: the column narrows with it, nothing runs off the side
    narrow = view.column.width()
    assert narrow < wide and narrow <= view.viewport().width() - 32
    assert max(_line_lengths(answer)) < 70

    font = QApplication.font()
    try:  # a larger font (Settings → Appearance): the column grows with it, the line stays 70–80
        bigger = QApplication.font()
        bigger.setPointSizeF(font.pointSizeF() * 1.3)
        QApplication.setFont(bigger)
        _settle(qtbot, window, 1920)
        qtbot.waitUntil(lambda: view.column.width() > wide)
    finally:
        QApplication.setFont(font)


def test_the_inline_edit_lays_out_its_buttons_below_its_text_box(qtbot, window, fake_runtime):
    fake_runtime.script(Content("Sure."))
    long = "Open an issue for the failing settings test, then tell me how to make the save safe. " * 3
    for text in ("hi", long.strip()):
        _send(qtbot, window, text)
        fake_runtime.script(Content("Sure."))
    _settle(qtbot, window, 1400)
    for block in [b for b in window.view.blocks() if isinstance(b, UserMessageBlock)]:
        block.start_edit()
        qtbot.waitUntil(lambda block=block: block.editor.isVisible())
        for _ in range(3):  # every pending layout pass (bubble, block, column), as before a paint
            QApplication.sendPostedEvents(None, QEvent.Type.LayoutRequest.value)

        def rect(widget, block=block) -> QRect:
            return QRect(widget.mapTo(block, QPoint(0, 0)), widget.size())

        editor, cancel, send = rect(block.editor), rect(block.edit_cancel_button), rect(block.edit_send_button)
        bubble = rect(block.bubble)
        for button in (cancel, send):
            assert not button.intersects(editor) and button.top() >= editor.bottom()  # below, not over it
            assert bubble.contains(button)
        assert bubble.contains(editor) and not cancel.intersects(send)
        assert editor.width() >= 0.6 * window.view.column.width()  # room to edit, not the text's own width
        shown = block.editor.document().size().height() + 2 * block.editor.frameWidth()
        assert block.editor.height() >= min(shown, 10 * block.editor.fontMetrics().lineSpacing())
        assert block.sent_with.isHidden() or rect(block.sent_with).top() >= editor.bottom()
        block.cancel_edit()


def test_a_user_message_that_wraps_shows_every_line(qtbot, window, fake_runtime):
    """A message a little wider than its bubble wraps onto a second line, and the bubble is tall enough for it
    (its second line was cut off: the label got its one-line size hint's height), at any window width."""
    fake_runtime.script(Content("Sure."))
    text = "Name a good first project for learning Rust, in two sentences, and say why it is a good one."
    _send(qtbot, window, text)
    [block] = [b for b in window.view.blocks() if isinstance(b, UserMessageBlock)]
    for width in (1920, 900, 640):
        _settle(qtbot, window, width)
        label = block.label
        line = label.fontMetrics().lineSpacing()
        needed = label.heightForWidth(label.width())
        assert needed >= 2 * line  # it does wrap at this width
        assert label.height() >= needed, (width, label.height(), needed)
        assert block.bubble.geometry().contains(label.geometry().translated(block.bubble.pos()).bottomLeft())


def test_the_empty_chat_hint_is_never_cut_off(qtbot, window):
    """The hint of an empty chat wraps inside the reading column instead of running off both sides of it
    (a larger font in a narrow window: the line is wider than the column)."""
    hint = window.view.empty_hint
    font = QApplication.font()
    try:
        bigger = QApplication.font()
        bigger.setPointSizeF(font.pointSizeF() * 1.5)
        QApplication.setFont(bigger)
        _settle(qtbot, window, max(700, window.minimumSizeHint().width()))
        for _ in range(3):  # every pending layout pass, as before a paint
            QApplication.sendPostedEvents(None, QEvent.Type.LayoutRequest.value)
        assert hint.isVisible() and hint.width() <= window.view.column.width()
        needed = hint.fontMetrics().horizontalAdvance(hint.text())
        assert needed > hint.contentsRect().width()  # the line is wider than the column
        assert hint.height() >= hint.heightForWidth(hint.width()) >= 2 * hint.fontMetrics().lineSpacing()
    finally:
        QApplication.setFont(font)
