"""Per-call overhead of ``Host.call`` on an in-process (built-in) MCP server, against the raw SDK client.

The same trivial async tool (``echo``) is served by two identical ``MCPServer`` instances: one registered on
a ``Host`` as a built-in and called through ``Host.call`` (name checks, timeout backstop, outcome conversion,
output truncation), the other called through a bare ``mcp.Client(server)`` (the SDK's in-process path, the
same ``mode="auto"`` the host uses). Both run in the same process and event loop, alternating in rounds so
that load drift on the machine hits both alike. Exits 1 when ``Host.call`` costs more than ``--bound-ms``
per call above the raw client.

    .venv/bin/python benchmarks/call_overhead.py [--calls 1000] [--rounds 10] [--bound-ms 0.25]
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import statistics
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from mcp import Client
from mcp.server.mcpserver import MCPServer

from desktop_app.runtime.host import Host

SERVER = "bench"
TOOL = "echo"


def make_server() -> MCPServer:
    server = MCPServer(SERVER)

    @server.tool(name=TOOL, description="Return the text it was given.")
    async def echo(text: str) -> str:
        return text

    return server


async def timed(calls: int, call: Callable[[int], Awaitable[str]]) -> float:
    """Seconds for ``calls`` sequential calls; checks every answer."""
    started = time.perf_counter()
    for i in range(calls):
        expected = f"ping {i}"
        answer = await call(i)
        if answer != expected:
            raise SystemExit(f"wrong answer: {answer!r} != {expected!r}")
    return time.perf_counter() - started


async def measure(calls: int, rounds: int) -> tuple[list[float], list[float]]:
    """Per round: seconds per call through the raw client and through ``Host.call``."""
    host = Host()
    host.register_builtin(SERVER, make_server)
    raw_times: list[float] = []
    host_times: list[float] = []
    async with Client(make_server()) as client:

        async def raw_call(i: int) -> str:
            result = await client.call_tool(TOOL, {"text": f"ping {i}"})
            if result.is_error:
                raise SystemExit(f"raw call failed: {result}")
            return "".join(getattr(block, "text", "") for block in result.content)

        async def host_call(i: int) -> str:
            outcome = await host.call(SERVER, TOOL, {"text": f"ping {i}"})
            if outcome.is_error:
                raise SystemExit(f"Host.call failed: {outcome.text}")
            return outcome.text

        # Warm-up (not timed): connects the built-in on first use, fills caches, JIT-free but import-lazy code.
        await timed(50, raw_call)
        await timed(50, host_call)
        logging.getLogger().setLevel(logging.WARNING)  # MCPServer() set the root logger to INFO
        per_round = max(1, calls // rounds)
        for _ in range(rounds):
            raw_times.append(await timed(per_round, raw_call) / per_round)
            host_times.append(await timed(per_round, host_call) / per_round)
    await host.aclose()
    return raw_times, host_times


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=1000, help="calls per path (default 1000)")
    parser.add_argument("--rounds", type=int, default=10, help="alternating rounds the calls are split into")
    parser.add_argument("--bound-ms", type=float, default=0.25, help="allowed Host.call overhead per call (ms)")
    args = parser.parse_args()
    logging.basicConfig(level=logging.WARNING)
    raw, host = asyncio.run(measure(args.calls, args.rounds))
    per_round = max(1, args.calls // args.rounds)
    total = per_round * len(raw)
    raw_ms = statistics.median(raw) * 1000
    host_ms = statistics.median(host) * 1000
    overhead = host_ms - raw_ms
    print(f"{total} sequential calls per path of an async tool on an in-process MCPServer ({len(raw)} rounds)")
    print(f"{'path':<30} {'calls/s':>9} {'ms/call':>9} {'min round':>10} {'max round':>10}")
    for name, times, ms in (("raw mcp.Client(server)", raw, raw_ms), ("Host.call (built-in)", host, host_ms)):
        print(f"{name:<30} {1000 / ms:>9.0f} {ms:>9.3f} {min(times) * 1000:>10.3f} {max(times) * 1000:>10.3f}")
    ratio = host_ms / raw_ms if raw_ms else float("inf")
    print(f"overhead of Host.call: {overhead:+.3f} ms/call ({ratio:.2f}x the raw client; medians of the rounds)")
    ok = overhead <= args.bound_ms
    print(f"bound: overhead <= {args.bound_ms:g} ms/call -> {'OK' if ok else 'MISSED'}")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
