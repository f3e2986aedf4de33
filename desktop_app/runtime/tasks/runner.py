"""Running a task: a normal run of the Runtime on a new conversation tagged with the task.

:class:`TaskRunner` starts each run as an asyncio task (so it goes on while the window is closed to the tray,
and in ``switchboard serve``) and records it in ``task_runs``: ``running``; ``waiting`` while a tool call of
the run waits for an approval (approvals are data keyed by the runtime's tool-call ids, answered from the
window or the served host's approvals; a background run never approves by itself); then ``finished``,
``failed`` or ``cancelled`` with the answer. A workflow task calls the workflows' runner through the injected
``run_workflow``. Listeners (the window's notifications, the tray's "runs in progress") get every change.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Protocol

from desktop_app.runtime import events as ev
from desktop_app.runtime.conversation import RunOutcome
from desktop_app.runtime.tasks.model import RunStatus, Task, TaskRun, Trigger
from desktop_app.runtime.tasks.records import TaskRecords

RunWorkflow = Callable[[str, Mapping[str, str], str], Awaitable[tuple[RunStatus, str, str]]]
"""``(workflow, inputs, conversation_id) -> (status, output, error)``."""
Listener = Callable[[TaskRun], None]


class TaskRuntime(Protocol):
    """What a task run needs of ``desktop_app.runtime.service.Runtime``."""

    def new_conversation(self, *, agent: str | None = None) -> str: ...

    async def run(self, conversation_id: str, prompt: str) -> RunOutcome: ...

    def subscribe(self, listener: Callable[[ev.Event], None]) -> Callable[[], None]: ...


@dataclass
class _Active:
    run: TaskRun
    task: asyncio.Task[None]
    waiting: dict[str, ev.ApprovalRequired]
    children: set[str]
    """Conversations run on its behalf (a workflow's steps, sub-agents): their approvals are the run's too."""


class TaskRunner:
    """Starts task runs in the background and records them; one live run per task."""

    def __init__(self, runtime: TaskRuntime, records: TaskRecords, *, run_workflow: RunWorkflow | None = None) -> None:
        self.runtime = runtime
        self.records = records
        self.run_workflow = run_workflow
        self._active: dict[str, _Active] = {}  # by task id
        self._listeners: list[Listener] = []
        self._closing = False
        self._unsubscribe = runtime.subscribe(self._on_event)

    def add_listener(self, listener: Listener) -> Callable[[], None]:
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener) if listener in self._listeners else None

    def is_running(self, task_id: str) -> bool:
        return task_id in self._active

    def active(self) -> list[TaskRun]:
        """The runs in progress (the tray lists them)."""
        return [a.run for a in self._active.values()]

    def waiting_approvals(self, conversation_id: str) -> list[ev.ApprovalRequired]:
        """The approvals a task run in this conversation waits for (the window re-shows them when it opens it)."""
        return [
            e for a in self._active.values() if a.run.conversation_id == conversation_id for e in a.waiting.values()
        ]

    def start(self, task: Task, trigger: Trigger, *, scheduled_for: float | None = None, note: str = "") -> TaskRun:
        """Start ``task`` now; a task already running is not started again (the run is recorded skipped)."""
        if task.id in self._active:
            return self.publish(
                self.records.add_run(
                    task.id, trigger, "skipped", scheduled_for=scheduled_for, note="skipped: still running", ended=True
                )
            )
        try:
            conversation_id = self.runtime.new_conversation(agent=task.agent or None)
        except Exception as exc:  # an agent that no longer exists: the run fails, visibly, with why
            return self.publish(
                self.records.add_run(
                    task.id, trigger, "failed", scheduled_for=scheduled_for, note=f"failed: {exc}", ended=True
                )
            )
        run = self.records.add_run(
            task.id, trigger, "running", scheduled_for=scheduled_for, conversation_id=conversation_id, note=note
        )
        self.records.store.set_title_if_empty(conversation_id, task.name)
        job = asyncio.get_running_loop().create_task(self._run(task, run), name=f"switchboard-task-{task.id}")
        self._active[task.id] = _Active(run, job, {}, set())
        return self.publish(run)

    async def wait(self, task_id: str) -> TaskRun | None:
        """Wait for the task's live run to end; its final record (``None`` when none runs)."""
        active = self._active.get(task_id)
        if active is None:
            return None
        with contextlib.suppress(asyncio.CancelledError):
            await asyncio.shield(active.task)
        return self.records.run(active.run.id)

    def cancel(self, task_id: str) -> bool:
        active = self._active.get(task_id)
        if active is None:
            return False
        active.task.cancel()
        return True

    async def aclose(self) -> None:
        """Stop every run (each is recorded ``interrupted`` with its partial answer) and stop listening."""
        self._closing = True
        jobs = [a.task for a in self._active.values()]
        for job in jobs:
            job.cancel()
        if jobs:
            await asyncio.gather(*jobs, return_exceptions=True)
        self._unsubscribe()

    async def _run(self, task: Task, run: TaskRun) -> None:
        conversation_id = run.conversation_id or ""
        status: RunStatus = "failed"
        answer, note = "", ""
        try:
            if task.workflow is not None:
                if self.run_workflow is None:
                    raise RuntimeError("workflows are not available in this session")
                status, answer, error = await self.run_workflow(task.workflow, task.inputs, conversation_id)
            else:
                outcome = await self.runtime.run(conversation_id, task.prompt)
                status, answer, error = outcome.status, outcome.content, outcome.error or ""
            note = error and f"{status}: {error}"
        except asyncio.CancelledError:
            status, note = "interrupted", "interrupted: Switchboard stopped during the run"
            answer = self.records.partial_answer(conversation_id)
            if not self._closing:
                status, note = "cancelled", "cancelled: stopped from the Tasks page"
            raise
        except Exception as exc:
            status, note = "failed", f"failed: {exc}"
            answer = self.records.partial_answer(conversation_id)
        finally:
            self._active.pop(task.id, None)
            self.records.set_status(run.id, status, note=note, answer=answer)
            final = self.records.run(run.id)
            if final is not None:
                self.publish(final)

    def _on_event(self, event: ev.Event) -> None:
        cid = event.conversation_id
        active = next((a for a in self._active.values() if cid in (a.run.conversation_id, *a.children)), None)
        if active is None:
            return
        if isinstance(event, ev.WorkflowStep | ev.SubagentStarted) and event.child_conversation_id:
            active.children.add(event.child_conversation_id)
            return
        if isinstance(event, ev.ApprovalRequired):
            active.waiting[event.tool_call_id] = event
            note = f"waiting for you: approve {event.server} / {event.tool}"
        elif isinstance(event, ev.ApprovalDecided) and event.tool_call_id in active.waiting:
            active.waiting.pop(event.tool_call_id, None)
            note = ""
        else:
            return
        status: RunStatus = "waiting" if active.waiting else "running"
        if status != active.run.status:
            self.records.set_status(active.run.id, status, note=note)
            updated = self.records.run(active.run.id)
            if updated is not None:
                active.run = updated
                self.publish(updated)

    def publish(self, run: TaskRun) -> TaskRun:
        """Tell the listeners about ``run`` (also the scheduler's missed records)."""
        for listener in list(self._listeners):
            listener(run)
        return run
