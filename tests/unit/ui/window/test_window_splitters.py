"""Splitter sizes (the tools panel, the Servers dock and its log) come back after a restart on the same home,
with the geometry and the docks, in the app's order: the shell first, the docks after the first paint."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import QSplitter

from desktop_app.ui.window.main_window import MainWindow

NAMES = ("toolPanelSplitter", "serversSplitter", "serverLogSplitter")


def _start(qtbot, path: Path) -> MainWindow:
    window = MainWindow(defer_rest=True)  # as desktop_app.app builds it
    qtbot.addWidget(window)
    window.restore_geometry(path)
    window.show()
    window.build_rest()
    window.restore_state(path)
    return window


def _show_all(window: MainWindow) -> None:
    screen = window.screen().availableGeometry()
    window.resize(screen.width(), screen.height())  # room to move each handle (restoreGeometry keeps to the screen)
    window.servers_dock.show()
    window.tools_dock.show()
    panel = window.servers_dock.panel
    panel.inspector.tabs.setCurrentWidget(panel.details)  # the server log, with its splitter


def _splitters(window: MainWindow) -> dict[str, QSplitter]:
    return {s.objectName(): s for s in window.findChildren(QSplitter) if s.objectName() in NAMES}


def test_splitter_sizes_survive_a_restart_on_the_same_home(qtbot, qloop, tmp_path):
    path = tmp_path / "home" / "config" / "window.ini"
    first = _start(qtbot, path)
    _show_all(first)
    splitters = _splitters(first)
    assert set(splitters) == set(NAMES)
    qtbot.waitUntil(lambda: all(sum(s.sizes()) > 100 for s in splitters.values()), timeout=3000)
    chosen = {}
    for name, splitter in splitters.items():
        default = splitter.sizes()
        total = sum(default)
        for split in ([total // 6, total - total // 6], [total - total // 6, total // 6]):
            splitter.setSizes(split)  # what a drag of the handle does (as far as the panes' minimums let it)
            if splitter.sizes() != default:
                break
        chosen[name] = splitter.sizes()
        assert chosen[name] != default, name  # not the split a fresh window gets
    first.close()  # closing saves
    assert path.is_file()

    second = _start(qtbot, path)
    second.servers_dock.panel.inspector.tabs.setCurrentWidget(second.servers_dock.panel.details)
    restored = _splitters(second)
    qtbot.waitUntil(lambda: all(sum(s.sizes()) > 100 for s in restored.values()), timeout=3000)
    assert second.servers_dock.isVisible() and second.tools_dock.isVisible()
    # The pane the handle moved has its size back; the other takes what the (screen-bound) dock has left.
    assert {name: s.sizes()[0] for name, s in restored.items()} == {name: sizes[0] for name, sizes in chosen.items()}
