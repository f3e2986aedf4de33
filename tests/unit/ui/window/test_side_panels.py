"""Conversations, Servers and Tools as designed side panels in the real main window: a header (icon, title,
collapse) instead of a dock title bar with close/float buttons, collapse and expand by shortcut, and the open
panels back after a restart on the same home."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDockWidget

from desktop_app.ui.window.main_window import MainWindow
from desktop_app.ui.window.side_panel import SHORTCUTS, SidePanelHeader

PANELS = {"conversationsDock": "Conversations", "serversDock": "Servers", "toolsDock": "Tools"}


def _docks(window: MainWindow) -> dict[str, QDockWidget]:
    return {name: window.findChild(QDockWidget, name) for name in PANELS}


def test_every_side_panel_has_a_header_with_icon_title_and_collapse_and_no_float_or_close(window):
    for name, dock in _docks(window).items():
        header = dock.titleBarWidget()
        assert isinstance(header, SidePanelHeader), name
        assert header.full_title == PANELS[name] and header.title.accessibleName() == PANELS[name]
        assert not header.icon_label.icon().isNull() and not header.collapse_button.icon().isNull()
        features = dock.features()
        assert not features & QDockWidget.DockWidgetFeature.DockWidgetFloatable, name
        assert not features & QDockWidget.DockWidgetFeature.DockWidgetMovable, name


@pytest.mark.parametrize("name", list(PANELS))
def test_the_collapse_button_and_the_shortcut_collapse_and_expand_a_panel(qtbot, window, name):
    dock = _docks(window)[name]
    action = dock.toggleViewAction()
    assert action.shortcut().toString() == SHORTCUTS[name]
    action.trigger()  # the shortcut's action (View menu): shows a hidden panel, hides a shown one
    if dock.isHidden():
        action.trigger()
    qtbot.waitUntil(dock.isVisible)
    qtbot.mouseClick(dock.titleBarWidget().collapse_button, Qt.MouseButton.LeftButton)
    assert dock.isHidden()
    action.trigger()
    qtbot.waitUntil(dock.isVisible)
    action.trigger()
    assert dock.isHidden()


def _start(qtbot, path: Path) -> MainWindow:
    window = MainWindow(defer_rest=True)  # as desktop_app.app builds it
    qtbot.addWidget(window)
    window.restore_geometry(path)
    window.resize(1400, 900)
    window.show()
    window.build_rest()
    window.restore_state(path)
    return window


def test_which_panels_are_open_survives_a_restart(qtbot, qloop, tmp_path):
    path = tmp_path / "home" / "window.ini"
    first = _start(qtbot, path)
    first.conversations_dock.titleBarWidget().collapse_button.click()
    first.servers_dock.toggleViewAction().trigger()
    qtbot.waitUntil(first.servers_dock.isVisible)
    first.close()  # closing saves

    second = _start(qtbot, path)
    qtbot.waitUntil(second.servers_dock.isVisible)
    assert second.conversations_dock.isHidden() and second.tools_dock.isHidden()
    assert isinstance(second.servers_dock.titleBarWidget(), SidePanelHeader)


def test_a_narrow_panel_elides_its_title_and_a_wide_one_shows_it_whole(qtbot, window):
    header = window.conversations_dock.titleBarWidget()
    header.resize(400, header.height())
    qtbot.waitUntil(lambda: header.title.text() == "Conversations")
    header.resize(70, header.height())
    qtbot.waitUntil(lambda: header.title.text() != "Conversations")
    assert header.title.text().endswith("…") or header.title.text() == ""
    assert header.title.fontMetrics().horizontalAdvance(header.title.text()) <= header.title.width()
