"""The in-process harness of the memory benchmarks starts the app as ``desktop_app.app.main`` does.

``main()`` swaps PySide6's source-reading ``__feature__`` hook before anything else is imported
(``desktop_app/ui/qt_imports.py``); without that every module imported after Qt leaves its whole source in
``linecache`` (~20 MB for the SDK's modules), which the real app never holds. The harness left it out, so
``memory_servers.py`` and the soak's "after first use" row measured ~20 MB the app does not use.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]

SCRIPT = r"""
import linecache, sys
from pathlib import Path
sys.path.insert(0, sys.argv[1])
from benchmarks._app_harness import run_in_app

async def scenario(app):
    sys.path.insert(0, sys.argv[3])
    import harness_probe_module as module  # an import statement: what the hook sees
    return module.__file__ in linecache.cache

print("source kept:", run_in_app(Path(sys.argv[2]), scenario))
"""


def test_modules_imported_in_the_harness_leave_no_source_in_linecache(tmp_path: Path) -> None:
    probe = tmp_path / "probe"
    probe.mkdir()
    (probe / "harness_probe_module.py").write_text("VALUE = 1\n" * 50, encoding="utf-8")
    home = tmp_path / "home"
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "PYTHON_KEYRING_BACKEND": "keyring.backends.null.Keyring"}
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(ROOT), str(home), str(probe)],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    assert "source kept: False" in done.stdout, done.stdout + done.stderr
