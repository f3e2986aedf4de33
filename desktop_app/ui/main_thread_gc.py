"""Python's cyclic garbage collector, run on the UI thread only, when its event loop is about to wait.

Python's automatic collector runs in whichever thread makes the allocation that passes a threshold. In this app
that can be a worker thread: qasync's executor (``asyncio.to_thread``, ``run_in_executor``), the thread that
imports the runtime, the SDK's. A collection there frees whatever Qt objects garbage cycles held. A closed dialog,
its timers, its animations are all objects of the UI thread, and Qt cannot stop a timer from another thread: the
timer stays registered on freed memory, and its next tick crashes the process. The UI tests hit that crash in
``QTimerInfoList::activateTimers`` right after a collection in one of qasync's executor threads. A collection at
the wrong moment on the UI thread is no better: PySide's lists of widgets crash if it runs mid-list
(``widget_lists``).

:func:`collect_on_ui_thread` turns the automatic collector off and collects in the one safe place instead: on
the UI thread, when its event loop is about to wait (``QAbstractEventDispatcher.aboutToBlock``). At that point no
Qt list is half-walked and no handler is running. It collects the generations whose counts passed their
thresholds, as the automatic collector would have (:func:`collect_due`). There is no timer: an idle app does not
wake up for this. ``App.run`` installs it once the runtime is ready; ``app.main`` restores automatic collection
when the loop is over.
"""

from __future__ import annotations

import gc

from PySide6.QtCore import QAbstractEventDispatcher, QObject, QThread


def collect_due() -> int | None:
    """Collect the generations the automatic collector would collect now; the oldest one collected, or None
    when nothing is due (the youngest generation's count has not passed its threshold)."""
    threshold0, threshold1, threshold2 = gc.get_threshold()
    count0, count1, count2 = gc.get_count()
    if threshold0 <= 0 or count0 <= threshold0:
        return None
    generation = 0
    if count1 > threshold1:
        generation = 2 if count2 > threshold2 else 1
    gc.collect(generation)
    return generation


class UiThreadCollector(QObject):
    """Automatic collection off; :func:`collect_due` each time the UI thread's event loop is about to wait."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("uiThreadCollector")
        dispatcher = QAbstractEventDispatcher.instance(QThread.currentThread())
        if dispatcher is None:
            raise RuntimeError("collect_on_ui_thread() needs the UI thread's event dispatcher (a QApplication)")
        self.dispatcher = dispatcher
        self.passes = 0
        """Collections made here (tests and the curious)."""
        gc.disable()
        dispatcher.aboutToBlock.connect(self.collect)

    def collect(self) -> None:
        if collect_due() is not None:
            self.passes += 1

    def stop(self) -> None:
        """Stop collecting here (automatic collection stays off: the caller restores it when it is safe)."""
        try:
            self.dispatcher.aboutToBlock.disconnect(self.collect)
        except (RuntimeError, TypeError):  # already disconnected, or the dispatcher is gone
            pass


def collect_on_ui_thread(parent: QObject | None = None) -> UiThreadCollector:
    """Turn automatic collection off; collect on this (the UI) thread when its event loop is about to wait."""
    return UiThreadCollector(parent)


__all__ = ["UiThreadCollector", "collect_due", "collect_on_ui_thread"]
