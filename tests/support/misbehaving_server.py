"""A stdio MCP server that misbehaves on purpose, for the host's failure tests.

    python misbehaving_server.py [MODE]

Modes change how it starts: ``normal`` (default); ``garbage`` prints non-JSON lines to stdout at
start-up and before each answer; ``slow-start`` sleeps 3 s before serving (``SLOW_START_S``
overrides); ``once`` starts only once: ``crash`` leaves the file named by ``$CRASHED_MARKER``
behind, and a start that finds it exits at once (a restart that fails). ``$PID_FILE``, when set,
receives the server's process id at start. Tools (in every mode):
``ok``, ``crash`` (``os._exit`` mid-call), ``hang`` (never returns, the server stays responsive),
``freeze`` (blocks the server's event loop: nothing is answered any more), ``flood`` (writes ``mb``
MiB to stderr, then answers), ``big`` (returns ``chars`` characters).
"""

from __future__ import annotations

import os
import sys
import time

import anyio
from mcp.server.mcpserver import MCPServer

MODE = sys.argv[1] if len(sys.argv) > 1 else "normal"
server = MCPServer("misbehaving", log_level="WARNING")


def _garbage(tag: str) -> None:
    if MODE == "garbage":
        sys.stdout.write(f"this is not JSON ({tag})\n{{broken json\n\n")
        sys.stdout.flush()


@server.tool()
async def ok() -> str:
    _garbage("before the answer to ok")
    return "fine"


@server.tool()
async def crash() -> str:
    print("misbehaving: about to exit", file=sys.stderr, flush=True)
    if MODE == "once":
        with open(os.environ["CRASHED_MARKER"], "w") as marker:  # noqa: ASYNC230 - exits right after
            marker.write("crashed")
    os._exit(1)


@server.tool()
async def hang() -> str:
    await anyio.Event().wait()
    return "never"


@server.tool()
async def freeze() -> str:
    print("misbehaving: freezing", file=sys.stderr, flush=True)
    time.sleep(3600)  # noqa: ASYNC251 - blocking the loop on purpose
    return "never"


@server.tool()
def flood(mb: int = 50) -> str:
    line = b"x" * 1023 + b"\n"
    for _ in range(mb * 1024):
        os.write(2, line)
    os.write(2, b"misbehaving: flood done\n")
    return f"flooded {mb} MiB"


@server.tool()
async def big(chars: int) -> str:
    return "y" * chars


if __name__ == "__main__":
    print(f"misbehaving: started in mode {MODE}", file=sys.stderr, flush=True)
    if os.environ.get("PID_FILE"):  # lets a test check that the server is gone after its host stopped
        with open(os.environ["PID_FILE"], "w") as pid_file:
            pid_file.write(str(os.getpid()))
    if MODE == "once" and os.path.exists(os.environ["CRASHED_MARKER"]):
        print("misbehaving: crashed before, refusing to start again", file=sys.stderr, flush=True)
        sys.exit(3)
    if MODE == "slow-start":
        time.sleep(float(os.environ.get("SLOW_START_S", "3")))
    _garbage("at start-up")
    server.run()
