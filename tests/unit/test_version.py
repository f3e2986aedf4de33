"""One version: pyproject.toml's, in ``desktop_app.__version__`` and ``switchboard --version``."""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

import desktop_app

ROOT = Path(__file__).resolve().parents[2]


def pyproject_version() -> str:
    return str(tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["version"])


def test_package_version_is_the_pyproject_version() -> None:
    assert desktop_app.__version__ == pyproject_version()


def test_version_flag_prints_it() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "desktop_app", "--version"], capture_output=True, text=True, check=True, timeout=60
    ).stdout
    assert out.strip() == f"switchboard {pyproject_version()}"
