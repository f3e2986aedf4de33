"""``assemble(discover_later=True)`` (the app, issue 27) registers the workflows without reading them: a broken
workflow's problem comes from ``later_problems`` (asked after ``runtime: ready``) with the same words the CLI's
``assemble()`` puts in ``problems`` at once, and the parser and the model are not loaded until then."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from desktop_app.assembly import assemble
from desktop_app.paths import AppPaths

ROOT = Path(__file__).resolve().parents[2]
BROKEN = ROOT / "tests" / "fixtures" / "workflows" / "broken" / "bad-name"


def _paths(tmp_path: Path) -> AppPaths:
    paths = AppPaths(tmp_path / "config", tmp_path / "data", tmp_path / "logs").ensure()
    shutil.copytree(BROKEN, paths.config_dir / "workflows" / "bad-name")
    return paths


@pytest.mark.asyncio
@pytest.mark.parametrize("later", [False, True])
async def test_a_broken_workflow_is_reported_now_or_later(tmp_path: Path, later: bool) -> None:
    built = assemble(_paths(tmp_path), strict=False, persist=False, project_dir=tmp_path, discover_later=later)
    try:
        now = [p for p in built.problems if "workflow 'bad-name'" in p]
        asked = [p for ask in built.later_problems for p in ask() if "workflow 'bad-name'" in p]
        assert (now, asked) == (([], asked) if later else (now, []))
        [problem] = asked if later else now
        assert problem.startswith("The workflow 'bad-name' cannot run: ")
    finally:
        await built.aclose()


def test_discovering_later_loads_neither_the_parser_nor_the_model(tmp_path: Path) -> None:
    code = (
        "import sys\n"
        "from pathlib import Path\n"
        "from desktop_app.assembly import assemble\n"
        "from desktop_app.paths import AppPaths\n"
        "home = Path(sys.argv[1])\n"
        "paths = AppPaths(home / 'c', home / 'd', home / 'l').ensure()\n"
        "built = assemble(paths, strict=False, persist=False, project_dir=home, discover_later=True)\n"
        "print(sorted(m for m in ('desktop_app.runtime.workflows.model', 'desktop_app.runtime.workflows.parser')"
        " if m in sys.modules))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, str(tmp_path)], cwd=ROOT, capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "[]"
