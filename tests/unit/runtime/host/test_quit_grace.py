"""Closing the host (the app or ``switchboard ask`` quitting) stops stdio servers with SIGTERM after a short
grace once their stdin closes, instead of waiting out each server's own exit; other closes keep the SDK's."""

from __future__ import annotations

import sys
from pathlib import Path

import mcp.client.stdio as sdk_stdio
import pytest

from desktop_app.runtime.host import Host, ServerConfig
from desktop_app.runtime.host.transports import QUIT_GRACE, quitting

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")

# A real stdio MCP server that says how it ended: "term" when SIGTERM stopped it, "eof" when it left by
# itself after its stdin closed (it lingers 1 s first, as a server flushing its state on the way out does).
LINGERING = """
import os, signal, sys, time
from mcp.server.mcpserver import MCPServer

MARK = sys.argv[1]

def on_term(signum, frame):
    with open(MARK, "w") as f:
        f.write("term")
    os._exit(0)

signal.signal(signal.SIGTERM, on_term)
server = MCPServer("lingering")

@server.tool()
def ok() -> str:
    return "fine"

server.run("stdio")
time.sleep(1.0)
with open(MARK, "w") as f:
    f.write("eof")
"""


def _host(tmp_path: Path) -> tuple[Host, Path]:
    script = tmp_path / "lingering.py"
    script.write_text(LINGERING)
    mark = tmp_path / "ended"
    return Host({"slow": ServerConfig(command=sys.executable, args=[str(script), str(mark)])}), mark


@pytest.mark.asyncio
async def test_closing_the_host_sigterms_a_server_that_lingers_after_its_stdin_closes(tmp_path: Path) -> None:
    host, mark = _host(tmp_path)
    await host.start()
    assert host.states()["slow"].state == "ready"
    await host.aclose()
    assert mark.read_text() == "term"  # without the short grace: "eof", after the server's own 1 s
    assert sdk_stdio.PROCESS_TERMINATION_TIMEOUT == 2.0  # the SDK's grace is back for every other close


@pytest.mark.asyncio
async def test_a_restart_keeps_the_sdk_grace_a_server_exits_by_itself(tmp_path: Path) -> None:
    host, mark = _host(tmp_path)
    try:
        await host.start()
        await host.restart("slow")
        assert mark.read_text() == "eof"
        assert host.states()["slow"].state == "ready"
    finally:
        await host.aclose()


def test_overlapping_quits_restore_the_sdk_grace_after_the_last() -> None:
    sdk = sdk_stdio.PROCESS_TERMINATION_TIMEOUT
    with quitting():
        assert sdk_stdio.PROCESS_TERMINATION_TIMEOUT == QUIT_GRACE
        with quitting():
            assert sdk_stdio.PROCESS_TERMINATION_TIMEOUT == QUIT_GRACE
        assert sdk_stdio.PROCESS_TERMINATION_TIMEOUT == QUIT_GRACE
    assert sdk == sdk_stdio.PROCESS_TERMINATION_TIMEOUT
    with pytest.raises(RuntimeError), quitting():
        raise RuntimeError("a close failed")
    assert sdk == sdk_stdio.PROCESS_TERMINATION_TIMEOUT
