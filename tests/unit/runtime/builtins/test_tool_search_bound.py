"""``tool_search`` with a regular expression that would backtrack forever: the real in-process server answers
with an error result at the time bound, and the event loop (the window's UI thread) keeps running meanwhile."""

from __future__ import annotations

import asyncio
import json
import time

import pytest

from desktop_app.runtime.builtins.tools import make_tools_server
from desktop_app.runtime.host import Host
from desktop_app.runtime.host.bounded_regex import SEARCH_TIME_LIMIT_S
from desktop_app.runtime.host.catalog import Catalog, make_entry

CATALOG = Catalog([make_entry("mcp__s__tool", "s", "a" * 60 + "!"), make_entry("mcp__s__other", "s", "other")])


@pytest.mark.asyncio
async def test_a_catastrophic_regex_is_an_error_result_at_the_bound_and_the_loop_keeps_running() -> None:
    host = Host()
    host.register_builtin("switchboard.tools", lambda: make_tools_server(lambda: CATALOG))
    loop = asyncio.get_running_loop()
    gaps: list[float] = []
    done = asyncio.Event()

    def tick(last: float) -> None:  # the loop's own heartbeat: a long gap means something blocked it
        now = loop.time()
        gaps.append(now - last)
        if not done.is_set():
            loop.call_soon(tick, now)

    try:
        await host.ensure_connected("switchboard.tools")
        started = time.monotonic()
        loop.call_soon(tick, loop.time())
        outcome = await host.call("switchboard.tools", "tool_search", {"query": "(a|aa)+$"})
        done.set()
        elapsed = time.monotonic() - started
    finally:
        await host.aclose()
    assert outcome.is_error
    error = json.loads(outcome.text)
    assert error["code"] == "search_timeout" and "took longer than 1 s" in error["error"]
    assert "Use a simpler pattern" in error["error"]
    assert elapsed < SEARCH_TIME_LIMIT_S + 1.0
    assert max(gaps) < 0.25, max(gaps)  # the search ran off the loop
