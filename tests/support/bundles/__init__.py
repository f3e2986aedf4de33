"""Test bundles, packed (and signed) by the official ``mcpb`` CLI that scripts/install-test-servers.sh installs.

``python-probe`` and ``node-probe`` are dependency-free MCP servers that report the values they were started
with (the sensitive one as its SHA-256). ``hello-node``, ``python-lib`` and ``binary-probe`` are shaped like the mcpb
reference examples (hello-world-node's optional settings, packages in ``server/lib`` on ``PYTHONPATH``, a
binary run by its relative ``server/…`` command). :func:`pack` runs ``mcpb pack`` once per folder and test session.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]
MCPB = ROOT / ".test-servers" / "mcpb" / "node_modules" / ".bin" / "mcpb"


def mcpb(*args: str | Path, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    if not MCPB.exists():
        pytest.fail("the mcpb CLI is not installed: run scripts/install-test-servers.sh")
    return subprocess.run(
        [str(MCPB), *map(str, args)], capture_output=True, text=True, timeout=120, check=False, cwd=cwd
    )


def pack(source: Path, out_dir: Path) -> Path:
    """``mcpb pack source out_dir/<name>.mcpb`` (the source folder is copied first, so nothing is written here)."""
    work = out_dir / f"src-{source.name}"
    if work.exists():
        shutil.rmtree(work)
    shutil.copytree(source, work)
    target = out_dir / f"{source.name}.mcpb"
    done = mcpb("pack", work, target)
    assert done.returncode == 0 and target.is_file(), done.stdout + done.stderr
    return target


def sign_self_signed(bundle: Path, out_dir: Path) -> Path:
    """A copy of ``bundle`` signed by ``mcpb sign --self-signed`` (its certificate created in ``out_dir``)."""
    signed = out_dir / f"signed-{bundle.name}"
    shutil.copyfile(bundle, signed)
    done = mcpb("sign", signed, "--self-signed", "-c", out_dir / "cert.pem", "-k", out_dir / "key.pem", cwd=out_dir)
    assert done.returncode == 0, done.stdout + done.stderr
    return signed
