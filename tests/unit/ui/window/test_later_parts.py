"""The later parts (the Servers and Tools docks, the find bar, the Help menu) built after the runtime came in (the
app builds them after ``runtime: ready``, issue 27) end up as if they had been built first: the Tools dock
follows the runtime, Ctrl+K is the saved shortcut, the View menu keeps its order, Help is the last menu and the
Servers indicator is no Tab stop."""

from __future__ import annotations

from PySide6.QtGui import QKeySequence

from desktop_app.runtime.settings import Settings, ShortcutSettings
from desktop_app.ui.window.focus import no_status_stops
from desktop_app.ui.window.main_window import MainWindow
from desktop_app.ui.window.menus import view_menu
from tests.support.fake_runtime import FakeRuntime


class ShortcutRuntime(FakeRuntime):
    @property
    def settings(self) -> Settings:
        return super().settings.model_copy(update={"shortcuts": ShortcutSettings(tool_search="Ctrl+Shift+Y")})


def _view_titles(window: MainWindow) -> list[str]:
    return [a.text().replace("&", "") for a in view_menu(window).actions() if not a.isSeparator()]


def _app_window(qtbot) -> MainWindow:
    window = MainWindow(defer_rest=True)  # as desktop_app.app builds it
    qtbot.addWidget(window)
    window.wait_for_ready = True
    window.build_rest()
    return window


def test_docks_built_after_the_runtime_catch_up_with_it(qtbot, qloop):
    whole = MainWindow()  # the docks first, as tests and the constructor build them
    qtbot.addWidget(whole)
    whole.attach_runtime(ShortcutRuntime())

    window = _app_window(qtbot)
    runtime = ShortcutRuntime()
    window.attach_runtime(runtime)
    assert not window.later_parts.built  # attaching the runtime does not build them
    view_menu(window).addAction("Later…")  # what the runtime adds (Workflows…, Tasks…)
    window.build_later()

    assert window.later_parts.built
    assert window.tools_dock.panel._runtime is runtime
    assert window.tools_dock.search_action.shortcut() == QKeySequence("Ctrl+Shift+Y")
    assert whole.tools_dock.search_action.shortcut() == QKeySequence("Ctrl+Shift+Y")
    assert _view_titles(window) == [*_view_titles(whole), "Later…"]
    menus = [a.text().replace("&", "") for a in window.menuBar().actions()]
    assert menus == [a.text().replace("&", "") for a in whole.menuBar().actions()] and menus[-1] == "Help"
    window.show()
    qtbot.waitExposed(window)
    assert no_status_stops(window.statusBar()) == []


def test_a_dock_asked_for_before_the_app_builds_them_is_built_then(qtbot, qloop):
    window = _app_window(qtbot)
    assert not window.later_parts.built
    window.tools_dock.show()  # e.g. Ctrl+K or a reopened conversation's promoted tools, right after ready
    assert window.later_parts.built and window.tools_dock.isVisibleTo(window) and window.servers_dock.isHidden()
    docks = (window.servers_dock, window.tools_dock)
    window.build_later()  # the app's own call after ready builds nothing twice
    assert (window.servers_dock, window.tools_dock) == docks


def test_find_before_the_app_builds_the_later_parts_opens_the_find_bar(qtbot, qloop):
    window = _app_window(qtbot)
    window.show()
    qtbot.waitExposed(window)
    window.find_in_conversation()  # Edit → Find (Ctrl+F) between the first paint and ready
    assert window.later_parts.built and window.find_bar.isVisible()


def test_quitting_before_the_docks_keeps_the_saved_layout(qtbot, qloop, tmp_path):
    path = tmp_path / "window.ini"
    first = MainWindow()
    qtbot.addWidget(first)
    first.state_path = path
    first.servers_dock.show()
    first.save_state()
    saved = path.read_bytes()

    early = _app_window(qtbot)
    early.restore_geometry(path)
    early.save_state()  # a quit during start-up: the docks, and so the stored layout, are not back yet
    assert path.read_bytes() == saved
    early.build_later()
    assert early.restore_state(path) and early.servers_dock.isVisibleTo(early)
