"""The retry sleeper wakes only the conversation asked for."""

from __future__ import annotations

import asyncio

import pytest

from desktop_app.runtime.clock import RetrySleeper, current_conversation


async def _sleep_as(sleeper: RetrySleeper, conversation: str, delay: float) -> str:
    current_conversation.set(conversation)
    await sleeper.sleep(delay)
    return conversation


@pytest.mark.asyncio
async def test_wake_ends_only_that_conversations_wait() -> None:
    sleeper = RetrySleeper()
    a = asyncio.ensure_future(_sleep_as(sleeper, "a", 3600))
    b = asyncio.ensure_future(_sleep_as(sleeper, "b", 3600))
    await asyncio.sleep(0)  # one loop turn: both tasks run up to their wait (FIFO scheduling)
    assert sleeper.waiting("a") and sleeper.waiting("b")
    assert sleeper.wake("a") is True
    assert await a == "a"
    assert not b.done()
    assert sleeper.wake("nobody") is False
    sleeper.wake("b")
    assert await b == "b"
    assert not sleeper.waiting("a")


@pytest.mark.asyncio
async def test_zero_and_negative_delays_return_at_once_and_leave_no_waiter() -> None:
    sleeper = RetrySleeper()
    current_conversation.set("c")
    for delay in (0.0, -1.0):
        task = asyncio.ensure_future(sleeper.sleep(delay))
        for _ in range(3):  # a few loop turns, never the clock: a real wait would still be pending
            if task.done():
                break
            await asyncio.sleep(0)
        assert task.done() and task.exception() is None, delay
        assert not sleeper.waiting("c") and sleeper.wake("c") is False  # nothing left behind to wake
