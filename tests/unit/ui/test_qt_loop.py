"""The app's qasync loop releases cancelled timers at once: ``asyncio.timeout`` per awaited step (as the SSE
reader does per streamed line) no longer leaves a live Qt timer and handle behind for each step."""

from __future__ import annotations

import asyncio
import threading

import qasync

from desktop_app.ui.qt_loop import EventLoop


def _live_timers(loop: qasync.QEventLoop) -> int:
    return len(loop._timer._SimpleTimer__callbacks)


def _timeouts_per_step(loop: qasync.QEventLoop, qtbot, steps: int = 500) -> int:
    async def stream() -> int:
        for _ in range(steps):
            async with asyncio.timeout(90):  # the stall timeout around each line
                await asyncio.sleep(0)
        return _live_timers(loop)

    task = loop.create_task(stream())
    qtbot.waitUntil(task.done, timeout=10_000)
    return task.result()


def test_cancelled_timeouts_leave_no_timers_behind(qapp, qtbot):
    loop = EventLoop(qapp, already_running=True)
    try:
        assert _timeouts_per_step(loop, qtbot) <= 2  # the step in flight, not 500 dead 90 s timers
    finally:
        loop._QEventLoop__is_running = False
        loop.close()


def test_plain_qasync_keeps_them_which_is_what_the_app_loop_fixes(qapp, qtbot):
    loop = qasync.QEventLoop(qapp, already_running=True)
    try:
        assert _timeouts_per_step(loop, qtbot) >= 500
    finally:
        loop._QEventLoop__is_running = False
        loop.close()


def test_timers_still_fire_and_cancelled_ones_do_not(qapp, qtbot):
    loop = EventLoop(qapp, already_running=True)
    fired: list[str] = []
    try:
        loop.call_later(0.01, fired.append, "kept")
        loop.call_later(0.01, fired.append, "cancelled").cancel()
        off_thread = loop.call_later(0.02, fired.append, "cancelled from another thread")
        worker = threading.Thread(target=off_thread.cancel)
        worker.start()
        worker.join()
        loop.call_soon(fired.append, "soon")
        qtbot.waitUntil(lambda: "kept" in fired and "soon" in fired, timeout=5_000)
        qtbot.waitUntil(lambda: _live_timers(loop) == 0, timeout=5_000)  # the off-thread one fired as a no-op
        assert sorted(fired) == ["kept", "soon"]
    finally:
        loop._QEventLoop__is_running = False
        loop.close()
