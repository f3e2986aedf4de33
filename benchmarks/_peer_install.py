"""The peer MCP host for ``peer_ask.py``: mcp-cli from PyPI, in its own virtualenv under ``.bench-peers/``.

Installed only when ``make bench`` runs the peer row (never by ``make test``: ``--tiny`` skips it), once:
a marker file names the installed version, so a second run reuses the venv. The venv uses the interpreter
that runs the benchmarks (the same Python as Switchboard's), and ordinary ``pip install`` from the package
index. Why mcp-cli: it installs on Python 3.11 (fast-agent-mcp 0.10.48 needs Python ≥ 3.12).

One change to the peer's install, for this machine: ``tiktoken`` is removed after the install. mcp-cli's
session manager counts tokens with it when it is there, and tiktoken downloads its encoding files from the
network on first use, which fails here (no network beyond the package registries) and ends the turn with an
error; without tiktoken the peer uses its own built-in estimate (about 4 characters a token), as its code
provides for.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PEERS = ROOT / ".bench-peers"
PACKAGE = "mcp-cli"
VERSION = "0.20.1"
VENV = PEERS / f"{PACKAGE}-{VERSION}"
MARKER = VENV / "installed.txt"


def peer_command() -> Path:
    """The peer's console script (``mcp-cli``) in its venv."""
    return VENV / "bin" / "mcp-cli"


def ensure_peer() -> Path:
    """Install mcp-cli into its venv unless the marker says it is there; return its console script."""
    wanted = f"{PACKAGE}=={VERSION}"
    if MARKER.exists() and MARKER.read_text(encoding="utf-8").strip() == wanted and peer_command().exists():
        return peer_command()
    PEERS.mkdir(exist_ok=True)
    print(f"installing the peer ({wanted}) into {VENV.relative_to(ROOT)} (once; a few minutes)", flush=True)
    subprocess.run([sys.executable, "-m", "venv", "--clear", str(VENV)], check=True)
    pip = [str(VENV / "bin" / "python"), "-m", "pip", "--disable-pip-version-check", "-q"]
    subprocess.run([*pip, "install", wanted], check=True)
    subprocess.run([*pip, "uninstall", "-y", "tiktoken"], check=True)
    MARKER.write_text(wanted + "\n", encoding="utf-8")
    return peer_command()


if __name__ == "__main__":
    print(ensure_peer())
