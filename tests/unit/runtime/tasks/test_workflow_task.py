"""A task whose body is a workflow runs it through the workflows' runner (real Runtime, real workflow files):
its inputs reach the steps, the run's answer is the workflow's Output; an unknown workflow is refused at creation."""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path

import pytest

from desktop_app.runtime.run.approvals import ApprovalPolicy
from desktop_app.runtime.service import Runtime
from desktop_app.runtime.settings import ProviderSettings, Settings
from desktop_app.runtime.store import Store
from desktop_app.runtime.tasks import TaskError, Tasks
from desktop_app.runtime.tasks.wiring import workflow_body
from desktop_app.runtime.workflows.wiring import Workflows
from tests.support.fakes import FakeHost, FakeProvider, answer, calls
from tests.unit.runtime.tasks.conftest import FakeClock

FIXTURES = Path(__file__).resolve().parents[3] / "fixtures" / "workflows" / "good"


@pytest.mark.asyncio
async def test_a_workflow_task_runs_the_workflow_with_its_inputs(
    tmp_path: Path, store: Store, clock: FakeClock
) -> None:
    shutil.copytree(FIXTURES / "pr-review", tmp_path / "config" / "workflows" / "pr-review")
    provider = FakeProvider([answer("a.py\nb.py"), answer("Both fine.")])
    settings = Settings(provider=ProviderSettings(base_url="http://127.0.0.1:9/v1", model="m"))
    runtime = Runtime(
        settings=settings, host=FakeHost({}), policy=ApprovalPolicy("ask"), provider_factory=lambda _s, _k: provider
    )
    workflows = Workflows(runtime, config_dir=tmp_path / "config", project_dir=None)
    run_workflow, names = workflow_body(workflows)
    tasks = Tasks(runtime, store, clock=clock, run_workflow=run_workflow, workflow_names=names)
    with pytest.raises(TaskError, match=r"There is no workflow named 'nope'\. Workflows: pr-review\."):
        tasks.create(name="x", workflow="nope", schedule="0 9 * * *")
    task = tasks.create(name="Review", workflow="pr-review", inputs={"target": "lib/"})  # "now": runs at once
    done = await tasks.runner.wait(task.id)
    assert done is not None and done.status == "finished", done
    assert done.answer == "Review of lib/:\nBoth fine."
    first_step = provider.requests[0].messages[-1]
    assert "lib/" in str(first_step)
    await tasks.aclose()
    await runtime.aclose()


@pytest.mark.asyncio
async def test_an_approval_inside_a_workflow_step_makes_the_task_wait(
    tmp_path: Path, store: Store, clock: FakeClock
) -> None:
    shutil.copytree(FIXTURES / "pr-review", tmp_path / "config" / "workflows" / "pr-review")
    host = FakeHost({"read_log": lambda a: "a.py"})
    provider = FakeProvider([calls(("k", "mcp__fake__read_log", "{}")), answer("a.py"), answer("Fine.")])
    settings = Settings(provider=ProviderSettings(base_url="http://127.0.0.1:9/v1", model="m"))
    runtime = Runtime(
        settings=settings, host=host, policy=ApprovalPolicy("ask"), provider_factory=lambda _s, _k: provider
    )
    workflows = Workflows(runtime, config_dir=tmp_path / "config", project_dir=None)
    run_workflow, names = workflow_body(workflows)
    tasks = Tasks(runtime, store, clock=clock, run_workflow=run_workflow, workflow_names=names)
    waiting = asyncio.Event()
    tasks.runner.add_listener(lambda run: waiting.set() if run.status == "waiting" else None)
    task = tasks.create(name="Review", workflow="pr-review")
    await waiting.wait()  # the step's sub-run (a child conversation) waits: so does the task
    assert tasks.history(task.id)[0].note == "waiting for you: approve fake / read_log"
    assert host.log == []
    [pending] = runtime.pending_approvals()
    runtime.answer(pending, approved=True)
    done = await tasks.runner.wait(task.id)
    assert done is not None and (done.status, done.answer) == ("finished", "Review of src/:\nFine.")
    await tasks.aclose()
    await runtime.aclose()
