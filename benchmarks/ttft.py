"""Time to first token added by the runtime, against raw httpx + httpx-sse on the same loopback server.

One loopback LLM server (``tests/support/llm_server.py``: real sockets, the real OpenAI SSE wire format)
answers every request with the same short streamed reply. Two clients take turns, in the same process and
event loop:

* **raw**: ``httpx.AsyncClient`` + ``httpx_sse.aconnect_sse`` POSTing a chat-completions body; the clock
  stops at the first SSE event that carries content;
* **runtime**: ``Runtime.run`` on a new conversation (the real provider, retry wrapper, run loop and event
  fan-out, no MCP servers); the clock stops at the first ``ContentDelta`` event a listener receives.

Warm-up first, then ``--requests`` alternating pairs; medians and spread. Budget: **runtime ≤ raw + 5 ms**.

    .venv/bin/python benchmarks/ttft.py [--requests 60] [--json FILE]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import httpx
from httpx_sse import aconnect_sse

from benchmarks._report import Row, add_json_argument, median, percentile, spread, write_rows
from desktop_app.runtime import events as ev
from desktop_app.runtime.host import Host
from desktop_app.runtime.service import Runtime
from desktop_app.runtime.settings import ProviderSettings, Settings
from tests.support.llm_server import ScriptedLLMServer, text_reply

BUDGET_MS = 5.0
REPLY = "The first token, then a few more words of a short streamed answer."


async def raw_ttft(client: httpx.AsyncClient, url: str) -> float:
    body = {"model": "m", "stream": True, "messages": [{"role": "user", "content": "hello"}]}
    started = time.perf_counter()
    first = None
    async with aconnect_sse(client, "POST", f"{url}/chat/completions", json=body) as source:
        async for event in source.aiter_sse():
            if event.data == "[DONE]":
                break
            choices = json.loads(event.data).get("choices") or [{}]  # the usage frame has none
            delta = choices[0].get("delta") or {}
            if first is None and delta.get("content"):
                first = time.perf_counter() - started
    if first is None:
        raise SystemExit("raw stream carried no content")
    return first


async def runtime_ttft(runtime: Runtime) -> float:
    first: list[float] = []
    started = 0.0

    def on_event(event: ev.Event) -> None:
        if isinstance(event, ev.ContentDelta) and not first:
            first.append(time.perf_counter() - started)

    unsubscribe = runtime.subscribe(on_event)
    try:
        conversation = runtime.new_conversation()
        started = time.perf_counter()
        outcome = await runtime.run(conversation, "hello")
    finally:
        unsubscribe()
    if outcome.status != "finished" or not first:
        raise SystemExit(f"runtime run failed: {outcome}")
    return first[0]


async def measure(requests: int) -> tuple[list[float], list[float]]:
    with ScriptedLLMServer() as llm:
        settings = Settings(provider=ProviderSettings(base_url=llm.url, model="m"))
        runtime = Runtime(settings=settings, host=Host(), api_key_override="sk-bench")
        raw: list[float] = []
        through: list[float] = []
        try:
            async with httpx.AsyncClient(headers={"Authorization": "Bearer sk-bench"}, timeout=30) as client:
                for index in range(requests + 10):
                    llm.enqueue(text_reply(REPLY), text_reply(REPLY))
                    if index % 2:  # alternate which side goes first
                        second = await runtime_ttft(runtime)
                        first = await raw_ttft(client, llm.url)
                    else:
                        first = await raw_ttft(client, llm.url)
                        second = await runtime_ttft(runtime)
                    if index >= 10:  # the first ten pairs warm both paths up
                        raw.append(first * 1000)
                        through.append(second * 1000)
        finally:
            await runtime.aclose()
    return raw, through


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--requests", type=int, default=60)
    add_json_argument(parser)
    args = parser.parse_args(argv)
    raw, through = asyncio.run(measure(args.requests))
    added = median(through) - median(raw)
    ok = added <= BUDGET_MS
    print(f"time to first token over loopback, {len(raw)} requests per side, alternating")
    print(f"  raw httpx + httpx-sse  {spread(raw, ' ms', 2)}, p95 {percentile(raw, 95):.2f} ms")
    print(f"  Runtime.run            {spread(through, ' ms', 2)}, p95 {percentile(through, 95):.2f} ms")
    print(f"added by the runtime: {added:+.2f} ms (median); budget <= +{BUDGET_MS:g} ms -> {'OK' if ok else 'MISSED'}")
    write_rows(
        args.json,
        [
            Row(
                "time to first token added over raw streaming",
                f"{median(through):.1f} ms",
                f"{median(raw):.1f} ms (raw httpx + httpx-sse)",
                f"{added:+.1f} ms",
                f"≤ +{BUDGET_MS:g} ms",
                ok,
            )
        ],
    )
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
