"""The runner walks the steps itself, on the real Runtime with a scripted provider: each step one sub-run (its
prompt the filled step text), conditions and On error rules decided by the runner, the Output filled in, and
every change a workflow event on the conversation."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from desktop_app.runtime import events as ev
from desktop_app.runtime.errors import ProviderError
from desktop_app.runtime.messages import UserMessage
from desktop_app.runtime.providers.base import ProviderEvent
from desktop_app.runtime.run.approvals import ApprovalPolicy
from desktop_app.runtime.service import Runtime
from desktop_app.runtime.settings import ProviderSettings, Settings
from desktop_app.runtime.workflows.parser import parse_workflow
from desktop_app.runtime.workflows.runner import WorkflowBusyError, WorkflowRunner
from desktop_app.runtime.workflows.template import InputError
from tests.support.fakes import FakeHost, FakeProvider, answer, calls

GOOD = Path(__file__).resolve().parents[3] / "fixtures" / "workflows" / "good"


def build(
    responses: list[list[ProviderEvent | Exception]], *, mode: str = "always", host: FakeHost | None = None
) -> tuple[Runtime, FakeProvider, list[ev.Event]]:
    provider = FakeProvider(responses)
    runtime = Runtime(
        settings=Settings(provider=ProviderSettings(base_url="http://127.0.0.1:9/v1", model="m")),
        host=host or FakeHost(),
        policy=ApprovalPolicy(mode),  # type: ignore[arg-type]
        provider_factory=lambda _s, _k: provider,
    )
    seen: list[ev.Event] = []
    runtime.subscribe(seen.append)
    return runtime, provider, seen


def prompts(provider: FakeProvider) -> list[str]:
    out = []
    for request in provider.requests:
        user = [m for m in request.messages if isinstance(m, UserMessage)][-1]
        out.append(str(user.content))
    return out


def steps(seen: list[ev.Event]) -> list[tuple[str, str]]:
    return [(e.name, e.status) for e in seen if isinstance(e, ev.WorkflowStep)]


@pytest.mark.asyncio
async def test_review_fills_variables_runs_each_step_as_a_sub_run_and_fills_the_output() -> None:
    runtime, provider, seen = build([answer("a.py\nb.py"), answer("Looks fine.")])
    conversation = runtime.new_conversation()
    result = await WorkflowRunner(runtime).run(parse_workflow(GOOD / "pr-review"), {"target": "lib/"}, conversation)

    assert prompts(provider) == [
        "List the files changed under lib/, one per line.",
        "Review these files:\na.py\nb.py\n\nPay attention to error handling, edge cases and naming.",
    ]
    assert (result.status, result.output) == ("finished", "Review of lib/:\nLooks fine.")
    first = [m for m in provider.requests[0].messages if isinstance(m, UserMessage)][-1]
    assert first.context == (
        "<context>\nworkflow pr-review, step 1 of 2 (List Changes); the workflow's folder, with its supporting "
        f"files: {GOOD / 'pr-review'}\n</context>"
    )
    assert result.tally() == "2 of 2 steps done"
    started = [e for e in seen if isinstance(e, ev.WorkflowStarted)]
    assert started[0].steps == ["List Changes", "Review Files"] and started[0].inputs["focus"] == "error handling"
    assert steps(seen) == [
        ("List Changes", "running"),
        ("List Changes", "done"),
        ("Review Files", "running"),
        ("Review Files", "done"),
    ]
    children = {e.child_conversation_id for e in seen if isinstance(e, ev.WorkflowStep)}
    assert conversation not in children and len(children) == 2  # each step its own sub-run
    assert not runtime.conversation(conversation).messages  # the workflow's conversation holds no step turns
    finished = [e for e in seen if isinstance(e, ev.WorkflowFinished)]
    assert [(e.conversation_id, e.status, e.output) for e in finished] == [(conversation, "finished", result.output)]


@pytest.mark.asyncio
async def test_condition_false_skips_the_fix_and_runs_the_report() -> None:
    runtime, provider, seen = build([answer("Severe."), answer("Too risky. UNSAFE"), answer("A person must fix it.")])
    result = await WorkflowRunner(runtime).run(
        parse_workflow(GOOD / "safe-fix"), {"issue": "crash on save"}, runtime.new_conversation()
    )
    assert [s.status for s in result.steps] == ["done", "done", "skipped", "done"]
    assert result.steps[2].detail == "condition not met: {{Judge Safety}} contains SAFE"
    assert result.output == "A person must fix it."  # no Output section: the last answer
    assert prompts(provider)[0] == "Read this report and say how severe the bug is: crash on save"
    assert ("Make Fix", "running") not in steps(seen)


@pytest.mark.asyncio
async def test_a_failing_step_jumps_to_rollback_and_continue_goes_on() -> None:
    runtime, provider, _seen = build(
        [
            [ProviderError("test runner crashed")],  # Run Checks fails: On error continue
            [ProviderError("deploy refused")],  # Release fails: On error Roll Back
            answer("Rolled back to build 41."),
        ]
    )
    result = await WorkflowRunner(runtime).run(
        parse_workflow(GOOD / "release-with-rollback"), {"environment": "staging"}, runtime.new_conversation()
    )
    assert [(s.name, s.status) for s in result.steps] == [
        ("Run Checks", "failed"),
        ("Release", "failed"),
        ("Check Health", "skipped"),
        ("Write Note", "skipped"),
        ("Roll Back", "done"),
    ]
    assert (
        result.steps[2].detail
        == "skipped: step 2 (Release) failed: the run failed: "
        + result.steps[1].detail.split("the run failed: ")[1]
        + "; jumped to Roll Back"
    )
    assert prompts(provider)[-1] == "Roll staging back to the previous build and say what went wrong."
    assert result.status == "finished"
    assert result.output == "Release to staging done."  # {{Check Health}} did not run: empty


@pytest.mark.asyncio
async def test_the_rollback_step_is_skipped_when_nothing_fails() -> None:
    runtime, _provider, _seen = build([answer("ok"), answer("released"), answer("healthy"), answer("note")])
    result = await WorkflowRunner(runtime).run(
        parse_workflow(GOOD / "release-with-rollback"),
        {"environment": "prod", "notify": "yes"},
        runtime.new_conversation(),
    )
    assert [s.status for s in result.steps] == ["done", "done", "done", "done", "skipped"]
    assert result.steps[4].detail == "runs only when a failing step's On error names it"
    assert result.output == "Release to prod done.\nhealthy"


@pytest.mark.asyncio
async def test_a_denied_tool_call_fails_the_step_and_stop_ends_the_workflow() -> None:
    host = FakeHost(handlers={"ls": lambda _a: "a.py"})
    runtime, _provider, seen = build(
        [calls(("c1", "mcp__fake__ls", "{}")), answer("I could not list them.")], mode="never", host=host
    )
    result = await WorkflowRunner(runtime).run(parse_workflow(GOOD / "pr-review"), {}, runtime.new_conversation())
    assert result.status == "failed"
    assert [s.status for s in result.steps] == ["failed", "skipped"]
    assert result.steps[0].detail.startswith("a tool call was denied")
    assert result.error.startswith("The workflow stopped: step 1 (List Changes) failed: a tool call was denied")
    assert host.log == []
    assert [e.status for e in seen if isinstance(e, ev.WorkflowFinished)] == ["failed"]


@pytest.mark.asyncio
async def test_stop_ends_the_workflow_as_cancelled_and_stops_the_steps_run() -> None:
    runtime, provider, _seen = build([answer("never finishes")])
    provider.gate = asyncio.Event()  # the first step's answer waits
    runner = WorkflowRunner(runtime)
    conversation = runtime.new_conversation()
    running = asyncio.Event()
    runtime.subscribe(lambda e: running.set() if isinstance(e, ev.WorkflowStep) and e.status == "running" else None)
    task = asyncio.ensure_future(runner.run(parse_workflow(GOOD / "pr-review"), {}, conversation))
    await asyncio.wait_for(running.wait(), 10)
    assert runner.is_running(conversation)
    with pytest.raises(WorkflowBusyError):
        await runner.run(parse_workflow(GOOD / "greet"), {}, conversation)
    assert runner.cancel(conversation)
    result = await task
    assert result.status == "cancelled"
    assert [(s.status, s.detail) for s in result.steps] == [
        ("failed", "stopped"),
        ("skipped", "not run: the workflow was stopped"),
    ]
    child = result.steps[0].child_conversation_id
    assert not runtime.is_running(child) and not runner.is_running(conversation)


@pytest.mark.asyncio
async def test_missing_input_is_refused_before_anything_runs() -> None:
    runtime, provider, seen = build([])
    with pytest.raises(InputError):
        await WorkflowRunner(runtime).run(parse_workflow(GOOD / "safe-fix"), {}, runtime.new_conversation())
    assert seen == [] and provider.requests == []
