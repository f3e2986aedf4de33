"""A workflow run's step states are kept with its conversation and come back after a restart; a run left
running by a dead process comes back as interrupted. Step sub-runs are filed under the conversation."""

from __future__ import annotations

from pathlib import Path

import pytest

from desktop_app.runtime.workflows.parser import parse_workflow
from desktop_app.runtime.workflows.records import WorkflowRecords, step_key
from desktop_app.runtime.workflows.runner import WorkflowRunner
from tests.support.fakes import answer
from tests.unit.runtime.workflows.test_runner import GOOD, build


@pytest.mark.asyncio
async def test_runs_are_written_and_read_back_by_a_new_process(tmp_path: Path) -> None:
    runtime, _provider, _seen = build([answer("Severe."), answer("fine: SAFE"), answer("Fixed.")])
    links: list[tuple[str, str, str, str]] = []
    records = WorkflowRecords(tmp_path / "runs", link=lambda *a: links.append(a), agent_of=lambda _c: "default")
    runtime.subscribe(records)
    conversation = runtime.new_conversation()
    result = await WorkflowRunner(runtime).run(parse_workflow(GOOD / "safe-fix"), {"issue": "x"}, conversation)

    after_restart = WorkflowRecords(tmp_path / "runs").load(conversation)
    assert len(after_restart) == 1
    run = after_restart[0]
    assert (run.run_id, run.workflow, run.status, run.inputs) == (result.run_id, "safe-fix", "finished", {"issue": "x"})
    assert [(s.name, s.status, s.output) for s in run.steps] == [
        ("Assess Issue", "done", "Severe."),
        ("Judge Safety", "done", "fine: SAFE"),
        ("Make Fix", "done", "Fixed."),
        ("Write Report", "skipped", ""),
    ]
    assert run.output == "Fixed."
    assert links == [
        (s.child_conversation_id, conversation, step_key(result.run_id, i), "default")
        for i, s in enumerate(result.steps)
        if s.child_conversation_id
    ]


def test_a_run_left_running_comes_back_interrupted(tmp_path: Path) -> None:
    from desktop_app.runtime import events as ev

    records = WorkflowRecords(tmp_path)
    records(ev.WorkflowStarted(conversation_id="c", run_id="r", workflow="greet", steps=["A", "B"]))
    records(
        ev.WorkflowStep(
            conversation_id="c",
            run_id="r",
            workflow="greet",
            index=0,
            name="A",
            status="running",
            child_conversation_id="child",
        )
    )
    assert records.load("c")[0].status == "running"  # this process is running it
    run = WorkflowRecords(tmp_path).load("c")[0]  # another process: nobody is
    assert run.status == "interrupted"
    assert [(s.status, s.detail, s.child_conversation_id) for s in run.steps] == [
        ("failed", "interrupted", "child"),
        ("pending", "", ""),
    ]
    records.prune(["other"])
    assert WorkflowRecords(tmp_path).load("c") == []


def test_wiring_forgets_the_runs_of_purged_conversations(tmp_path: Path) -> None:
    from desktop_app.runtime import events as ev
    from desktop_app.runtime.host import Host
    from desktop_app.runtime.store import Store
    from desktop_app.runtime.workflows.records import FOLDER_NAME
    from desktop_app.runtime.workflows.wiring import wire_workflows

    store = Store.open(tmp_path / "store.db")
    try:
        kept = store.create_conversation()
        records = WorkflowRecords(tmp_path / "data" / FOLDER_NAME)
        for conversation in (kept, "purged"):
            records(ev.WorkflowStarted(conversation_id=conversation, run_id="r", workflow="greet", steps=["A"]))
        runtime, _provider, _seen = build([])
        workflows, _problems = wire_workflows(
            Host({}), runtime, config_dir=tmp_path, data_dir=tmp_path / "data", project_dir=None, store=store
        )
        after = WorkflowRecords(tmp_path / "data" / FOLDER_NAME)
        # Start-up does not read the records' folder: the records are made (and pruned) when first used.
        assert [len(after.load(kept)), len(after.load("purged"))] == [1, 1]
        assert workflows.records is not None
        assert [len(after.load(kept)), len(after.load("purged"))] == [1, 0]
    finally:
        store.close()
