"""An extension's strip in the Servers panel (its title, Reconfigure… and Update…) fits a narrow panel: the two
buttons go under the title and wrap rather than make the panel wider than its dock (issue 24: the panel of an
800 px window is ~130 px wide; side by side they needed ~330 px, so the dock scrolled sideways)."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QPoint, QRect
from PySide6.QtWidgets import QApplication

from desktop_app.ui.extensions.manage import ExtensionBar
from desktop_app.ui.servers.panel import ServersPanel

TITLE = "Extension <b>Python Probe</b> 1.0.0 <span>by Switchboard Tests</span>"


def test_the_extension_strip_wraps_in_a_narrow_panel_and_lies_flat_in_a_wide_one(qtbot: Any) -> None:
    panel = ServersPanel()
    qtbot.addWidget(panel)
    bar = ExtensionBar(panel)
    qtbot.addWidget(bar)
    bar.label.setText(TITLE)
    bar.show()
    buttons = (bar.reconfigure_button, bar.update_button)
    widest = max(button.sizeHint().width() for button in buttons)
    assert bar.minimumSizeHint().width() <= widest  # never wider than its widest button

    for width in (130, 600):
        bar.resize(width, bar.heightForWidth(width) if bar.hasHeightForWidth() else bar.sizeHint().height())
        QApplication.processEvents()
        for button in buttons:  # whole, inside the strip
            where = QRect(button.mapTo(bar, QPoint(0, 0)), button.size())
            assert button.isVisible() and bar.rect().contains(where), (width, where, bar.size())
        assert bar.label.height() >= bar.label.heightForWidth(bar.label.width())  # every line of the title
    assert bar.reconfigure_button.y() == bar.update_button.y()  # 600 px: one line
