"""SSE framing, frame decoding and idle-stall detection (``desktop_app.runtime.providers._sse``)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterable

import httpx
import pytest

from desktop_app.runtime.errors import StreamDisconnected, StreamStalled
from desktop_app.runtime.providers._sse import DONE, SSEDecoder, SSEReader, decode_data, iter_data, stall_message


def test_keepalives_event_and_id_lines_are_ignored() -> None:
    lines = [": keep-alive", "", "event: message", "id: 7", 'data: {"a": 1}', "", ": ping", ""]
    assert list(iter_data(lines)) == ['{"a": 1}']


def test_multi_line_data_is_trimmed_and_joined_with_newlines() -> None:
    lines = ["data:   first  ", "data:second", "data:", "", "data: next", ""]
    assert list(iter_data(lines)) == ["first\nsecond\n", "next"]


def test_blank_lines_without_data_dispatch_nothing() -> None:
    decoder = SSEDecoder()
    assert [decoder.feed(line) for line in ["", "  ", ""]] == [None, None, None]
    assert decoder.flush() is None


def test_remaining_data_is_dispatched_at_eof() -> None:
    decoder = SSEDecoder()
    assert decoder.feed("data: [DONE]") is None
    assert decoder.flush() == "[DONE]"
    assert decoder.flush() is None
    assert list(iter_data(["data: a", "", "data: tail"])) == ["a", "tail"]


def test_decode_data() -> None:
    assert decode_data("[DONE]") is DONE
    assert decode_data(" [DONE] ") is DONE
    assert decode_data('{"choices": []}') == {"choices": []}
    assert decode_data("{not-json}") is None
    assert decode_data("") is None
    assert decode_data("   ") is None
    assert decode_data("[1, 2]") is None  # valid JSON but not a frame object


# ---- SSEReader ----------------------------------------------------------------------------------------


class Lines:
    """Scripted network lines: strings are delivered at once; ``None`` is silence until cancelled."""

    def __init__(self, script: Iterable[str | Exception | None]) -> None:
        self.script = list(script)
        self.closed = False

    async def _gen(self) -> AsyncIterator[str]:
        try:
            for item in self.script:
                if item is None:
                    await asyncio.Event().wait()  # scripted silence: never set
                elif isinstance(item, Exception):
                    raise item
                else:
                    yield item
        finally:
            self.closed = True

    def __call__(self) -> AsyncIterator[str]:
        return self._gen()


async def _read_all(reader: SSEReader, *, progress_on: str | None = None) -> list[str]:
    out = []
    async for data in reader.frames():
        out.append(data)
        if data == progress_on:
            reader.mark_progress()
    return out


@pytest.mark.asyncio
async def test_reader_yields_frames_and_closes_lines() -> None:
    lines = Lines(["data: one", "", ": keep-alive", "", "data: two"])
    reader = SSEReader(lines(), idle_timeout=5)
    assert await _read_all(reader) == ["one", "two"]
    assert lines.closed


@pytest.mark.asyncio
async def test_reader_stalls_before_progress() -> None:
    lines = Lines(["data: {}", "", None])
    reader = SSEReader(lines(), idle_timeout=0.05)
    with pytest.raises(StreamStalled) as info:
        await _read_all(reader)
    assert info.value.after_progress is False
    assert info.value.retryable is True
    assert "no output for 0.05 s" in str(info.value)
    assert "raise the stall timeout in settings" in str(info.value)
    assert lines.closed


@pytest.mark.asyncio
async def test_reader_stalls_after_progress() -> None:
    lines = Lines(["data: progress", "", None])
    reader = SSEReader(lines(), idle_timeout=0.05)
    with pytest.raises(StreamStalled) as info:
        await _read_all(reader, progress_on="progress")
    assert info.value.after_progress is True
    assert info.value.retryable is False


@pytest.mark.asyncio
async def test_keepalives_do_not_reset_the_idle_timer() -> None:
    """Keep-alives after the last model output do not restart the idle timer: the stall is reported one idle
    timeout after that output, while the keep-alives still come (a body that kept them coming for 3 s and then
    ended would be a disconnect, not a stall)."""
    idle_timeout = 0.2

    async def progress_then_keepalives() -> AsyncIterator[str]:
        yield "data: progress"
        yield ""
        for _ in range(300):  # a keep-alive every 10 ms (scripted pacing) for 3 s, then the body ends
            await asyncio.sleep(0.01)
            yield ": keep-alive"
            yield ""

    loop = asyncio.get_running_loop()
    reader = SSEReader(progress_then_keepalives(), idle_timeout=idle_timeout)
    progress_at: list[float] = []

    async def read() -> None:
        async for data in reader.frames():
            if data == "progress":
                reader.mark_progress()
                progress_at.append(loop.time())

    with pytest.raises(StreamStalled) as info:
        await read()
    stalled_after = loop.time() - progress_at[0]
    assert info.value.after_progress is True
    assert idle_timeout - 0.001 <= stalled_after < idle_timeout + 0.3, stalled_after


def test_stall_message() -> None:
    assert stall_message(90.0) == (
        "The model stream stalled: no output for 90 s. "
        "Try again; if it keeps happening, raise the stall timeout in settings."
    )
    assert "no output for 0.2 s." in stall_message(0.2)


@pytest.mark.asyncio
async def test_transport_error_is_a_disconnect() -> None:
    lines = Lines(["data: x", "", httpx.RemoteProtocolError("peer closed connection")])
    reader = SSEReader(lines(), idle_timeout=5)
    with pytest.raises(StreamDisconnected) as info:
        await _read_all(reader, progress_on="x")
    assert info.value.after_progress is True
    assert "peer closed connection" in str(info.value)


@pytest.mark.asyncio
async def test_httpx_read_timeout_is_a_stall() -> None:
    lines = Lines([httpx.ReadTimeout("timed out")])
    reader = SSEReader(lines(), idle_timeout=5)
    with pytest.raises(StreamStalled) as info:
        await _read_all(reader)
    assert info.value.after_progress is False


def test_idle_timeout_must_be_positive() -> None:
    with pytest.raises(ValueError, match="positive"):
        SSEReader(Lines([])(), idle_timeout=0)
