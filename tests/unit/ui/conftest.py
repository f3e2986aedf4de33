"""Qt fixtures for the UI tests: a qasync loop already running inside Qt, for sync tests driven by qtbot.

Never use ``qtbot.waitSignal``/``waitUntil`` inside an ``async def`` test (the nested Qt loop does not
advance asyncio tasks and the test hangs): write sync tests with ``qloop`` and wait with qtbot instead.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Iterator

import pytest
import qasync
from PySide6.QtWidgets import QApplication

from desktop_app.ui.asyncqt import install_asyncgen_hooks
from desktop_app.ui.qt_loop import EventLoop
from desktop_app.ui.window.main_window import MainWindow
from tests.support.fake_runtime import FakeRuntime


@pytest.fixture
def qloop(qapp: QApplication) -> Iterator[qasync.QEventLoop]:
    """A qasync loop marked as running (Qt's own loop drives it while qtbot waits).

    Teardown does not call ``loop.stop()``: with ``already_running=True`` that calls
    ``QApplication.exit()`` while no ``exec()`` runs, after which Qt timers stop firing inside later
    tests' qtbot waits (the next test's tasks never start). Mark the loop stopped directly instead.
    """
    old_hooks = sys.get_asyncgen_hooks()
    loop = EventLoop(qapp, already_running=True)  # the app's loop (qasync, cancelled timers released)
    asyncio.set_event_loop(loop)
    install_asyncgen_hooks(loop)
    yield loop
    for task in asyncio.all_tasks(loop):
        task.cancel()
    qapp.processEvents()
    qapp.processEvents()
    asyncio.events._set_running_loop(None)
    loop._QEventLoop__is_running = False  # type: ignore[attr-defined]  # not stop(): see docstring
    loop.close()
    asyncio.set_event_loop(None)
    sys.set_asyncgen_hooks(*old_hooks)


@pytest.fixture
def restore_app_look(qapp: QApplication) -> Iterator[None]:
    """The application's palette and stylesheet as they were, and no theme installed, after the test (a test
    that applies a theme calls ``apply_theme`` itself)."""
    from desktop_app.ui.theme import themes

    palette, sheet = QApplication.palette(), qapp.styleSheet()
    yield
    qapp.setStyleSheet(sheet)
    QApplication.setPalette(palette)
    themes.uninstall()


@pytest.fixture
def fake_runtime() -> FakeRuntime:
    return FakeRuntime()


@pytest.fixture
def window(qtbot, qloop, fake_runtime: FakeRuntime) -> MainWindow:
    win = MainWindow()
    qtbot.addWidget(win)
    win.attach_runtime(fake_runtime)
    win.show()
    qtbot.waitExposed(win)
    return win
