"""Tool-call round trip through ``Host.call`` against the bare mcp ``Client``, in-process and over stdio.

Two pairs, each with the same trivial async tool (``echo``), in the same process and event loop:

* **built-in**: one in-process ``MCPServer`` registered on a ``Host`` with ``register_builtin`` and called
  through ``Host.call`` (name checks, hooks and approval seams, the timeout backstop, outcome conversion,
  truncation), against an identical server called through a bare ``mcp.Client(server)`` (the SDK's
  in-process path, the same ``mode="auto"`` the host uses);
* **stdio**: ``benchmarks/_echo_server.py`` started twice as a child process, once as a ``Host`` server from
  its config and once by a bare ``mcp.Client(StdioServerParameters(...))``.

Every answer is checked. Warm-up calls first (the built-in connects on first use), then the calls alternate
in rounds; the figures are medians over the rounds. Budget: **Host.call ≤ 1.3× the bare client** for each.

    .venv/bin/python benchmarks/call_overhead.py [--calls 1000] [--stdio-calls 300] [--rounds 10] [--json FILE]
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
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from mcp import Client, StdioServerParameters
from mcp.server.mcpserver import MCPServer

from benchmarks._report import Row, add_json_argument, write_rows
from desktop_app.runtime.host import Host
from desktop_app.runtime.host.config import ServerConfig

SERVER = "bench"
TOOL = "echo"
ECHO_SERVER = Path(__file__).resolve().parent / "_echo_server.py"
BUDGET_RATIO = 1.3

Call = Callable[[int], Awaitable[str]]


def make_server() -> MCPServer:
    server = MCPServer(SERVER)

    @server.tool(name=TOOL, description="Return the text it was given.")
    async def echo(text: str) -> str:
        return text

    return server


async def timed(calls: int, call: Call) -> float:
    """Seconds for ``calls`` sequential calls; checks every answer."""
    started = time.perf_counter()
    for i in range(calls):
        expected = f"ping {i}"
        answer = await call(i)
        if answer != expected:
            raise SystemExit(f"wrong answer: {answer!r} != {expected!r}")
    return time.perf_counter() - started


def raw_caller(client: Client) -> Call:
    async def call(i: int) -> str:
        result = await client.call_tool(TOOL, {"text": f"ping {i}"})
        if result.is_error:
            raise SystemExit(f"raw call failed: {result}")
        return "".join(getattr(block, "text", "") for block in result.content)

    return call


def host_caller(host: Host, server: str) -> Call:
    async def call(i: int) -> str:
        outcome = await host.call(server, TOOL, {"text": f"ping {i}"})
        if outcome.is_error:
            raise SystemExit(f"Host.call failed: {outcome.text}")
        return outcome.text

    return call


async def alternate(calls: int, rounds: int, raw: Call, through: Call) -> tuple[list[float], list[float]]:
    await timed(max(5, calls // 20), raw)  # warm-up, not timed
    await timed(max(5, calls // 20), through)
    per_round = max(1, calls // rounds)
    raw_times: list[float] = []
    host_times: list[float] = []
    for index in range(rounds):
        pair = (raw, through) if index % 2 == 0 else (through, raw)
        first = await timed(per_round, pair[0]) / per_round
        second = await timed(per_round, pair[1]) / per_round
        raw_t, host_t = (first, second) if index % 2 == 0 else (second, first)
        raw_times.append(raw_t)
        host_times.append(host_t)
    return raw_times, host_times


async def measure_builtin(calls: int, rounds: int) -> tuple[list[float], list[float]]:
    host = Host()
    host.register_builtin(SERVER, make_server)
    try:
        async with Client(make_server()) as client:
            logging.getLogger().setLevel(logging.WARNING)  # MCPServer() set the root logger to INFO
            return await alternate(calls, rounds, raw_caller(client), host_caller(host, SERVER))
    finally:
        await host.aclose()


async def measure_stdio(calls: int, rounds: int) -> tuple[list[float], list[float]]:
    params = StdioServerParameters(command=sys.executable, args=[str(ECHO_SERVER)])
    host = Host({SERVER: ServerConfig(command=sys.executable, args=[str(ECHO_SERVER)])})
    try:
        await host.start()
        state = host.states()[SERVER]
        if state.state != "ready":
            raise SystemExit(f"stdio echo server did not start: {state.error}")
        async with Client(params) as client:
            return await alternate(calls, rounds, raw_caller(client), host_caller(host, SERVER))
    finally:
        await host.aclose()


def report(label: str, raw: list[float], host: list[float], calls: int) -> tuple[float, float, bool]:
    raw_ms = statistics.median(raw) * 1000
    host_ms = statistics.median(host) * 1000
    ratio = host_ms / raw_ms if raw_ms else float("inf")
    ok = ratio <= BUDGET_RATIO
    print(f"\n{label}: {calls} sequential calls per path in {len(raw)} alternating rounds")
    print(f"{'path':<34} {'calls/s':>9} {'ms/call':>9} {'min round':>10} {'max round':>10}")
    for name, times, ms in ((f"bare mcp.Client ({label})", raw, raw_ms), (f"Host.call ({label})", host, host_ms)):
        print(f"{name:<34} {1000 / ms:>9.0f} {ms:>9.3f} {min(times) * 1000:>10.3f} {max(times) * 1000:>10.3f}")
    print(f"Host.call: {host_ms - raw_ms:+.3f} ms/call, {ratio:.2f}x the bare client (medians of the rounds)")
    print(f"budget: <= {BUDGET_RATIO:g}x -> {'OK' if ok else 'MISSED'}")
    return raw_ms, host_ms, ok


def row(figure: str, raw_ms: float, host_ms: float, ok: bool, baseline: str) -> Row:
    return Row(
        figure,
        f"{host_ms:.3f} ms",
        f"{raw_ms:.3f} ms ({baseline})",
        f"{host_ms / raw_ms:.2f}×",
        f"≤ {BUDGET_RATIO:g}×",
        ok,
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=1000, help="built-in calls per path (default 1000)")
    parser.add_argument("--stdio-calls", type=int, default=300, help="stdio calls per path (default 300)")
    parser.add_argument("--rounds", type=int, default=10, help="alternating rounds the calls are split into")
    add_json_argument(parser)
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.WARNING)
    rows: list[Any] = []
    raw, host = asyncio.run(measure_builtin(args.calls, args.rounds))
    raw_ms, host_ms, ok_builtin = report("built-in", raw, host, args.calls)
    rows.append(row("built-in tool call round trip", raw_ms, host_ms, ok_builtin, "bare Client, in-memory"))
    raw, host = asyncio.run(measure_stdio(args.stdio_calls, args.rounds))
    raw_ms, host_ms, ok_stdio = report("stdio", raw, host, args.stdio_calls)
    rows.append(row("stdio tool call round trip", raw_ms, host_ms, ok_stdio, "bare Client over stdio"))
    write_rows(args.json, rows)
    return 0 if ok_builtin and ok_stdio else 1


if __name__ == "__main__":
    raise SystemExit(main())
