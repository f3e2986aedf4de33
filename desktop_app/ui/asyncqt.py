"""qasync glue: the one way the UI starts coroutines, and the asyncgen-hooks fix for qasync.

Every coroutine a Qt slot starts goes through ``TaskRunner.start`` (or the ``async_slot`` decorator, which
uses the owner's ``tasks`` runner). The runner keeps a strong reference to each task until it ends (the
loop only keeps weak ones) and hands any exception other than cancellation to one error callback, which
the main window points at its inline error display. Never ``exec()`` a modal dialog inside a coroutine:
use ``QDialog.open()`` and a signal instead.

``asyncio`` is imported where it is used, not with this module: the main window imports it before the first
paint, and asyncio (with ``ssl``) is not needed until the qasync loop starts after it.
"""

from __future__ import annotations

import functools
import logging
import sys
import time
import weakref
from collections.abc import Callable, Coroutine
from typing import TYPE_CHECKING, Any, ClassVar, Concatenate, ParamSpec, Protocol, TypeVar

from PySide6.QtCore import QEvent, QObject
from PySide6.QtWidgets import QApplication, QWidget

if TYPE_CHECKING:
    import asyncio

log = logging.getLogger(__name__)

P = ParamSpec("P")
T = TypeVar("T")
ErrorHandler = Callable[[BaseException], None]


def install_asyncgen_hooks(loop: asyncio.AbstractEventLoop) -> None:
    """Install the loop's async-generator hooks, which qasync's ``run_forever`` forgets.

    Without them, an ``async for`` that breaks out of an SSE stream leaves nested async generators to be
    finalized synchronously by the GC ("async generator ignored GeneratorExit").
    """
    sys.set_asyncgen_hooks(
        firstiter=loop._asyncgen_firstiter_hook,  # type: ignore[attr-defined]
        finalizer=loop._asyncgen_finalizer_hook,  # type: ignore[attr-defined]
    )


class TaskRunner:
    """Starts coroutines as tasks on the running loop, keeps them alive and reports their failures."""

    _runners: ClassVar[weakref.WeakSet[TaskRunner]] = weakref.WeakSet()
    """Every runner alive (the window's, the quick prompt's, each dialog's): ``cancel_everywhere`` ends them."""

    def __init__(self, on_error: ErrorHandler | None = None) -> None:
        self.on_error: ErrorHandler | None = on_error
        self._tasks: set[asyncio.Task[Any]] = set()
        TaskRunner._runners.add(self)

    @classmethod
    async def cancel_everywhere(cls) -> None:
        """Cancel the tasks of every runner still alive (but not the calling task) and wait until they end."""
        import asyncio

        current = asyncio.current_task()
        tasks = [t for runner in list(cls._runners) for t in list(runner._tasks) if t is not current and not t.done()]
        for task in tasks:
            task.cancel()
        if tasks:
            await asyncio.wait(tasks)

    @property
    def pending(self) -> int:
        return len(self._tasks)

    def start(self, coro: Coroutine[Any, Any, T], *, name: str | None = None) -> asyncio.Task[T]:
        import asyncio

        task = asyncio.get_event_loop().create_task(coro, name=name)
        self._tasks.add(task)
        task.add_done_callback(self._done)
        return task

    def _done(self, task: asyncio.Task[Any]) -> None:
        self._tasks.discard(task)
        if task.cancelled():
            return
        exc = task.exception()
        if exc is None:
            return
        if self.on_error is None:
            log.error("unhandled error in %s", task.get_name(), exc_info=exc)
        else:
            try:
                self.on_error(exc)
            except Exception:  # the error display itself failed: log both, never raise into the loop
                log.exception("error handler failed while reporting %r", exc)

    def cancel_pending(self) -> None:
        """Ask every running task to stop, without waiting (for a widget that is going away)."""
        for task in list(self._tasks):
            task.cancel()

    async def cancel_all(self) -> None:
        """Cancel every task still running and wait until they have ended."""
        tasks = list(self._tasks)
        for task in tasks:
            task.cancel()
        if tasks:
            import asyncio

            await asyncio.gather(*tasks, return_exceptions=True)


class HasTasks(Protocol):
    tasks: TaskRunner


S = TypeVar("S", bound=HasTasks)


def async_slot(
    method: Callable[Concatenate[S, P], Coroutine[Any, Any, Any]],
) -> Callable[Concatenate[S, P], None]:
    """Turn an ``async def`` method into a plain slot that starts it on ``self.tasks``."""

    def slot(self: S, /, *args: P.args, **kwargs: P.kwargs) -> None:
        self.tasks.start(method(self, *args, **kwargs), name=method.__qualname__)

    functools.update_wrapper(slot, method)  # (not @wraps: its typed result is not the slot's signature)
    return slot


class _PaintFilter(QObject):
    """Application-wide event filter that resolves a future at the first paint of a window's widgets."""

    def __init__(self, window: QWidget, future: asyncio.Future[float]) -> None:
        super().__init__(window)
        self._window = window
        self._future = future

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if (
            event.type() == QEvent.Type.Paint
            and not self._future.done()
            and isinstance(watched, QWidget)
            and watched.window() is self._window
        ):
            self._future.set_result(time.perf_counter())
            app = QApplication.instance()
            if app is not None:
                app.removeEventFilter(self)
        return False


def first_paint(window: QWidget) -> asyncio.Future[float]:
    """A future resolved with ``time.perf_counter()`` when ``window`` (or a child) is first painted.

    Call it before ``window.show()``.
    """
    import asyncio

    future: asyncio.Future[float] = asyncio.get_event_loop().create_future()
    app = QApplication.instance()
    if app is None:
        raise RuntimeError("first_paint() needs a QApplication")
    app.installEventFilter(_PaintFilter(window, future))
    return future


def freeze_startup_objects() -> None:
    """Move every object alive now (modules, classes, pydantic schemas, Qt wrappers) out of the garbage
    collector's reach: a full collection then scans only what was made since, so it no longer stalls the UI
    thread for tens of milliseconds in the middle of a stream (measured: 25–75 ms per full collection of
    ~120k start-up objects). Called once the window is up."""
    import gc

    gc.collect()
    gc.freeze()
    release_freed_memory()


def release_freed_memory() -> None:
    """Hand the heap pages that start-up used and freed (import-time temporaries: pydantic schema building,
    compiled regexes, parsed configs) back to the operating system. glibc keeps freed memory in its arenas
    and returns only the top of the heap on its own; ``malloc_trim`` releases the free pages in between
    (measured: several MB of idle RSS, ``benchmarks/idle_memory.py``). Elsewhere, nothing to do."""
    if not sys.platform.startswith("linux"):
        return
    import ctypes
    import ctypes.util

    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        libc.malloc_trim(0)
    except (OSError, AttributeError):  # not glibc (musl has no malloc_trim)
        log.debug("malloc_trim is not available here")
