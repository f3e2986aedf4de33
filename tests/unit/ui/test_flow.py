"""The one flow layout (``ui/flow.py``): items side by side, wrapped when the next does not fit, hidden ones
taking no room, shorter ones centred on their line; its sizes tell a parent layout what a width costs."""

from __future__ import annotations

from PySide6.QtCore import QSize
from PySide6.QtWidgets import QPushButton, QToolButton, QVBoxLayout, QWidget

from desktop_app.ui.flow import ButtonFlow, FlowLayout


class Box(QWidget):
    """A widget of a fixed size hint."""

    def __init__(self, width: int, height: int) -> None:
        super().__init__()
        self._hint = QSize(width, height)

    def sizeHint(self) -> QSize:
        return self._hint


def flow_of(*sizes: tuple[int, int], spacing: int = 4) -> tuple[QWidget, FlowLayout, list[Box]]:
    host = QWidget()
    layout = FlowLayout(host, spacing=spacing)
    layout.setContentsMargins(0, 0, 0, 0)
    boxes = [Box(w, h) for w, h in sizes]
    for box in boxes:
        layout.addWidget(box)
    return host, layout, boxes


def test_items_wrap_onto_a_new_line_when_the_next_does_not_fit(qtbot):
    host, layout, (a, b, c) = flow_of((50, 20), (50, 20), (50, 20))
    qtbot.addWidget(host)
    host.resize(105, layout.heightForWidth(105))
    host.show()
    qtbot.waitExposed(host)
    assert (a.geometry().topLeft().toTuple(), b.geometry().topLeft().toTuple()) == ((0, 0), (54, 0))
    assert c.geometry().topLeft().toTuple() == (0, 24)  # 104 px used: 4 + 50 more would be 158
    assert layout.heightForWidth(105) == 44 and layout.heightForWidth(158) == 20 and layout.heightForWidth(40) == 68
    assert host.height() == 44 and all(box.geometry().size().toTuple() == (50, 20) for box in (a, b, c))


def test_hidden_items_take_no_room_and_showing_one_lays_the_line_out_again(qtbot):
    host, layout, (_a, b, c) = flow_of((50, 20), (50, 20), (50, 20))
    qtbot.addWidget(host)
    b.hide()
    host.resize(200, 20)
    host.show()
    qtbot.waitExposed(host)
    assert c.geometry().x() == 54 and layout.sizeHint() == QSize(104, 20)
    b.show()
    qtbot.waitUntil(lambda: c.geometry().x() == 108)
    assert b.geometry().x() == 54 and layout.sizeHint() == QSize(158, 20)


def test_a_shorter_item_is_centred_on_its_line(qtbot):
    host, _layout, (tall, short) = flow_of((30, 30), (30, 10))
    qtbot.addWidget(host)
    host.resize(100, 30)
    host.show()
    qtbot.waitExposed(host)
    assert tall.geometry().y() == 0 and short.geometry().y() == 10


def test_its_size_hint_is_one_line_its_minimum_the_widest_item_and_margins_count(qtbot):
    host, layout, _boxes = flow_of((50, 20), (80, 24), (30, 20), spacing=6)
    qtbot.addWidget(host)
    assert layout.sizeHint() == QSize(50 + 80 + 30 + 12, 24)
    assert layout.minimumSize() == QSize(80, 24)
    layout.setContentsMargins(3, 5, 7, 11)
    assert layout.sizeHint() == QSize(172 + 10, 24 + 16) and layout.minimumSize() == QSize(90, 40)
    assert layout.heightForWidth(80 + 10) == 20 + 6 + 24 + 6 + 20 + 16  # one item a line, margins included


def test_an_item_wider_than_the_layout_gets_a_line_of_its_own(qtbot):
    _host, layout, _boxes = flow_of((50, 20), (300, 20), (50, 20))
    assert layout.heightForWidth(120) == 3 * 20 + 2 * 4


def test_taking_an_item_out_lays_the_rest_out_without_it(qtbot):
    host, layout, (_a, b, c) = flow_of((50, 20), (50, 20), (50, 20))
    qtbot.addWidget(host)
    host.resize(200, 20)
    host.show()
    qtbot.waitExposed(host)
    item = layout.takeAt(layout.indexOf(b))
    assert item is not None and item.widget() is b and layout.count() == 2 and layout.itemAt(2) is None
    b.hide()
    qtbot.waitUntil(lambda: c.geometry().x() == 54)
    assert layout.takeAt(5) is None


def test_a_button_flow_in_a_narrow_column_wraps_its_buttons_and_follows_a_changed_label(qtbot):
    column = QWidget()
    qtbot.addWidget(column)
    box = QVBoxLayout(column)
    box.setContentsMargins(0, 0, 0, 0)
    buttons = [QPushButton("Edit"), QPushButton("Disable"), QPushButton("Remove"), QToolButton()]
    flow = ButtonFlow(buttons)
    box.addWidget(flow)
    box.addStretch(1)
    widest = max(b.sizeHint().width() for b in buttons)
    column.resize(widest, 400)
    column.show()
    qtbot.waitExposed(column)
    assert flow.hasHeightForWidth() and flow.minimumSizeHint().width() == widest
    assert flow.height() >= sum(b.sizeHint().height() for b in buttons[:3])  # one button a line, none cut
    assert all(column.rect().contains(b.geometry().translated(flow.pos())) for b in buttons)
    assert [b.geometry().y() for b in buttons[:3]] == sorted({b.geometry().y() for b in buttons[:3]})
    column.resize(2000, 400)
    qtbot.waitUntil(lambda: len({b.geometry().y() for b in buttons[:3]}) == 1)
    before = buttons[2].geometry().x()
    buttons[1].setText("Enable and never ask again")  # a longer label pushes the next button along
    qtbot.waitUntil(lambda: buttons[2].geometry().x() > before)
    assert buttons[2].geometry().x() >= buttons[1].geometry().right()
