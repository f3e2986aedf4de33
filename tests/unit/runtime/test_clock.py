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
async def test_zero_delay_returns_at_once() -> None:
    await RetrySleeper().sleep(0)
