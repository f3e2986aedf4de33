"""Host-level lifecycle: publishing :data:`HostEvent` s and restarting crashed servers with backoff.

Restart policy (decided here, documented in :class:`RestartSupervisor`):

* A server that was **ready and then died** (its process exited, its stream ended, a call saw the
  connection close, or it stopped answering after a call timed out) is restarted automatically
  after 1 s, then 2, 4, 8, 16, 30, 30 … s while the attempts keep failing (a failed start during
  the sequence counts as a failed attempt). Never a hot loop.
* A server that **fails at its first start** (command not found, bad config, exits at once,
  start-up timeout) is *not* restarted automatically: that needs the user's fix, then a manual
  restart. It is shown ``failed`` with the reason.
* A call to a server whose restart is under way waits for the next attempt's outcome (bounded by the
  call timeout: :meth:`RestartSupervisor.wait_attempt`) instead of failing at once.
* The backoff resets on a manual ``Host.restart`` and once a restarted server has stayed ready for
  ``stable_after`` seconds. After ``max_restarts`` consecutive attempts the host gives up and the
  server stays ``failed`` until restarted by hand.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from desktop_app.runtime.host_events import HostEvent, ServerStateChanged
from desktop_app.runtime.redaction import redact_event

logger = logging.getLogger(__name__)

HostListener = Callable[[HostEvent], None]
Sleep = Callable[[float], Awaitable[None]]

INITIAL_RESTART_DELAY = 1.0
MAX_RESTART_DELAY = 30.0
DEFAULT_MAX_RESTARTS = 10
DEFAULT_STABLE_AFTER = 60.0


def backoff_delay(attempt: int, *, initial: float = INITIAL_RESTART_DELAY, maximum: float = MAX_RESTART_DELAY) -> float:
    """The wait before automatic restart number ``attempt`` (1-based): 1, 2, 4, 8, 16, 30, 30, …"""
    return float(min(maximum, initial * 2 ** max(attempt - 1, 0)))


class EventBus:
    """Synchronous fan-out of host events. A listener that raises is logged and skipped."""

    def __init__(self) -> None:
        self._listeners: list[HostListener] = []

    def subscribe(self, listener: HostListener) -> Callable[[], None]:
        """Call ``listener`` for every event from now on; the returned function unsubscribes."""
        self._listeners.append(listener)

        def unsubscribe() -> None:
            with contextlib.suppress(ValueError):
                self._listeners.remove(listener)

        return unsubscribe

    def publish(self, event: HostEvent) -> None:
        event = redact_event(event)  # server errors and logs never reach a listener with a secret in them
        for listener in list(self._listeners):
            try:
                listener(event)
            except Exception:  # a broken listener must not break the host
                logger.exception("host event listener failed on %s", event.kind)


@dataclass
class _Track:
    """One server's restart sequence: the attempt, its phase and delay, and the task running it."""

    attempt: int = 0
    ready_since: float | None = None
    phase: str | None = None  # "waiting" (sleeping before the next attempt) or "restarting"
    delay: float | None = None
    task: asyncio.Task[None] | None = None
    settled: asyncio.Event | None = None  # set (and replaced) when an attempt ends or the sequence stops


