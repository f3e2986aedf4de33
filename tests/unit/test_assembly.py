"""``assemble(discover_later=True)`` (the app, issue 27) registers the workflows without reading them: a broken
workflow's problem comes from ``later_problems`` (asked after ``runtime: ready``) with the same words the CLI's
``assemble()`` puts in ``problems`` at once, and the parser and the model are not loaded until then; the
session's tasks are registered (``switchboard.tasks``) but made, with their model, when first asked for. The
hooks' runner is built on first use (a broken hook file reported later, in the same words), and still acts on
the first prompt; the run loop, the compactor and the workflows' runner and records load when first used."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from desktop_app.assembly import assemble
from desktop_app.paths import AppPaths
from desktop_app.runtime.run.approvals import ApprovalPolicy
from desktop_app.runtime.settings import ProviderSettings, Settings
from tests.support.llm_server import ScriptedLLMServer, text_reply

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
        "later = ('desktop_app.runtime.tasks.service', 'desktop_app.runtime.workflows.model',"
        " 'desktop_app.runtime.workflows.parser', 'desktop_app.runtime.tasks.model',"
        " 'desktop_app.runtime.workflows.runner', 'desktop_app.runtime.workflows.records',"
        " 'desktop_app.runtime.hooks.runner', 'desktop_app.runtime.hooks.model', 'desktop_app.runtime.run.loop',"
        " 'desktop_app.runtime.compaction.compactor', 'desktop_app.runtime.events.protocol',"
        " 'desktop_app.runtime.extensions.archive')\n"
        "built.runtime.new_conversation()\n"  # as attach_runtime does before ready
        "print(sorted(m for m in later if m in sys.modules), built.tasks_on_first_use.made)\n"
        "print(type(built.tasks).__name__, built.tasks is built.tasks, later[0] in sys.modules)\n"
        "import asyncio\n"
        "asyncio.run(built.runtime.prepare_runs())\n"  # the app: at the first keystroke
        "print(sorted(m.rsplit('.', 2)[-2] + '.' + m.rsplit('.', 1)[-1] for m in later[6:] if m in sys.modules))\n"
        "built.store.close()\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, str(tmp_path)], cwd=ROOT, capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.splitlines() == [
        "[] None",
        "Tasks True True",  # the tasks are made when first asked for
        "['compaction.compactor', 'events.protocol', 'hooks.model', 'hooks.runner', 'run.loop']",  # prepared
    ]


def _broken_hook_file(paths: AppPaths) -> Path:
    broken = paths.config_dir / "imported-hooks" / "broken.json"
    broken.parent.mkdir(parents=True)
    broken.write_text("{not json", encoding="utf-8")
    return broken


@pytest.mark.asyncio
@pytest.mark.parametrize("later", [False, True])
async def test_a_broken_hook_file_is_reported_now_or_later_in_the_same_words(tmp_path: Path, later: bool) -> None:
    paths = AppPaths(tmp_path / "config", tmp_path / "data", tmp_path / "logs").ensure()
    broken = _broken_hook_file(paths)
    built = assemble(paths, strict=False, persist=False, project_dir=tmp_path, discover_later=later)
    try:
        now = [p for p in built.problems if p.startswith("A hook was skipped")]
        asked = [p for ask in built.later_problems for p in ask() if p.startswith("A hook was skipped")]
        [problem] = asked if later else now
        assert (now if later else asked) == []
        assert str(broken) in problem
    finally:
        await built.aclose()


@pytest.mark.asyncio
@pytest.mark.parametrize("later", [False, True])
async def test_hooks_built_on_first_use_act_on_the_first_prompt(tmp_path: Path, later: bool) -> None:
    """A UserPromptSubmit hook blocks the first prompt whether the runner was built by ``assemble()`` or is built
    by the first run (the app): no request reaches the model."""
    paths = AppPaths(tmp_path / "config", tmp_path / "data", tmp_path / "logs").ensure()
    with ScriptedLLMServer() as llm:
        settings = Settings(
            provider=ProviderSettings(base_url=llm.url, model="m", dialect="openai"),
            hooks={"UserPromptSubmit": [{"command": "echo no >&2; exit 2", "description": "guard"}]},
        )
        built = assemble(
            paths,
            strict=False,
            settings=settings,
            persist=False,
            project_dir=tmp_path,
            discover_later=later,
            policy=ApprovalPolicy("always"),
        )
        try:
            llm.enqueue(text_reply("should not be asked"))
            outcome = await built.runtime.run(built.runtime.new_conversation(), "hello")
            assert (outcome.status, outcome.error) == ("failed", "blocked by a UserPromptSubmit hook")
            assert llm.requests == []
        finally:
            await built.aclose()
