"""Server-sent-events decoding for chat-completions streams, and idle-stall detection.

This module owns three small pieces:

* ``SSEDecoder`` — pure line framing (Whale §1.2): a ``data:`` line has its prefix removed and is
  whitespace-trimmed; every other line (``: keep-alive`` comments, ``event:``, ``id:``) is ignored; a blank
  line joins the buffered data lines with ``\\n`` and dispatches them; ``flush()`` dispatches what is left
  at end of stream.
* ``decode_data`` — pure frame decoding: ``[DONE]`` becomes ``DONE``, a JSON object becomes a dict, and
  blank or malformed data becomes ``None`` (silently skipped, never an error).
* ``SSEReader`` — reads lines from the network and yields the data frames, raising ``StreamStalled`` when
  no *model progress* arrives for ``idle_timeout`` seconds of waiting. The consumer reports progress with
  ``mark_progress()``; keep-alive comments and other non-progress frames do not reset the timer.
"""

from __future__ import annotations

import asyncio
import enum
import json
from collections.abc import AsyncGenerator, AsyncIterator, Iterable, Iterator
from typing import Any

import httpx

from desktop_app.runtime.errors import StreamDisconnected, StreamStalled

DEFAULT_IDLE_TIMEOUT = 90.0


class Done(enum.Enum):
    """The type of the ``DONE`` sentinel (the ``data: [DONE]`` frame)."""

    DONE = "[DONE]"


DONE = Done.DONE


class SSEDecoder:
    """Frames SSE lines (without their line endings) into data payloads."""

    def __init__(self) -> None:
        self._data: list[str] = []

    def feed(self, line: str) -> str | None:
        """Take one line; return the joined data of a frame when ``line`` ends one, else ``None``."""
        if not line.strip():
            return self._dispatch()
        if line.startswith("data:"):
            self._data.append(line[len("data:") :].strip())
        return None

    def flush(self) -> str | None:
        """End of stream: return any buffered data that no blank line dispatched."""
        return self._dispatch()

    def _dispatch(self) -> str | None:
        if not self._data:
            return None
        data = "\n".join(self._data)
        self._data.clear()
        return data


def iter_data(lines: Iterable[str]) -> Iterator[str]:
    """Every data payload in ``lines``, including the one left at the end."""
    decoder = SSEDecoder()
    for line in lines:
        data = decoder.feed(line)
        if data is not None:
            yield data
    tail = decoder.flush()
    if tail is not None:
        yield tail


def decode_data(data: str) -> dict[str, Any] | Done | None:
    """Decode one frame's data: ``DONE``, a JSON object, or ``None`` for blank or malformed data."""
    text = data.strip()
    if not text:
        return None
    if text == "[DONE]":
        return DONE
    try:
        value = json.loads(text)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def stall_message(idle_timeout: float) -> str:
    """What a stall error says: how long the model was silent and what to do."""
    return (
        f"The model stream stalled: no output for {idle_timeout:g} s. "
        "Try again; if it keeps happening, raise the stall timeout in settings."
    )


class SSEReader:
    """Yields the data frames of a live stream, watching for stalls.

    Only time spent waiting for the network counts towards the idle timeout, so a slow consumer cannot
    cause a stall. ``lines`` is closed when reading stops, however it stops.
    """

    def __init__(self, lines: AsyncIterator[str], *, idle_timeout: float = DEFAULT_IDLE_TIMEOUT) -> None:
        if idle_timeout <= 0:
            raise ValueError("idle_timeout must be positive")
        self._lines = lines
        self._idle_timeout = idle_timeout
        self._idle = 0.0
        self._progressed = False

    @property
    def progressed(self) -> bool:
        """Whether the consumer has reported any model progress on this stream."""
        return self._progressed

    def mark_progress(self) -> None:
        """The model produced output (content, reasoning or a tool-call delta): restart the idle timer."""
        self._progressed = True
        self._idle = 0.0

    def _stalled(self) -> StreamStalled:
        return StreamStalled(stall_message(self._idle_timeout), after_progress=self._progressed)

    def _disconnected(self, exc: Exception) -> StreamDisconnected:
        detail = str(exc) or type(exc).__name__
        return StreamDisconnected(
            f"The connection to the model dropped mid-answer ({detail}). Try again.",
            after_progress=self._progressed,
        )

    async def frames(self) -> AsyncGenerator[str, None]:
        """The data payload of each frame, in order, until the stream ends."""
        loop = asyncio.get_running_loop()
        decoder = SSEDecoder()
        try:
            while True:
                remaining = self._idle_timeout - self._idle
                if remaining <= 0:
                    raise self._stalled()
                started = loop.time()
                try:
                    async with asyncio.timeout(remaining):
                        line = await anext(self._lines)
                except StopAsyncIteration:
                    break
                except TimeoutError:
                    raise self._stalled() from None
                except httpx.TimeoutException as exc:
                    raise self._stalled() from exc
                except httpx.TransportError as exc:
                    raise self._disconnected(exc) from exc
                finally:
                    self._idle += loop.time() - started
                data = decoder.feed(line)
                if data is not None:
                    yield data
            tail = decoder.flush()
            if tail is not None:
                yield tail
        finally:
            aclose = getattr(self._lines, "aclose", None)
            if aclose is not None:
                await aclose()
