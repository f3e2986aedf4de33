"""SIGTERM and SIGHUP reaching the app mid-answer: the ordered shutdown stops the run and stores it as
stopped with its partial answer, as Ctrl+C does (the real app in-process: ``App``, the real assembly and
store, the loopback SSE server holding the stream; the signal is a real one, to this process)."""

from __future__ import annotations

import json
import os
import signal
import sys
import time

import pytest
from PySide6.QtWidgets import QApplication

from desktop_app.app import App
from desktop_app.paths import app_paths
from desktop_app.runtime.store import Store, store_path
from desktop_app.ui.chat.blocks import AnswerBlock
from desktop_app.ui.window.main_window import MainWindow
from desktop_app.ui.window.quit_signals import install_quit_signals
from tests.support.llm_server import Gate, Reply, chunk

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP])
def test_a_signal_mid_answer_stops_the_run_and_stores_it_as_stopped(qtbot, qloop, llm_server, signum):
    paths = app_paths().ensure()
    paths.settings_file.write_text(json.dumps({"provider": {"base_url": llm_server.url, "model": "m"}}))
    gate = Gate()
    llm_server.enqueue(Reply(steps=[chunk(content="Half an answer"), gate]))
    window = MainWindow()
    qtbot.addWidget(window)
    app = App(QApplication.instance(), window, paths, time.perf_counter(), smoke=False)  # type: ignore[arg-type]
    quit_signals = install_quit_signals(app.request_quit)
    run = qloop.create_task(app.run())
    try:
        qtbot.waitUntil(lambda: app.runtime is not None and window.controller is not None, timeout=30_000)
        window.composer.edit.setPlainText("tell me a long story")
        window.composer.button.click()

        def partial_shown() -> bool:
            answers = [b for b in window.view.blocks() if isinstance(b, AnswerBlock)]
            return bool(answers) and "Half an answer" in answers[-1].text

        qtbot.waitUntil(partial_shown, timeout=15_000)  # the stream is held at the gate now
        os.kill(os.getpid(), signum)
        qtbot.waitUntil(run.done, timeout=30_000)
        assert run.result() == 0 and quit_signals.received == [signum]
    finally:
        gate.open()
        quit_signals.close()
        if not run.done():
            app.request_quit()
            qtbot.waitUntil(run.done, timeout=30_000)
        QApplication.instance().lastWindowClosed.disconnect(app.request_quit)
    with Store.open(store_path(paths)) as store:
        [info] = store.list_conversations()
        [stored_run] = store.runs(info.id).values()
        assert stored_run.status == "cancelled"
        answer = [m for m in store.messages(info.id) if m.role == "assistant"]
        assert [(m.status, m.text_of("text")) for m in answer] == [("stopped", "Half an answer")]


def test_quitting_ends_a_task_a_dialog_started_instead_of_leaving_it_pending(qtbot, qloop, caplog):
    """The welcome screen's probe (its own task runner) still waiting when the app quits is cancelled by
    the ordered shutdown; the loop never destroys it pending ("Task was destroyed but it is pending")."""
    import asyncio

    from desktop_app.ui.asyncqt import TaskRunner

    paths = app_paths().ensure()
    window = MainWindow()
    qtbot.addWidget(window)
    app = App(QApplication.instance(), window, paths, time.perf_counter(), smoke=False)  # type: ignore[arg-type]
    dialog_tasks = TaskRunner()  # as a dialog holds: not the window's runner, which shutdown cancels anyway
    never = asyncio.Event()
    run = qloop.create_task(app.run())
    try:
        qtbot.waitUntil(lambda: app.runtime is not None, timeout=30_000)
        probe = dialog_tasks.start(never.wait(), name="WelcomeDialog.auto_detect")
        app.request_quit()
        qtbot.waitUntil(run.done, timeout=30_000)
        assert run.result() == 0
        assert probe.cancelled()
    finally:
        if not run.done():
            app.request_quit()
            qtbot.waitUntil(run.done, timeout=30_000)
        QApplication.instance().lastWindowClosed.disconnect(app.request_quit)
