"""The MCP SDK (``mcp``: its client and, through it, its server half; ``mcp_types``: its protocol models)
loads with the first server connection, not with the runtime: a process that assembles the app's runtime
has imported neither, and the first call to a built-in tool imports them (off the event loop) and works."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[4]

SCRIPT = r"""
import asyncio, sys
from desktop_app.assembly import assemble
from pathlib import Path
from desktop_app.paths import AppPaths

home = Path(sys.argv[1])
paths = AppPaths(home / "config", home / "data", home / "logs").ensure()

async def main():
    assembly = assemble(paths, strict=True)
    try:
        print("after assemble:", "mcp" in sys.modules, "mcp_types" in sys.modules, flush=True)
        outcome = await assembly.host.call("switchboard.system", "current_time", {})
        print("call:", outcome.is_error, outcome.text[:40].replace("\n", " "), flush=True)
        print("after the call:", "mcp" in sys.modules, "mcp_types" in sys.modules, flush=True)
    finally:
        await assembly.aclose()

asyncio.run(main())
"""


def test_the_sdk_is_imported_with_the_first_server_not_with_the_runtime(tmp_path: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(tmp_path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    lines = proc.stdout.splitlines()
    assert "after assemble: False False" in lines, proc.stdout
    assert any(line.startswith("call: False") for line in lines), proc.stdout
    assert "after the call: True True" in lines, proc.stdout
