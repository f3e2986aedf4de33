"""Running a workflow deterministically: the runner, not the model, walks the steps.

API (for the window, the CLI, the ``switchboard.workflows`` server and tasks)::

    runner = WorkflowRunner(runtime)
    result: WorkflowResult = await runner.run(workflow, inputs, conversation_id)   # inputs: Mapping[str, str]
    runner.cancel(conversation_id) -> bool      # Stop: the workflow ends as "cancelled"
    runner.is_running(conversation_id) -> bool

``run`` raises :class:`~desktop_app.runtime.workflows.template.InputError` before anything runs when the inputs
do not fit, and :class:`WorkflowBusyError` when a workflow already runs in that conversation, or a step would start
the workflow it belongs to (``run_workflow`` from inside: the chain is a context variable) or one ``MAX_DEPTH`` deep.

Each step is one model turn: a sub-run in a new child conversation with the conversation's agent (so its tools,
provider and approval policy), whose prompt is the step's text with its variables filled in (a context note names
the workflow, the step and the workflow's folder, where its supporting files are). Its answer is the
step's output, ``{{Step Name}}`` for the later steps. The runner evaluates ``Condition`` lines (a false one skips
the step) and ``On error`` rules: a step fails when its run fails or is stopped, ends incomplete (token or
tool-round limit), or a tool call in it was denied; then ``continue`` goes on, a step name jumps forward to it
(the steps in between are skipped), and ``stop`` (the default) ends the workflow as failed. A step that is some
step's ``On error`` target runs only when a failure jumps to it. At the end the Output template is filled in
(without one, the last answer is the result). Every change is a ``WorkflowStarted``/``WorkflowStep``/
``WorkflowFinished`` event on the conversation, stamped with the workflow run's own id.
"""

from __future__ import annotations

import asyncio
import contextvars
import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal, Protocol

from desktop_app.runtime import events as ev
from desktop_app.runtime.context import ContextItem
from desktop_app.runtime.conversation import RunOutcome
from desktop_app.runtime.workflows.template import fill, holds, resolve_inputs

if TYPE_CHECKING:  # the parsed workflow's types: the model loads with discovery, not with the runner
    from desktop_app.runtime.workflows.model import Step, Workflow

WorkflowStatus = Literal["finished", "failed", "cancelled"]
MAX_DEPTH = 3
"""Workflows started from the steps of workflows (``run_workflow`` inside a step), at most this deep."""

workflow_chain: contextvars.ContextVar[tuple[str, ...]] = contextvars.ContextVar(
    "switchboard_workflow_chain", default=()
)
"""The workflows whose steps enclose the current code, outermost first (a step's run inherits it)."""


class WorkflowBusyError(RuntimeError):
    """A workflow already runs in this conversation, or would run inside itself, or too deep."""


class WorkflowRuntime(Protocol):
    """What the runner needs of ``desktop_app.runtime.service.Runtime``."""

    def new_conversation(self, *, agent: str | None = None) -> str: ...

    def conversation_agent(self, conversation_id: str) -> str: ...

    async def run(
        self, conversation_id: str, prompt: str, *, context: Sequence[ContextItem] | None = None
    ) -> RunOutcome: ...

    def notify(self, event: ev.Event) -> None: ...

    def subscribe(self, listener: Callable[[ev.Event], None]) -> Callable[[], None]: ...


@dataclass
class StepResult:
    """How one step of a workflow run went: status, output and the sub-run's conversation."""

    name: str
    status: ev.WorkflowStepStatus = "pending"
    output: str = ""
    detail: str = ""
    child_conversation_id: str = ""


@dataclass
class WorkflowResult:
    """How a workflow run ended: status, output or error, and each step's result."""

    run_id: str
    workflow: str
    status: WorkflowStatus
    output: str = ""
    error: str = ""
    steps: list[StepResult] = field(default_factory=list)

    def tally(self) -> str:
        """``"2 of 3 steps done, 1 failed"`` (skipped ones named too)."""
        counts = {s: sum(1 for r in self.steps if r.status == s) for s in ("done", "failed", "skipped")}
        text = f"{counts['done']} of {len(self.steps)} steps done"
        return text + "".join(f", {counts[s]} {s}" for s in ("failed", "skipped") if counts[s])


