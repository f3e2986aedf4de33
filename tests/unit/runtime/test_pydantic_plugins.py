"""pydantic's search for plugins stays off the way to ready (issue 27): the runtime's first model does not import
``importlib.metadata`` (pydantic's plugin loader did, ~15-20 ms), and models validate as before."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from desktop_app.runtime import pydantic_plugins

ROOT = Path(__file__).resolve().parents[3]


def test_the_runtime_s_first_models_do_not_look_for_plugins():
    code = (
        "import sys\n"
        "import desktop_app.runtime.events as ev\n"
        "from desktop_app.runtime.settings import Settings\n"
        "assert Settings.model_validate({}).provider is not None\n"
        "assert ev.TokenUsage(prompt_tokens=3).prompt_tokens == 3\n"
        "print(sorted(m for m in ('importlib.metadata', 'email', 'zipfile') if m in sys.modules))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "[]"


def test_a_loader_already_in_place_is_left_alone(monkeypatch):
    monkeypatch.setitem(sys.modules, pydantic_plugins.LOADER, sys.modules[pydantic_plugins.LOADER])
    before = sys.modules[pydantic_plugins.LOADER]
    assert not pydantic_plugins.skip_plugin_discovery()
    assert sys.modules[pydantic_plugins.LOADER] is before
    assert list(before.get_plugins()) == []
