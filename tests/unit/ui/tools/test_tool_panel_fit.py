"""The Tools panel fits the width it is given, in the real window on the real Runtime and Host with 80 tools,
themed as the app is: at 800 px (a dock of ~180 px) the panel is not wider than its dock (the dock's scroll
area cut the search field, the summary and the tree mid-glyph at its right edge: the design screenshots), and
when the window is made wider again (1400, 1920) the dock takes its width back and the tree's columns fit."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QEvent, Qt
from PySide6.QtWidgets import QApplication, QScrollArea

from desktop_app.ui.theme import themes as theme
from desktop_app.ui.window.docks import DOCK_MIN, PREFERRED_WIDTH
from desktop_app.ui.window.main_window import MainWindow
from tests.support.fakes import FakeProvider, answer
from tests.support.qt_layout import settle_size
from tests.unit.ui.tools.test_tool_panel import MCP_JSON, make_host, make_runtime, run


@pytest.fixture
def themed(restore_app_look):
    theme.apply_theme("dark")


def test_the_tools_panel_fits_its_dock_at_every_width(qtbot: Any, qloop: Any, themed: None, tmp_path: Path) -> None:
    path = tmp_path / "mcp.json"
    path.write_text(MCP_JSON, encoding="utf-8")
    host = make_host(path, tools=27)  # 3 servers × 27 tools: more than a screen of rows, as in the screenshots
    runtime = make_runtime(host, FakeProvider([answer("done")]))
    window = MainWindow()
    qtbot.addWidget(window)
    window.attach_runtime(runtime)
    window.attach_host(host, mcp_config=path)
    window.show()
    qtbot.waitExposed(window)
    try:
        run(qtbot, qloop, host.start())
        run(qtbot, qloop, host.ensure_builtins())
        settle_size(qtbot, window, 1400, 900)
        dock, panel = window.tools_dock, window.tools_dock.panel
        dock.open_search()  # Ctrl+K, as the scene does
        qtbot.waitUntil(lambda: panel.overview is not None and panel.overview.total >= 81, timeout=5000)
        panel.tree.expandAll()
        area = dock.widget()
        assert isinstance(area, QScrollArea) and area.widget() is panel

        def fits(case: object) -> None:
            viewport = area.viewport()
            assert panel.width() <= viewport.width(), (case, panel.width(), viewport.width())  # nothing cut
            assert not area.horizontalScrollBar().isVisible(), case
            for part in (panel.count_label, panel.settings_button):  # the footer's two, whole
                assert panel.footer.rect().contains(part.geometry()), (case, part.objectName(), part.geometry())

        for size in ((800, 600), (1400, 900), (1920, 1080)):
            settle_size(qtbot, window, *size)
            fits(size)
            if size != (800, 600):  # room again: the dock takes its width back, the tree's columns all fit
                assert dock.width() >= PREFERRED_WIDTH - 2, (size, dock.width())
                header = panel.tree.header()
                assert header.length() <= panel.tree.viewport().width(), (size, header.length())

        tree = panel.tree  # a name elided in its column has its whole name in its tooltip
        groups = [tree.topLevelItem(i) for i in range(tree.topLevelItemCount())]
        rows = [*groups, *(g.child(i) for g in groups if g is not None for i in range(g.childCount()))]
        assert all(r is not None and r.text(0) and r.text(0) in r.toolTip(0) for r in rows)

        window.resizeDocks([dock], [DOCK_MIN], Qt.Orientation.Horizontal)  # narrowed to its narrowest
        qtbot.waitUntil(lambda: dock.width() <= DOCK_MIN + 2)
        for _ in range(3):
            QApplication.sendPostedEvents(None, QEvent.Type.LayoutRequest.value)
            QApplication.processEvents()
        fits(DOCK_MIN)
    finally:
        run(qtbot, qloop, runtime.aclose())
