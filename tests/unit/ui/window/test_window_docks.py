"""View → Servers (and the Tools dock) in an 800 px window: the window keeps its width, the conversation list
keeps a readable width, and closing the dock gives the list its width back (the real ``MainWindow``)."""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication
from PySide6.QtWidgets import QMenu

from desktop_app.ui.window.docks import CONVERSATIONS_MIN, PREFERRED_WIDTH, DockRoom
from desktop_app.ui.window.main_window import MainWindow


def _view_entry(window: MainWindow, text: str):
    for action in window.menuBar().actions():
        menu = action.menu()
        if isinstance(menu, QMenu) and action.text().replace("&", "") == "View":
            [entry] = [a for a in menu.actions() if a.text().replace("&", "") == text]
            return entry
    raise AssertionError("no View menu")


def _settled(qtbot, window: MainWindow, check) -> None:
    qtbot.waitUntil(check, timeout=3000)


def test_view_servers_keeps_the_window_and_the_list_and_closing_gives_the_room_back(qtbot, window):
    window.resize(800, 600)
    list_dock = window.conversations_dock
    _settled(qtbot, window, lambda: window.width() == 800 and list_dock.width() >= 240)
    list_width = list_dock.width()

    servers = _view_entry(window, "Servers")
    servers.trigger()
    _settled(qtbot, window, lambda: window.servers_dock.isVisible() and window.servers_dock.width() >= 150)
    assert window.width() == 800
    assert list_dock.width() >= CONVERSATIONS_MIN
    assert window.servers_dock.width() >= 150
    assert window.centralWidget().width() >= window.centralWidget().minimumSizeHint().width()

    servers.trigger()  # closed again
    _settled(qtbot, window, lambda: window.servers_dock.isHidden() and list_dock.width() == list_width)
    assert window.width() == 800


def test_a_dock_in_a_wide_window_gets_its_width_and_the_list_keeps_its_own(qtbot, window):
    window.resize(1600, 800)
    list_dock = window.conversations_dock
    _settled(qtbot, window, lambda: window.width() == 1600)
    list_width = list_dock.width()
    window.tools_dock.show()
    _settled(qtbot, window, lambda: window.tools_dock.width() >= 300)
    assert window.width() == 1600 and list_dock.width() == list_width


def test_a_window_too_narrow_for_the_dock_is_put_back_when_it_closes(qtbot, window):
    narrow = window.minimumSizeHint().width() + 10  # no room for a dock beside the list and the chat
    window.resize(narrow, 600)
    _settled(qtbot, window, lambda: window.width() == narrow)
    window.servers_dock.show()
    _settled(qtbot, window, lambda: window.servers_dock.isVisible())
    assert window.conversations_dock.width() >= CONVERSATIONS_MIN
    window.servers_dock.hide()
    _settled(qtbot, window, lambda: window.width() == narrow)


def test_a_dock_opened_in_a_narrow_window_takes_its_width_when_the_window_grows(qtbot, window):
    """Opened at 800 px a right dock gets what is left (about DOCK_MIN); made wider, the window gives it its
    width instead of leaving its content cut beside a wide chat column (seen in the design screenshots). A
    later close does not shrink the window the user widened."""
    window.resize(800, 600)
    _settled(qtbot, window, lambda: window.width() == 800)
    room = window.findChild(DockRoom, "dockRoom")
    window.tools_dock.show()
    _settled(qtbot, window, lambda: window.tools_dock in room._given)  # fitted into the 800 px window
    assert window.tools_dock.width() < PREFERRED_WIDTH
    window.resize(1600, 800)
    _settled(qtbot, window, lambda: window.tools_dock.width() >= PREFERRED_WIDTH - 2)
    assert window.width() == 1600 and window.conversations_dock.width() >= CONVERSATIONS_MIN
    window.tools_dock.hide()
    _settled(qtbot, window, lambda: window.tools_dock.isHidden())
    QCoreApplication.processEvents()  # the give-back runs on the loop's next turn
    QCoreApplication.processEvents()
    assert window.width() == 1600


def test_a_dock_opened_after_ready_in_a_wide_window_leaves_the_list_its_width(qtbot, qloop, fake_runtime):
    """As in the app: the window is shown and sized, the docks come with the later parts built after
    ``runtime: ready``, with no resize since; opening the Servers dock at 1920 px squeezed the list from its
    width to ``CONVERSATIONS_MIN`` (the room took "no list width known" for the list's minimum: the design
    screenshots' servers-failed scene)."""
    window = MainWindow(defer_rest=True)  # as ``app.py`` builds it
    qtbot.addWidget(window)
    window.resize(1920, 1080)
    window.show()
    qtbot.waitExposed(window)
    window.wait_for_ready = True
    window.build_rest()
    window.attach_runtime(fake_runtime)
    list_dock = window.conversations_dock
    _settled(qtbot, window, lambda: window.width() == 1920 and list_dock.width() >= 240)
    list_width = list_dock.width()
    assert not window.later_parts.built
    window.build_later()  # what runtime: ready does
    room = window.findChild(DockRoom, "dockRoom")
    _view_entry(window, "Servers").trigger()
    _settled(qtbot, window, lambda: window.servers_dock in room._given)
    QCoreApplication.processEvents()
    assert window.servers_dock.width() >= PREFERRED_WIDTH - 2
    assert list_dock.width() == list_width and window.width() == 1920
