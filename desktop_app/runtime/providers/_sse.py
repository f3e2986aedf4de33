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
* ``assemble_stream`` — the read loop both dialects share: decode each frame, feed it to the dialect's
  ``FrameAssembler``, report progress to the reader, end with the assembler's ``Completion`` once the answer
  is whole, and raise ``StreamDisconnected`` when the body ends before that. After the answer is whole the
  rest of the body (the trailing usage frame of ``stream_options.include_usage``) is still read, until
  ``[DONE]``, the end of the body or a short grace period, so a server that never closes cannot hang a run.
"""

from __future__ import annotations

import asyncio
import contextlib
import enum
import json
from collections.abc import AsyncGenerator, AsyncIterator, Iterable, Iterator
from typing import Any, Protocol

import httpx

from desktop_app.runtime.errors import ProviderError, StreamDisconnected, StreamStalled
from desktop_app.runtime.providers.base import Completion, ProviderEvent, is_progress

DEFAULT_IDLE_TIMEOUT = 90.0
DEFAULT_FINISH_GRACE = 2.0
"""Seconds the tail after a finished answer (usage frame, ``[DONE]``) may take before the run goes on without it."""


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


class FrameAssembler(Protocol):
    """One dialect's pure assembly of decoded frames into provider events (its ``StreamAssembler``)."""

    progressed: bool
    """Some model output (content, reasoning or a tool-call delta) came out of ``feed``."""

    @property
    def finished(self) -> bool:
        """The answer is whole: ``complete()`` may be called without reading the rest of the body."""
        ...

    def feed(self, frame: dict[str, Any]) -> list[ProviderEvent]: ...

    def complete(self) -> Completion: ...


async def _read_tail(frames: AsyncIterator[str], assembler: FrameAssembler, grace: float) -> list[ProviderEvent]:
    """The events of the frames after a finished answer, read until ``[DONE]``, the end, or ``grace`` seconds.

    The answer is already whole, so whatever goes wrong here (silence, a dropped connection, an error frame)
    only ends the tail: the run proceeds with what was received.
    """
    events: list[ProviderEvent] = []
    with contextlib.suppress(TimeoutError, ProviderError):
        async with asyncio.timeout(grace):
            async for data in frames:
                frame = decode_data(data)
                if frame is DONE:
                    break
                if isinstance(frame, dict):
                    events += assembler.feed(frame)
    return events


async def assemble_stream(
    lines: AsyncIterator[str],
    assembler: FrameAssembler,
    *,
    idle_timeout: float,
    done_completes: bool,
    finish_grace: float = 0.0,
) -> AsyncGenerator[ProviderEvent, None]:
    """The provider events of one SSE body as ``assembler`` reads them, ending with exactly one ``Completion``.

    Blank and malformed frames are skipped. ``data: [DONE]`` ends the answer when ``done_completes``, and is
    skipped otherwise. The answer also ends as soon as ``assembler.finished``; with ``finish_grace`` the frames
    after that (e.g. the usage frame that follows ``finish_reason: tool_calls``) are still read, up to
    ``[DONE]``, the end of the body or ``finish_grace`` seconds, whichever comes first. Raises ``StreamStalled`` (see
    ``SSEReader``), whatever ``feed`` raises, and ``StreamDisconnected`` when the body ends first; both stream
    errors say whether output was already emitted.
    """
    reader = SSEReader(lines, idle_timeout=idle_timeout)
    async with contextlib.aclosing(reader.frames()) as frames:
        async for data in frames:
            frame = decode_data(data)
            if frame is DONE and done_completes:
                yield assembler.complete()
                return
            if not isinstance(frame, dict):
                continue  # blank, malformed, or a [DONE] this dialect does not end on: skipped
            for event in assembler.feed(frame):
                if is_progress(event):
                    reader.mark_progress()
                yield event
            if assembler.finished:
                if finish_grace > 0:
                    for event in await _read_tail(frames, assembler, finish_grace):
                        yield event
                yield assembler.complete()
                return
    raise StreamDisconnected(
        "The model stream ended before the answer was complete. Try again.",
        after_progress=assembler.progressed,
    )
