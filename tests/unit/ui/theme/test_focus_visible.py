"""The transcript's focus ring is for keyboard focus: a click in the conversation gives the view focus (its
arrow keys scroll) without framing the whole conversation like a selection; Tab and Shift+Tab to it draw
the ring. The real MainWindow, themed, with an answer in the transcript."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QColor, QImage
from PySide6.QtWidgets import QApplication

from desktop_app.ui.theme import themes as theme
from desktop_app.ui.theme.tokens import tokens
from tests.support.fake_runtime import Content


@pytest.fixture
def themed(restore_app_look):
    """The app's look restored after the test (each test applies its theme)."""


def _ring_share(image: QImage, ring: str) -> float:
    """How much of the top edge (two rows, the middle third) is the ring's colour."""
    colour = QColor(ring)
    third = image.width() // 3
    pixels = [image.pixelColor(x, y) for y in (0, 1) for x in range(third, 2 * third)]
    near = [
        p
        for p in pixels
        if max(abs(p.red() - colour.red()), abs(p.green() - colour.green()), abs(p.blue() - colour.blue())) <= 40
    ]
    return len(near) / len(pixels)


@pytest.mark.parametrize("name", ["light", "dark"])
def test_a_click_in_the_transcript_draws_no_ring_and_tab_does(qtbot, themed, window, fake_runtime, name):
    theme.apply_theme(name)
    window.resize(1000, 700)
    fake_runtime.script(Content("A short answer with **bold** text.", pieces=2))
    window.composer.edit.setPlainText("Hello")
    window.composer.button.click()
    qtbot.waitUntil(lambda: not window.controller.busy)
    view = window.view
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow)
    window.composer.edit.setFocus()
    qtbot.waitUntil(lambda: QApplication.focusWidget() is window.composer.edit)
    plain = view.grab().toImage()

    page = view.widget()
    qtbot.mouseClick(page, Qt.MouseButton.LeftButton, pos=QPoint(8, page.height() // 2))  # the page's margin
    qtbot.waitUntil(lambda: QApplication.focusWidget() is view)  # the click focuses the transcript…
    assert view.grab().toImage() == plain  # …and frames nothing
    ring = tokens(name).focus_ring
    assert _ring_share(view.grab().toImage(), ring) == 0

    window.composer.edit.setFocus()
    qtbot.waitUntil(lambda: QApplication.focusWidget() is window.composer.edit)
    qtbot.keyClick(window.composer.edit, Qt.Key.Key_Backtab, Qt.KeyboardModifier.ShiftModifier)  # reading order
    qtbot.waitUntil(lambda: QApplication.focusWidget() is view)
    assert _ring_share(view.grab().toImage(), ring) > 0.3  # Shift+Tab: the ring

    qtbot.mouseClick(page, Qt.MouseButton.LeftButton, pos=QPoint(8, page.height() // 2))
    assert QApplication.focusWidget() is view and _ring_share(view.grab().toImage(), ring) == 0  # a click: none
    qtbot.keyClick(view, Qt.Key.Key_Tab)  # on to the next stop, and Shift+Tab back: the ring again
    qtbot.waitUntil(lambda: QApplication.focusWidget() is not view)
    following = QApplication.focusWidget()
    assert _ring_share(view.grab().toImage(), ring) == 0
    qtbot.keyClick(following, Qt.Key.Key_Backtab, Qt.KeyboardModifier.ShiftModifier)
    qtbot.waitUntil(lambda: QApplication.focusWidget() is view)
    assert _ring_share(view.grab().toImage(), ring) > 0.3


@pytest.mark.parametrize("name", ["light", "dark"])
def test_a_click_on_a_tool_card_draws_no_ring_and_tab_does(qtbot, themed, window, fake_runtime, name):
    """The hook-changed scene clicks a card's title to unfold it: the whole card was framed in the highlight."""
    from tests.support.fake_runtime import Tool

    theme.apply_theme(name)
    window.resize(1000, 700)
    fake_runtime.script(
        Tool("t1", "crm", "lookup", {"name": "Ada"}, result="Ada Lovelace", policy=True), Content("Done.")
    )
    window.composer.edit.setPlainText("Look up Ada")
    window.composer.button.click()
    qtbot.waitUntil(lambda: not window.controller.busy and "t1" in window.view.cards)
    card = window.view.cards["t1"]
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow)
    window.composer.edit.setFocus()
    qtbot.waitUntil(lambda: QApplication.focusWidget() is window.composer.edit)
    plain = card.grab().toImage()
    ring = QColor(card.palette().highlight().color()).name()

    qtbot.mouseClick(card.title, Qt.MouseButton.LeftButton)  # the title: a label, the card takes the focus
    qtbot.waitUntil(lambda: QApplication.focusWidget() is card)
    assert _ring_share(card.grab().toImage(), ring) == _ring_share(plain, ring) == 0

    window.composer.edit.setFocus()
    qtbot.waitUntil(lambda: QApplication.focusWidget() is window.composer.edit)
    card.setFocus(Qt.FocusReason.TabFocusReason)  # the keyboard's way to the card
    qtbot.waitUntil(lambda: QApplication.focusWidget() is card)
    assert _ring_share(card.grab().toImage(), ring) > 0.3
