"""Bytecode for Switchboard's own modules before anything is timed, as every installed copy has it.

pip compiles a wheel's modules when it installs them and the frozen app ships bytecode, so no user's start-up
compiles ``desktop_app`` from source. A checkout's modules get their ``.pyc`` files on the first import, unless
``PYTHONDONTWRITEBYTECODE`` is set (as on shared build machines): then every timed start compiled the ~200 of our
modules from source again (measured: "runtime: ready" 2.9 s instead of 1.8 s, first paint 2.6x instead of
2.0x the bare window, in one run on a loaded 2-core machine), which measures the compiler, not the app. The
start-up scripts therefore write the bytecode first, explicitly (``compileall`` writes it whatever that
variable says). Third-party packages were compiled when pip installed them.
"""

from __future__ import annotations

import compileall
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "desktop_app"


def compile_app() -> bool:
    """Write (or refresh) the ``.pyc`` files of ``desktop_app``; True when every module compiled."""
    return bool(compileall.compile_dir(str(PACKAGE), quiet=1))
