"""The Servers panel fits the width the window gives it (issue 24, the design screenshots' servers-failed scene).

In the real window on the real Runtime and Host, themed as the app is, with a server that failed to start
selected: at 1400×900 and 1920×1080 the panel is no wider than its dock's viewport (no sideways scrolling) and
every action button (Add…, Import…, Edit…, Disable, Remove, each row's Restart) is whole inside it; at 800×600
as well, as far as a dock of the window's narrowest width allows. Before the fix the action row under the list
(the server's name, Edit…, Disable and Remove side by side) made the panel wider than its dock: it scrolled
sideways and "Remove" was cut off.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QEvent, QPoint, QRect, Qt
from PySide6.QtWidgets import QAbstractButton, QApplication, QScrollArea, QWidget

from desktop_app.runtime.builtins import ARTIFACTS, HISTORY, SYSTEM
from desktop_app.runtime.builtins.tools import make_tools_server
from desktop_app.runtime.host import Host, load_mcp_config
from desktop_app.ui.theme import themes as theme
from desktop_app.ui.window.docks import DOCK_MIN
from desktop_app.ui.window.main_window import MainWindow
from tests.support.fakes import FakeProvider
from tests.support.qt_layout import settle_size
from tests.support.synthetic_tools import factory
from tests.unit.ui.tools.test_tool_panel import make_runtime, run

MISSING = "analytics-mcp-server-that-is-not-installed"
SCREENSHOT_800 = 130
"""The dock's width in the design screenshots' 800×600 window (the window there has less room than here)."""


@pytest.fixture(params=["light", "dark"])
def themed(restore_app_look: None, request: Any) -> str:
    theme.apply_theme(request.param)
    return str(request.param)


def _whole_in(area: QScrollArea, widget: QWidget) -> bool:
    """``widget`` is whole across the scroll area's viewport (not cut at its right edge) and inside the panel
    (a panel taller than its dock scrolls up and down: that cuts nothing for good)."""
    viewport, panel = area.viewport(), area.widget()
    rect = QRect(widget.mapTo(viewport, QPoint(0, 0)), widget.size())
    inside = panel is not None and panel.rect().contains(QRect(widget.mapTo(panel, QPoint(0, 0)), widget.size()))
    return inside and rect.left() >= 0 and rect.right() < viewport.width()


def test_the_servers_panel_fits_its_dock_with_a_failed_server(
    qtbot: Any, qloop: Any, themed: str, tmp_path: Path, switchboard_home: Path
) -> None:
    path = switchboard_home / "mcp.json"
    servers = {"analytics": {"command": MISSING, "args": ["--stdio"]}, "crm": {"command": "(in-process crm)"}}
    path.write_text(json.dumps({"mcpServers": servers}), encoding="utf-8")
    config = load_mcp_config(path)
    host = Host({"analytics": config["analytics"]}, startup_timeout=30)
    host.add_in_process("crm", factory(0, 3), config["crm"])
    runtime = make_runtime(host, FakeProvider([]))  # registers switchboard.tools
    for name in (SYSTEM, HISTORY, ARTIFACTS):  # the built-ins' long names, as in the app (never started here)
        host.register_builtin(name, lambda: make_tools_server(lambda: []))
    window = MainWindow()
    qtbot.addWidget(window)
    window.attach_runtime(runtime)
    window.attach_host(host, mcp_config=path)
    window.show()
    qtbot.waitExposed(window)
    try:
        run(qtbot, qloop, host.start())
        settle_size(qtbot, window, 1400, 900)
        dock, panel = window.servers_dock, window.servers_dock.panel
        dock.toggle()  # the status bar's MCP indicator, as the scene does
        qtbot.waitUntil(lambda: "analytics" in panel.rows and panel.servers["analytics"].state == "failed")
        panel.select("analytics")
        qtbot.waitUntil(panel.inspector.failure.isVisible)
        area = dock.widget()
        assert isinstance(area, QScrollArea) and area.widget() is panel
        inspector = panel.inspector
        buttons: list[QAbstractButton] = [
            panel.add_button,
            panel.import_button,
            inspector.edit_button,
            inspector.toggle_button,
            inspector.remove_button,
        ]

        def fits(case: object) -> None:
            for _ in range(3):
                QApplication.sendPostedEvents(None, QEvent.Type.LayoutRequest.value)
                QApplication.processEvents()
            viewport = area.viewport()
            assert panel.width() <= viewport.width(), (case, panel.width(), viewport.width())  # no sideways scroll
            assert not area.horizontalScrollBar().isVisible(), case
            for button in buttons:
                assert button.isVisible() and _whole_in(area, button), (case, button.objectName(), button.geometry())
            list_view = panel.list.viewport()
            for name, row in panel.rows.items():  # each row's Restart, whole inside the list and the panel
                top_left = row.restart_button.mapTo(list_view, QPoint(0, 0))
                rect = QRect(top_left, row.restart_button.size())
                assert list_view.rect().left() <= rect.left() and rect.right() <= list_view.rect().right(), (
                    case,
                    name,
                    rect,
                    list_view.width(),
                )

        for size in ((1400, 900), (1920, 1080), (800, 600)):
            settle_size(qtbot, window, *size)
            fits(size)
            if size == (1400, 900):  # room: the title says the kind, each row's Restart says its word
                assert inspector.title.kind.isVisible() and inspector.title.text() == "analytics MCP server"
                assert all(row.restart_button.text() == "Restart" for row in panel.rows.values())

        for width in (DOCK_MIN, SCREENSHOT_800):  # the dock at its narrowest, and as the 800 px window gave it
            dock.setMinimumWidth(min(width, dock.minimumWidth()))
            window.resizeDocks([dock], [width], Qt.Orientation.Horizontal)
            qtbot.waitUntil(lambda width=width: dock.width() <= width + 2)
            fits(width)
        title = inspector.title  # 130 px: the whole name rather than its kind; Restart as its icon, still named
        assert not title.kind.isVisible() and title.name.width() >= title.name.sizeHint().width()
        for name, row in panel.rows.items():
            button = row.restart_button
            assert button.text() == "" and not button.icon().isNull(), name
            assert button.accessibleName() == f"Restart MCP server {name}" and button.toolTip() == "Restart"
        chain, widget = [], panel.nextInFocusChain()  # the keyboard reaches the buttons in reading order
        while widget is not panel and len(chain) < 500:
            chain.append(widget)
            widget = widget.nextInFocusChain()
        assert sorted(buttons, key=chain.index) == buttons
        for name, row in panel.rows.items():  # a name too long for its row: elided, whole in its tooltip
            assert row.name_label.toolTip() == name and row.name_label.width() <= row.width(), name
        assert inspector.title.name.toolTip() == "analytics"
    finally:
        run(qtbot, qloop, runtime.aclose())
