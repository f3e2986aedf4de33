"""Finding the keyring backend away from macOS runs no subprocess: keyring's macOS backend binds the Security
framework with three ``ctypes.util.find_library`` calls (subprocesses) at import, only to be ruled out by its
priority. The backend chosen is the same as keyring's own discovery chooses (issue 27: ready sooner)."""

from __future__ import annotations

import subprocess
import sys

import pytest

OURS = """
import ctypes.util
calls = []
real = ctypes.util.find_library
ctypes.util.find_library = lambda name: calls.append(name) or real(name)
from desktop_app.runtime.credentials import discover_backend
backend = discover_backend()
print(type(backend).__module__ + "." + type(backend).__qualname__, len(calls))
"""
KEYRINGS_OWN = """
import keyring
backend = keyring.get_keyring()
print(type(backend).__module__ + "." + type(backend).__qualname__)
"""


def _run(code: str) -> str:
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


@pytest.mark.skipif(sys.platform == "darwin", reason="on macOS the macOS backend is the real one")
def test_discovery_runs_no_find_library_and_chooses_keyrings_own_backend() -> None:
    chosen, find_library_calls = _run(OURS).rsplit(" ", 1)
    assert find_library_calls == "0"
    assert chosen == _run(KEYRINGS_OWN)
