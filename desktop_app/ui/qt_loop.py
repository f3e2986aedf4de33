"""The app's asyncio loop: qasync's ``QEventLoop``, with cancelled timers released at once.

qasync runs every ``call_later``/``call_at`` as a Qt timer holding a plain ``asyncio.Handle``. Cancelling
that handle only marks it: the Qt timer keeps running and the handle (with its callback's context) stays in
qasync's table until the delay is over. ``asyncio.timeout`` arms such a timer for each awaited step and
cancels it when the step is done; the SSE reader does that per streamed line with the 90 s stall timeout,
so a busy session kept tens of thousands of dead timers alive (``benchmarks/soak.py``: ~170 KB more memory
per turn, and a Qt timer list that only grew). Here ``call_later`` hands out a handle whose ``cancel()``
kills its Qt timer and drops it from the table, as asyncio's own loops do with ``TimerHandle``.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from contextvars import Context
from typing import Any

import qasync


class _ReleasingHandle(asyncio.Handle):
    """A handle that tells its timer table when it is cancelled."""

    __slots__ = ("_release",)

    def __init__(self, callback: Callable[..., object], args: tuple[Any, ...], loop: Any, context: Context | None):
        super().__init__(callback, args, loop, context=context)
        self._release: Callable[[], None] | None = None

    def cancel(self) -> None:
        release, self._release = self._release, None
        super().cancel()
        if release is not None:
            release()


class _Timers(qasync._SimpleTimer):  # type: ignore[misc]  # qasync ships no types
    """qasync's timer table, which also forgets a timer whose handle was cancelled (loop thread only)."""

    def __init__(self) -> None:
        super().__init__()
        self._owner = threading.get_ident()

    def add_callback(self, handle: asyncio.Handle, delay: float = 0) -> asyncio.Handle:
        handle = super().add_callback(handle, delay)
        if isinstance(handle, _ReleasingHandle):
            table: dict[int, asyncio.Handle] = self._SimpleTimer__callbacks
            timer_id = next(key for key in reversed(table) if table[key] is handle)  # the one just added
            handle._release = lambda: self._forget(timer_id, handle)
        return handle

    def _forget(self, timer_id: int, handle: asyncio.Handle) -> None:
        if threading.get_ident() != self._owner:
            return  # Qt timers can only be stopped by their own thread; this one fires and is skipped
        table: dict[int, asyncio.Handle] = self._SimpleTimer__callbacks
        if table.get(timer_id) is handle:
            del table[timer_id]
            self.killTimer(timer_id)


class EventLoop(qasync.QEventLoop):  # type: ignore[misc]
    """``qasync.QEventLoop`` whose cancelled timers are released at once (see the module docstring)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._timer = _Timers()

    def call_later(
        self, delay: float, callback: Callable[..., object], *args: Any, context: Context | None = None
    ) -> asyncio.Handle:
        if asyncio.iscoroutinefunction(callback):
            raise TypeError("coroutines cannot be used with call_later")
        if not callable(callback):
            raise TypeError(f"callback must be callable: {type(callback).__name__}")
        return self._add_callback(_ReleasingHandle(callback, args, self, context), delay)  # type: ignore[no-any-return]
