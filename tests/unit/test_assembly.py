"""``assemble(discover_later=True)`` (the app, issue 27) registers the workflows without reading them: a broken
workflow's problem comes from ``later_problems`` (asked after ``runtime: ready``) with the same words the CLI's
``assemble()`` puts in ``problems`` at once, and the parser and the model are not loaded until then; the
session's tasks are registered (``switchboard.tasks``) but made, with their model, when first asked for."""

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


def test_the_app_s_assembly_loads_neither_workflow_parsing_nor_the_tasks(tmp_path: Path) -> None:
    code = (
        "import sys\n"
        "from pathlib import Path\n"
        "from desktop_app.assembly import assemble\n"
        "from desktop_app.paths import AppPaths\n"
        "home = Path(sys.argv[1])\n"
        "paths = AppPaths(home / 'c', home / 'd', home / 'l').ensure()\n"
        "built = assemble(paths, strict=False, project_dir=home, discover_later=True)\n"
        "later = ('desktop_app.runtime.workflows.model', 'desktop_app.runtime.workflows.parser',"
        " 'desktop_app.runtime.tasks.model', 'desktop_app.runtime.tasks.service')\n"
        "print(sorted(m for m in later if m in sys.modules), built.tasks_on_first_use.made)\n"
        "print(type(built.tasks).__name__, built.tasks is built.tasks, later[3] in sys.modules)\n"
        "built.store.close()\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, str(tmp_path)], cwd=ROOT, capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.splitlines() == ["[] None", "Tasks True True"]  # the tasks are made when first asked for
