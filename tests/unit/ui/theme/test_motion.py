"""Motion with restraint: every duration ≤ 200 ms; a tool card's and the reasoning's fold eases open and shut
when motion is on, and happens at once (no animation, duration 0) when the OS — or the environment
override — asks for reduced motion; the GTK setting is read."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QPoint, Qt

from desktop_app.ui.chat.blocks import ReasoningBlock
from desktop_app.ui.chat.tool_card import ToolCard
from desktop_app.ui.theme import motion


@pytest.fixture
def motion_on(monkeypatch):
    monkeypatch.setenv("SWITCHBOARD_REDUCED_MOTION", "0")


@pytest.fixture
def motion_off(monkeypatch):
    monkeypatch.setenv("SWITCHBOARD_REDUCED_MOTION", "1")


def _finished_card(qtbot) -> ToolCard:
    card = ToolCard("call-1", "time", "get_time", {"zone": "Europe/Paris"})
    qtbot.addWidget(card)
    card.show()
    card.ask()
    card.show_decision(True, None, "user", "once", None)
    card.show_result("12:00 UTC", is_error=False)
    assert not card.expanded and card.args.isHidden()
    return card


def _click_title(qtbot, card: ToolCard) -> None:
    qtbot.mouseClick(card, Qt.MouseButton.LeftButton, pos=QPoint(card.width() // 2, card.title.geometry().center().y()))


def test_every_duration_is_at_most_200_ms(motion_on):
    assert motion.DURATIONS and max(motion.DURATIONS.values()) <= 200
    assert all(0 < motion.duration(name) <= 200 for name in motion.DURATIONS)


def test_reduced_motion_makes_every_duration_zero(motion_off):
    assert motion.reduced_motion()
    assert all(motion.duration(name) == 0 for name in motion.DURATIONS)


def test_a_tool_card_eases_open_and_shut(qtbot, motion_on):
    card = _finished_card(qtbot)
    _click_title(qtbot, card)
    assert card.expanded and card.args.isVisible()
    running = motion._running.get(id(card.args))
    assert running is not None and 0 < running.duration() <= 200
    assert card.args.maximumHeight() < card.args.sizeHint().height()  # it starts closed and grows
    qtbot.waitUntil(lambda: id(card.args) not in motion._running)
    assert card.args.maximumHeight() == motion.MAX_HEIGHT and card.args.isVisible()
    qtbot.mouseClick(card.toggle, Qt.MouseButton.LeftButton)
    assert not card.expanded and id(card.result) in motion._running  # shutting, still drawn
    qtbot.waitUntil(lambda: card.result.isHidden())
    assert card.result.maximumHeight() == motion.MAX_HEIGHT


def test_reduced_motion_folds_a_tool_card_at_once(qtbot, motion_off):
    card = _finished_card(qtbot)
    _click_title(qtbot, card)
    assert card.expanded and card.args.isVisible() and not motion._running
    qtbot.mouseClick(card.toggle, Qt.MouseButton.LeftButton)
    assert card.args.isHidden() and card.result.isHidden() and not motion._running


def test_the_reasoning_folds_with_motion_and_at_once_without(qtbot, monkeypatch):
    block = ReasoningBlock()
    qtbot.addWidget(block)
    block.show()
    monkeypatch.setenv("SWITCHBOARD_REDUCED_MOTION", "0")
    block.toggle.click()
    assert id(block.body) in motion._running
    qtbot.waitUntil(lambda: block.body.isHidden())
    monkeypatch.setenv("SWITCHBOARD_REDUCED_MOTION", "1")
    block.toggle.click()
    assert block.body.isVisible() and id(block.body) not in motion._running


@pytest.mark.parametrize(("value", "reduced"), [("false", True), ("true", False)])
def test_the_gtk_setting_is_read(tmp_path, monkeypatch, value, reduced):
    monkeypatch.setattr(motion.sys, "platform", "linux")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    (tmp_path / "gtk-3.0").mkdir()
    (tmp_path / "gtk-3.0" / "settings.ini").write_text(f"[Settings]\ngtk-enable-animations={value}\n")
    assert motion.platform_reduced_motion() is reduced


def test_a_fold_keeps_a_widget_s_own_fixed_height(qtbot, motion_on):
    """A text that fits itself (a fixed height, as the reasoning's body sets) keeps that height when its fold
    ends: restoring "no maximum" let it fall back to Qt's default and left a gap under the reasoning."""
    from PySide6.QtWidgets import QWidget

    widget = QWidget()
    qtbot.addWidget(widget)
    widget.setFixedHeight(40)
    widget.hide()
    motion.fold(widget, True)
    qtbot.waitUntil(lambda: id(widget) not in motion._running)
    assert widget.isVisible() and widget.maximumHeight() == 40
    motion.fold(widget, False)
    motion.fold(widget, True)  # a fold stopped half-way puts the widget's own limit back too
    qtbot.waitUntil(lambda: id(widget) not in motion._running)
    assert widget.maximumHeight() == 40 and widget.minimumHeight() == 40
