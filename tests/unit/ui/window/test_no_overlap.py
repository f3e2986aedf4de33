"""No widget overlaps another, nothing is clipped by its parent: the real MainWindow with a conversation
loaded, at 800×600, 1400×900 and 1920×1080, the side panels open. Walks the widget tree: every pair of
visible siblings has disjoint geometries, and every visible child lies inside its parent (except inside a
scroll area's viewport, whose content scrolls). Intentional overlays are listed in ``OVERLAYS`` with why."""

from __future__ import annotations

import itertools

import pytest
from PySide6.QtCore import QEvent, Qt
from PySide6.QtWidgets import QAbstractScrollArea, QApplication, QWidget

from desktop_app.ui.chat.blocks import AnswerBlock
from tests.support.fake_runtime import Content

OVERLAYS = {
    "conversationsEmpty": "the list's 'No conversation matches' note lies over the list's viewport by design",
    "qt_scrollarea_viewport": "a scroll area's corner and its viewport may share the scroll bars' corner",
}


def _name(widget: QWidget) -> str:
    return f"{type(widget).__name__}#{widget.objectName()}"


def _visible_children(widget: QWidget) -> list[QWidget]:
    return [
        c
        for c in widget.findChildren(QWidget, options=Qt.FindChildOption.FindDirectChildrenOnly)
        if c.isVisible() and not c.isWindow() and c.width() > 0 and c.height() > 0
    ]


def _problems(root: QWidget) -> tuple[int, list[str]]:
    """How many widgets were checked, and what overlaps or is clipped."""
    found: list[str] = []
    checked = 0
    stack = [root]
    while stack:
        parent = stack.pop()
        children = _visible_children(parent)
        checked += len(children)
        stack.extend(children)
        scrolled = (
            isinstance(parent.parentWidget(), QAbstractScrollArea) and parent.objectName() == "qt_scrollarea_viewport"
        )
        if not scrolled:
            for child in children:
                if child.objectName() in OVERLAYS:
                    continue
                if not parent.rect().contains(child.geometry()):
                    found.append(f"{_name(child)} {child.geometry()} clipped by {_name(parent)} {parent.rect()}")
        for a, b in itertools.combinations(children, 2):
            if a.objectName() in OVERLAYS or b.objectName() in OVERLAYS:
                continue
            if a.geometry().intersects(b.geometry()):
                found.append(f"{_name(a)} {a.geometry()} overlaps {_name(b)} {b.geometry()} in {_name(parent)}")
    return checked, found


@pytest.mark.parametrize("size", [(800, 600), (1400, 900), (1920, 1080)])
def test_no_widget_overlaps_another_or_is_clipped(qtbot, window, fake_runtime, size):
    fake_runtime.script(Content("A short answer with **bold** text and a list:\n\n- one\n- two\n", pieces=2))
    window.composer.edit.setPlainText("How do I save a file safely?")
    window.composer.button.click()
    qtbot.waitUntil(lambda: not window.controller.busy)
    assert any(isinstance(b, AnswerBlock) for b in window.view.blocks())
    window.servers_dock.show()
    window.tools_dock.show()
    window.resize(*size)
    for _ in range(3):  # every pending layout pass, as before a paint
        QApplication.sendPostedEvents(None, QEvent.Type.LayoutRequest.value)
    qtbot.waitUntil(lambda: window.width() == size[0])
    checked, problems = _problems(window)
    assert checked > 100  # the whole window: chat, composer, the three panels, the status bar
    assert problems == [], "\n".join(problems)


def test_the_walk_finds_an_overlap_and_a_clipped_child(qtbot, window):
    """The check itself: two siblings placed on each other, and a child past its parent's edge, are found."""
    host = QWidget(window.view.column)
    host.setGeometry(0, 0, 100, 40)
    a, b, c = QWidget(host), QWidget(host), QWidget(host)
    a.setGeometry(0, 0, 50, 20)
    b.setGeometry(40, 0, 50, 20)
    c.setGeometry(90, 30, 50, 20)
    host.show()
    _checked, problems = _problems(host)
    assert any("overlaps" in p for p in problems) and any("clipped" in p for p in problems)
