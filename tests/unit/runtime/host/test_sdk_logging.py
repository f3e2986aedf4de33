"""In-process MCP servers leave logging to Switchboard (issue 27 item 2): ``MCPServer()`` imported rich (~40
modules, ~1.8 MB) for a handler ``logging.basicConfig`` dropped when the process already logs, and set up the
root logger itself when it did not."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[4]

SCRIPT = r"""
import asyncio, logging, sys
from pathlib import Path
from desktop_app.assembly import assemble
from desktop_app.paths import AppPaths

if sys.argv[2] == "logging":
    logging.getLogger().addHandler(logging.NullHandler())  # as the app's and ask's log file handlers
home = Path(sys.argv[1])
paths = AppPaths(home / "config", home / "data", home / "logs").ensure()

async def main():
    assembly = assemble(paths, strict=True)
    try:
        outcome = await assembly.host.call("switchboard.system", "current_time", {})
        print("call:", outcome.is_error, flush=True)
        print("rich:", "rich" in sys.modules, "root handlers:", len(logging.getLogger().handlers), flush=True)
    finally:
        await assembly.aclose()

asyncio.run(main())
"""


def _run(tmp_path: Path, mode: str) -> list[str]:
    proc = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(tmp_path / mode), mode],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc.stdout.splitlines()


def test_a_builtin_call_in_a_logging_process_does_not_import_rich(tmp_path: Path) -> None:
    lines = _run(tmp_path, "logging")
    assert "call: False" in lines
    assert "rich: False root handlers: 1" in lines  # without sdk_logging: rich True


def test_the_sdk_does_not_configure_the_root_logger_of_a_process_without_handlers(tmp_path: Path) -> None:
    lines = _run(tmp_path, "bare")
    assert "call: False" in lines
    assert "rich: False root handlers: 0" in lines  # without sdk_logging: the SDK's RichHandler, rich True