class _Watch:
    """The child runs' denials and incomplete endings, seen on the runtime's events."""

    def __init__(self) -> None:
        self.denied: dict[str, str] = {}
        self.ended: dict[str, str] = {}

    def __call__(self, event: ev.Event) -> None:
        if isinstance(event, ev.ApprovalDecided) and not event.approved:
            self.denied.setdefault(event.conversation_id, event.reason or "denied")
        elif isinstance(event, ev.RunFinished):
            self.ended[event.conversation_id] = event.reason


class _Run:
    """One workflow run's state while the runner walks it."""

    def __init__(
        self, runner: WorkflowRunner, workflow: Workflow, values: dict[str, str], conversation_id: str
    ) -> None:
        self.runtime = runner.runtime
        self.workflow = workflow
        self.inputs = values
        self.conversation_id = conversation_id
        self.run_id = uuid.uuid4().hex
        self.outputs: dict[str, str] = {}
        self.results = [StepResult(s.name) for s in workflow.steps]
        self.watch = _Watch()

    def set(
        self, index: int, status: ev.WorkflowStepStatus, *, output: str = "", detail: str = "", prompt: str = ""
    ) -> None:
        result = self.results[index]
        result.status, result.output, result.detail = status, output, detail
        self.runtime.notify(
            ev.WorkflowStep(
                conversation_id=self.conversation_id,
                run_id=self.run_id,
                workflow=self.workflow.name,
                index=index,
                name=result.name,
                status=status,
                child_conversation_id=result.child_conversation_id,
                prompt=prompt,
                output=output,
                detail=detail,
            )
        )

    def skip_between(self, start: int, end: int, detail: str) -> None:
        for index in range(start, end):
            if self.results[index].status == "pending":
                self.set(index, "skipped", detail=detail)

    def finish(self, status: WorkflowStatus, output: str = "", error: str = "") -> WorkflowResult:
        self.runtime.notify(
            ev.WorkflowFinished(
                conversation_id=self.conversation_id,
                run_id=self.run_id,
                workflow=self.workflow.name,
                status=status,
                output=output,
                error=error,
            )
        )
        return WorkflowResult(self.run_id, self.workflow.name, status, output, error, self.results)

    async def step(self, index: int, step: Step) -> str | None:
        """Run the step's sub-run; its answer, or ``None`` when it failed (the reason is in its result)."""
        agent = self.runtime.conversation_agent(self.conversation_id)
        child = self.runtime.new_conversation(agent=agent or None)  # "": no agents defined, the default
        self.results[index].child_conversation_id = child
        prompt = fill(step.prompt, self.inputs, self.outputs)
        self.set(index, "running", prompt=prompt)
        where = (
            f"workflow {self.workflow.name}, step {step.number} of {len(self.workflow.steps)} ({step.name}); "
            f"the workflow's folder, with its supporting files: {self.workflow.folder}"
        )
        outcome = await self.runtime.run(child, prompt, context=[ContextItem("note", "workflow", where)])
        reason = self.watch.ended.get(child, "end_turn")
        if outcome.status == "cancelled":
            detail = "stopped"
        elif outcome.status == "failed":
            detail = f"the run failed: {outcome.error or 'no reason given'}"
        elif child in self.watch.denied:
            detail = f"a tool call was denied ({self.watch.denied[child]})"
        elif reason != "end_turn":
            detail = f"the answer is incomplete ({reason.replace('_', ' ')})"
        else:
            self.set(index, "done", output=outcome.content)
            return outcome.content
        self.set(index, "failed", output=outcome.content, detail=detail)
        return None

    async def walk(self) -> WorkflowResult:
        steps = self.workflow.steps
        handlers = self.workflow.jump_targets()
        jumped: set[str] = set()
        index = 0
        while index < len(steps):
            step = steps[index]
            if step.name in handlers and step.name not in jumped:
                self.set(index, "skipped", detail="runs only when a failing step's On error names it")
                index += 1
                continue
            if step.condition is not None and not holds(step.condition, self.inputs, self.outputs):
                self.set(index, "skipped", detail=f"condition not met: {step.condition}")
                index += 1
                continue
            output = await self.step(index, step)
            if output is not None:
                self.outputs[step.name] = output
                index += 1
                continue
            why = f"step {step.number} ({step.name}) failed: {self.results[index].detail}"
            rule = step.on_error
            if rule.action == "continue":
                index += 1
            elif rule.action == "jump":
                target = next(i for i, s in enumerate(steps) if s.name == rule.target)
                self.skip_between(index + 1, target, f"skipped: {why}; jumped to {rule.target}")
                jumped.add(rule.target)
                index = target
            else:
                self.skip_between(index + 1, len(steps), f"not run: {why}")
                return self.finish("failed", error=f"The workflow stopped: {why}.")
        if self.workflow.output is not None:
            output = fill(self.workflow.output, self.inputs, self.outputs)
        else:
            done = [r.output for r in self.results if r.status == "done"]
            output = done[-1] if done else ""
        return self.finish("finished", output.strip())