class RestartSupervisor:
    """Restarts crashed servers with exponential backoff (see the module docstring for the policy).

    ``reconnect(server)`` replaces the server's connection with a new one and returns whether it
    became ready; ``describe(server)`` returns its current ``(error, tool_count)`` for events.
    """

    def __init__(
        self,
        *,
        reconnect: Callable[[str], Awaitable[bool]],
        describe: Callable[[str], tuple[str | None, int]],
        publish: HostListener,
        sleep: Sleep = asyncio.sleep,
        clock: Callable[[], float] = time.monotonic,
        max_restarts: int | None = DEFAULT_MAX_RESTARTS,
        stable_after: float = DEFAULT_STABLE_AFTER,
    ) -> None:
        self._reconnect = reconnect
        self._describe = describe
        self._publish = publish
        self._sleep = sleep
        self._clock = clock
        self.max_restarts = max_restarts
        self.stable_after = stable_after
        self._tracks: dict[str, _Track] = {}
        self._closed = False

    def _track(self, server: str) -> _Track:
        return self._tracks.setdefault(server, _Track())

    def attempt(self, server: str) -> int:
        track = self._tracks.get(server)
        return track.attempt if track is not None else 0

    def phase(self, server: str) -> tuple[str, float | None] | None:
        """``("waiting", delay)`` or ``("restarting", None)`` while a restart is under way, else ``None``."""
        track = self._tracks.get(server)
        if track is None or track.task is None or track.phase is None:
            return None
        return track.phase, track.delay

    def active(self, server: str) -> bool:
        track = self._tracks.get(server)
        return track is not None and track.task is not None and not track.task.done()

    async def wait_attempt(self, server: str, timeout: float) -> None:  # noqa: ASYNC109
        """Wait until the running restart sequence's next attempt ends (either way), at most ``timeout`` s.

        Returns at once when no restart is under way; the caller then looks at the server's state."""
        track = self._tracks.get(server)
        if track is None or not self.active(server):
            return
        if track.settled is None:
            track.settled = asyncio.Event()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(track.settled.wait(), timeout)

    @staticmethod
    def _settle(track: _Track) -> None:
        if track.settled is not None:
            track.settled.set()
            track.settled = None

    def ready(self, server: str) -> None:
        self._track(server).ready_since = self._clock()

    def crashed(self, server: str) -> None:
        """A ready server died: start (or continue) its restart sequence."""
        if self._closed or self.active(server):
            return
        track = self._track(server)
        if track.ready_since is not None and self._clock() - track.ready_since >= self.stable_after:
            track.attempt = 0
        track.ready_since = None
        track.task = asyncio.create_task(self._restart_loop(server, track), name=f"mcp-restart-{server}")

    async def reset(self, server: str) -> None:
        """Forget the backoff and stop a pending automatic restart (a manual restart is coming)."""
        track = self._tracks.pop(server, None)
        if track is not None and track.task is not None and track.task is not asyncio.current_task():
            track.task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await track.task

    async def aclose(self) -> None:
        self._closed = True
        for server in list(self._tracks):
            await self.reset(server)

    async def _restart_loop(self, server: str, track: _Track) -> None:
        try:
            while True:
                error, _count = self._describe(server)
                if self.max_restarts is not None and track.attempt >= self.max_restarts:
                    message = (
                        f"{error or 'the server keeps failing'}; gave up after {track.attempt} automatic "
                        "restarts, restart it by hand once it is fixed"
                    )
                    self._publish(
                        ServerStateChanged(server=server, state="failed", error=message, attempt=track.attempt)
                    )
                    return
                track.attempt += 1
                track.phase, track.delay = "waiting", backoff_delay(track.attempt)
                self._publish(
                    ServerStateChanged(
                        server=server, state="failed", error=error, restart_in_s=track.delay, attempt=track.attempt
                    )
                )
                await self._sleep(track.delay)
                track.phase, track.delay = "restarting", None
                self._publish(ServerStateChanged(server=server, state="restarting", attempt=track.attempt))
                ready = await self._reconnect(server)
                if ready:
                    return
                self._settle(track)  # a failed attempt: waiting calls learn that the server is down
        finally:
            track.phase, track.delay = None, None
            if track.task is asyncio.current_task():
                track.task = None
            self._settle(track)


__all__ = [
    "DEFAULT_MAX_RESTARTS",
    "DEFAULT_STABLE_AFTER",
    "INITIAL_RESTART_DELAY",
    "MAX_RESTART_DELAY",
    "EventBus",
    "HostListener",
    "RestartSupervisor",
    "Sleep",
    "backoff_delay",
]
