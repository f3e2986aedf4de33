"""httpx's command-line client (click, rich, pygments) is not loaded inside Switchboard: importing the runtime
puts a stand-in for ``httpx._main`` in place, and httpx itself works as before."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
SCRIPT = """
import sys
import desktop_app.runtime
import httpx
print("cli modules:", sorted(m for m in ("rich", "pygments", "httpx._main") if m in sys.modules and m != "httpx._main"))
response = httpx.Response(200, json={"ok": True})
print("httpx works:", response.json() == {"ok": True})
try:
    httpx.main()
except SystemExit as exc:
    print("main:", "not available inside Switchboard" in str(exc))
"""


def test_httpx_loads_without_its_command_line_client() -> None:
    proc = subprocess.run(
        [sys.executable, "-c", SCRIPT], cwd=ROOT, capture_output=True, text=True, timeout=60, check=False
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines() == ["cli modules: []", "httpx works: True", "main: True"], proc.stdout