class WorkflowRunner:
    """Runs workflows on ``runtime``, at most one per conversation (see the module for the API)."""

    def __init__(self, runtime: WorkflowRuntime) -> None:
        self.runtime = runtime
        self._tasks: dict[str, asyncio.Task[object]] = {}
        self._stopping: set[str] = set()

    def is_running(self, conversation_id: str) -> bool:
        return conversation_id in self._tasks

    def cancel(self, conversation_id: str) -> bool:
        """Stop the workflow running in ``conversation_id`` (its running step's run is stopped with it)."""
        task = self._tasks.get(conversation_id)
        if task is None or task.done():
            return False
        self._stopping.add(conversation_id)
        task.cancel()
        return True

    async def run(self, workflow: Workflow, inputs: Mapping[str, str], conversation_id: str) -> WorkflowResult:
        """Run ``workflow`` with ``inputs`` for ``conversation_id`` (see the module)."""
        if conversation_id in self._tasks:
            raise WorkflowBusyError(
                f"A workflow is already running in this conversation; wait for it or stop it before starting "
                f"{workflow.name!r}."
            )
        chain = workflow_chain.get()
        if workflow.name in chain:
            raise WorkflowBusyError(
                f"Workflow cycle refused: {' → '.join([*chain, workflow.name])}. {workflow.name!r} is already running "
                "higher up; do the step's work directly instead."
            )
        if len(chain) >= MAX_DEPTH:
            raise WorkflowBusyError(
                f"Workflow depth limit reached ({MAX_DEPTH}): {' → '.join([*chain, workflow.name])}. Do the step's "
                "work directly instead."
            )
        values = resolve_inputs(workflow, inputs)  # InputError before anything is emitted
        task = asyncio.current_task()
        assert task is not None, "WorkflowRunner.run runs inside a task"
        state = _Run(self, workflow, values, conversation_id)
        self._tasks[conversation_id] = task
        token = workflow_chain.set((*chain, workflow.name))
        unsubscribe = self.runtime.subscribe(state.watch)
        self.runtime.notify(
            ev.WorkflowStarted(
                conversation_id=conversation_id,
                run_id=state.run_id,
                workflow=workflow.name,
                steps=[s.name for s in workflow.steps],
                inputs=values,
            )
        )
        try:
            return await state.walk()
        except asyncio.CancelledError:
            running = next((i for i, r in enumerate(state.results) if r.status == "running"), None)
            if running is not None:
                state.set(running, "failed", detail="stopped")
            state.skip_between(0, len(state.results), "not run: the workflow was stopped")
            result = state.finish("cancelled", error="The workflow was stopped.")
            if conversation_id in self._stopping and task.uncancel() == 0:
                return result
            raise
        finally:
            unsubscribe()
            workflow_chain.reset(token)
            self._stopping.discard(conversation_id)
            self._tasks.pop(conversation_id, None)


__all__ = ["StepResult", "WorkflowBusyError", "WorkflowResult", "WorkflowRunner", "WorkflowRuntime", "WorkflowStatus"]
