"""Selecting a server that is not an extension does not load the bundle reader (``runtime.extensions``: the
archive reader, the manifest models, the installer: ~0.6 MB of the memory after first use, issue 27); an
extension's server does. In a fresh process (this one has long imported them)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[4]
PROBE = """
import json, sys, types
from PySide6.QtWidgets import QApplication
app = QApplication([sys.argv[0]])
from desktop_app.ui.extensions.manage import ExtensionBar
bar = ExtensionBar(types.SimpleNamespace(server_actions=None))
loaded = lambda: "desktop_app.runtime.extensions.install" in sys.modules
seen = {}
bar.show_for("crm", {"command": "crm-server"})
seen["server"] = [loaded(), bar.isHidden()]
bar.show_for("helper", {"command": "x", "plugin": "helpers"})
seen["plugin"] = [loaded(), bar.isHidden()]
bar.show_for("probe", {"command": "x", "extension": "probe"})
seen["extension"] = [loaded(), bar.isHidden()]
print(json.dumps(seen))
"""


def test_an_ordinary_server_does_not_load_the_bundle_reader(tmp_path: Path) -> None:
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "SWITCHBOARD_HOME": str(tmp_path / "home")}
    done = subprocess.run(
        [sys.executable, "-c", PROBE], cwd=REPO, env=env, capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 0, done.stderr[-3000:]
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    assert seen["server"] == [False, True]  # nothing to show, nothing loaded
    assert seen["plugin"] == [False, False]  # the plugin's line, still nothing loaded
    assert seen["extension"] == [True, True]  # looked up (not installed here: hidden)
