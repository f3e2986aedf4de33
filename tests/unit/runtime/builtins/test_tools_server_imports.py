"""The ``tool_search`` built-in's module does not load the ``regex`` module (~1.3 MB): it comes with the first
search that needs it (``bounded_regex``). The built-ins load with the first use of the app, which never
needs it unless a search runs (issue 27, memory after use)."""

from __future__ import annotations

import subprocess
import sys

CODE = "import sys, desktop_app.runtime.builtins.tools; print(sorted(m for m in ('regex',) if m in sys.modules))"


def test_the_tools_server_module_leaves_regex_unloaded() -> None:
    done = subprocess.run([sys.executable, "-c", CODE], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"
