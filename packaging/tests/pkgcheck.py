"""Helpers of the packaging checks: paths of the artefacts, running them, reading their output."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE.parent.parent))  # tests.support (the loopback LLM server)
import linux  # noqa: E402, F401 (re-exported to the fixtures)
import project  # noqa: E402

ROOT = project.ROOT
DIST = ROOT / "dist"
BUILD = ROOT / "build"
INSTALLED = Path("/usr/bin") / project.EXE_NAME

# stderr lines a healthy frozen run may print: Qt's offscreen platform notes what it cannot do, and a CI box
# has no keyring daemon (the app says so and keeps secrets in memory; it proves the keyring backends loaded).
ALLOWED_STDERR = [
    re.compile(r"^This plugin does not support (propagateSizeHints|raise)\(\)$"),
    re.compile(r"^WARNING desktop_app\.runtime\.credentials: No usable system keyring \(NoKeyringError\): "),
]


def unexpected_stderr(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.strip() and not any(p.match(line) for p in ALLOWED_STDERR)]


@dataclass(frozen=True)
class Run:
    returncode: int
    stdout: str
    stderr: str


def run(cmd: Sequence[str | Path], *, env: dict[str, str] | None = None, timeout: float = 240) -> Run:
    proc = subprocess.run(
        [str(c) for c in cmd],
        capture_output=True,
        text=True,
        timeout=timeout,
        env={**os.environ, "QT_QPA_PLATFORM": "offscreen", **(env or {})},
        stdin=subprocess.DEVNULL,
    )
    return Run(proc.returncode, proc.stdout, proc.stderr)


def need(path: Path) -> Path:
    if not path.exists():
        pytest.fail(f"{path} is missing: run `make package` (packaging/build.sh) first")
    return path


def events(stdout: str) -> list[dict[str, object]]:
    return [json.loads(line) for line in stdout.splitlines() if line.strip()]
