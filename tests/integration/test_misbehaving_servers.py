"""Failure is an error result, never a hang: crashes, hangs, garbage on stdout, stderr floods, slow starts."""

from __future__ import annotations

import sys
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import anyio
import pytest
import pytest_asyncio

from desktop_app.runtime.events import HostEvent, ServerStateChanged
from desktop_app.runtime.host import Host, ServerConfig

pytestmark = pytest.mark.integration

SCRIPT = Path(__file__).resolve().parents[1] / "support" / "misbehaving_server.py"


def server(mode: str = "normal", **fields: object) -> ServerConfig:
    return ServerConfig.model_validate({"command": sys.executable, "args": [str(SCRIPT), mode], **fields})


async def no_wait(_delay: float) -> None:
    return None


class Recorder:
    """Collects host events; ``await wait(predicate)`` returns once an event matches (bounded)."""

    def __init__(self, host: Host) -> None:
        self.events: list[HostEvent] = []
        self._changed = anyio.Event()
        self.unsubscribe = host.subscribe(self._on_event)

    def _on_event(self, event: HostEvent) -> None:
        self.events.append(event)
        self._changed.set()
        self._changed = anyio.Event()

    async def wait(self, predicate: Callable[[HostEvent], bool], timeout: float = 20) -> HostEvent:  # noqa: ASYNC109
        with anyio.fail_after(timeout):
            while True:
                found = next((event for event in self.events if predicate(event)), None)
                if found is not None:
                    return found
                await self._changed.wait()


@pytest_asyncio.fixture
async def host() -> AsyncIterator[Host]:
    host = Host(
        {"bad": server(), "good": server()},
        call_timeout=1,
        startup_timeout=20,
        sleep=no_wait,
    )
    await host.start()
    yield host
    await host.aclose()


@pytest.mark.asyncio
async def test_crash_mid_call_is_an_error_and_the_server_comes_back(host: Host) -> None:
    recorder = Recorder(host)
    outcome = await host.call("bad", "crash", {})
    assert outcome.is_error and "stopped while running 'crash'" in outcome.text
    failed = await recorder.wait(lambda e: isinstance(e, ServerStateChanged) and e.state == "failed")
    assert isinstance(failed, ServerStateChanged)
    assert (failed.restart_in_s, failed.attempt) == (1.0, 1)
    assert failed.error is not None and "about to exit" in failed.error
    await recorder.wait(lambda e: isinstance(e, ServerStateChanged) and e.state == "ready")
    assert [e.state for e in recorder.events if isinstance(e, ServerStateChanged)] == ["failed", "restarting", "ready"]
    assert (await host.call("bad", "ok", {})).text == "fine"
    assert (await host.call("good", "ok", {})).text == "fine"


@pytest.mark.asyncio
async def test_hanging_tool_times_out_naming_the_setting(host: Host) -> None:
    started = time.monotonic()
    outcome = await host.call("bad", "hang", {})
    assert time.monotonic() - started < 1.5  # the server's 1 s timeout, and the cancellation sent after it
    assert outcome.is_error
    assert "timed out after 1 s" in outcome.text and "'timeout'" in outcome.text
    assert host.states()["bad"].state == "ready"  # it still answers: no restart needed
    assert (await host.call("bad", "ok", {})).text == "fine"
    assert (await host.call("good", "ok", {})).text == "fine"


@pytest.mark.asyncio
async def test_frozen_server_is_restarted_after_the_timeout(host: Host) -> None:
    recorder = Recorder(host)
    outcome = await host.call("bad", "freeze", {})
    assert outcome.is_error and "timed out after 1 s" in outcome.text
    assert "will be restarted" in outcome.text
    assert (await host.call("good", "ok", {})).text == "fine"  # other servers are unaffected
    failed = await recorder.wait(lambda e: isinstance(e, ServerStateChanged) and e.state == "failed")
    assert isinstance(failed, ServerStateChanged) and failed.error is not None
    assert "stopped answering" in failed.error
    await recorder.wait(lambda e: isinstance(e, ServerStateChanged) and e.state == "ready")
    assert (await host.call("bad", "ok", {})).text == "fine"


@pytest.mark.asyncio
async def test_garbage_on_stdout_does_not_break_calls() -> None:
    host = Host({"noisy": server("garbage")}, call_timeout=5, startup_timeout=20)
    try:
        await host.start()
        assert host.states()["noisy"].state == "ready"
        for _ in range(3):
            outcome = await host.call("noisy", "ok", {})
            assert (outcome.is_error, outcome.text) == (False, "fine")
    finally:
        await host.aclose()


def _rss_kib() -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise AssertionError("no VmRSS")


@pytest.mark.asyncio
async def test_stderr_flood_stays_bounded(capfd: pytest.CaptureFixture[str]) -> None:
    host = Host({"flood": server()}, call_timeout=60, startup_timeout=20)
    try:
        await host.start()
        before = _rss_kib()
        outcome = await host.call("flood", "flood", {"mb": 50})
        after = _rss_kib()
        assert (outcome.is_error, outcome.text) == (False, "flooded 50 MiB")
        await host.aclose()  # drains the pipe: the tail is complete
        tail = host.stderr_tail("flood")
    finally:
        await host.aclose()
    assert len(tail.encode()) <= 256 * 1024
    assert tail.rstrip().endswith("misbehaving: flood done")
    # Keeping the 50 MiB flood (even while returning only its tail) grows RSS by ~50 MiB; a bounded buffer
    # by ~1 MiB. 16 MiB tells the two apart with room for allocator noise.
    assert after - before < 16 * 1024, f"RSS grew by {(after - before) // 1024} MiB"
    assert len(capfd.readouterr().err) < 10_000  # the app's own stderr is not flooded


@pytest.mark.asyncio
async def test_start_slower_than_the_call_timeout_still_comes_up() -> None:
    host = Host({"slow": server("slow-start", startupTimeout=10, timeout=1)})
    try:
        started = time.monotonic()
        await host.start()
        assert time.monotonic() - started >= 3
        assert host.states()["slow"].state == "ready"
        assert (await host.call("slow", "ok", {})).text == "fine"
        outcome = await host.call("slow", "hang", {})
        assert outcome.is_error and "timed out after 1 s" in outcome.text  # `timeout` is the per-call limit
    finally:
        await host.aclose()


@pytest.mark.asyncio
async def test_big_output_is_truncated_with_a_marker() -> None:
    host = Host({"big": server()}, max_output_chars=1000)
    try:
        outcome = await host.call("big", "big", {"chars": 1_234_567})
    finally:
        await host.aclose()
    assert outcome.text.startswith("y" * 1000 + "\n")
    assert outcome.text.endswith('…[truncated 1,233,567 characters: raise the "tool_output_limit" setting to see more]')
    assert outcome.structured is None
