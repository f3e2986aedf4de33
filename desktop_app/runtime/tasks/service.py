"""The one :class:`Tasks` object the app, ``switchboard serve`` and the CLI hold.

It owns the :class:`~.records.TaskRecords` (the store), the :class:`~.runner.TaskRunner` and the
:class:`~.scheduler.Scheduler`, and is what the ``switchboard.tasks`` server, the Tasks page and
``switchboard tasks`` call: ``create``, ``update``, ``delete``, ``run_now``, ``find``, ``history``. Every change
wakes the scheduler, so its one timer is set for the new next due task.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from desktop_app.runtime.store import Store
from desktop_app.runtime.tasks.lock import SchedulerLock
from desktop_app.runtime.tasks.model import NOW, Task, TaskError, TaskRun, make_task
from desktop_app.runtime.tasks.records import TaskRecords
from desktop_app.runtime.tasks.runner import RunWorkflow, TaskRunner, TaskRuntime
from desktop_app.runtime.tasks.scheduler import Clock, Scheduler, SystemClock


class Tasks:
    """Tasks of one store, run by one runtime."""

    def __init__(
        self,
        runtime: TaskRuntime,
        store: Store,
        *,
        clock: Clock | None = None,
        run_workflow: RunWorkflow | None = None,
        workflow_names: Callable[[], list[str]] | None = None,
        agent_names: Callable[[], list[str]] | None = None,
        catch_up_window: float | None = None,
    ) -> None:
        self.clock = clock or SystemClock()
        self.records = TaskRecords(store)
        self.runner = TaskRunner(runtime, self.records, run_workflow=run_workflow)
        extra: dict[str, Any] = {} if catch_up_window is None else {"catch_up_window": catch_up_window}
        self.scheduler = Scheduler(self.records, self.runner, self.clock, on_missed=self.runner.publish, **extra)
        self.workflow_names = workflow_names
        self.agent_names = agent_names
        self.interrupted: list[TaskRun] = []
        """The runs found cut short by a stopped process at :meth:`start` (the window says so)."""
        self.lock = SchedulerLock(store.path)
        self.scheduling = False
        """Whether this process fires the schedule (another one on the same store may hold it)."""

    def start(self) -> None:
        """Mark runs a dead process left live as interrupted, fire missed tasks once, start the timer — unless
        another process on the same store already schedules (:mod:`.lock`): then ``scheduling`` is false."""
        self.interrupted = self.records.mark_interrupted()
        self.scheduling = self.lock.acquire()
        if self.scheduling:
            self.scheduler.start()

    async def aclose(self) -> None:
        await self.scheduler.aclose()
        await self.runner.aclose()
        self.lock.release()

    # -- reading ---------------------------------------------------------------------------------------

    def all(self) -> list[Task]:
        return self.records.all()

    def find(self, ref: str) -> Task:
        """A task by id, or by name (case-insensitive); a TaskError that names the known ones otherwise."""
        return self.find_in(self.records, ref)

    @staticmethod
    def find_in(records: TaskRecords, ref: str) -> Task:
        task = records.get(ref)
        if task is not None:
            return task
        tasks = records.all()
        named = [t for t in tasks if t.name.casefold() == ref.strip().casefold()]
        if len(named) == 1:
            return named[0]
        if len(named) > 1:
            raise TaskError(f"Several tasks are named {ref!r}; use the task id: " + ", ".join(t.id for t in named))
        known = ", ".join(repr(t.name) for t in tasks) or "none yet"
        raise TaskError(f"There is no task {ref!r}. Tasks: {known}.")

    def history(self, task_id: str | None = None, *, limit: int = 50) -> list[TaskRun]:
        return self.records.history(task_id, limit=limit)

    def last_runs(self) -> dict[str, TaskRun]:
        return self.records.last_runs()

    # -- changing --------------------------------------------------------------------------------------

    def create(
        self,
        *,
        name: str,
        prompt: str = "",
        workflow: str | None = None,
        inputs: Mapping[str, str] | None = None,
        agent: str = "",
        schedule: str = NOW,
        zone: str = "UTC",
        expires: str | None = None,
        start_now: bool = True,
    ) -> Task:
        """Create a task. A ``"now"`` task runs right away (``start_now``; needs a running loop)."""
        task = make_task(
            name=name,
            prompt=prompt,
            workflow=workflow,
            inputs=inputs,
            agent=agent,
            schedule=schedule,
            zone=zone,
            expires=expires,
            now=self.clock.now(),
        )
        self._check(task)
        self.records.save(task)
        if task.schedule is None and start_now:
            self.runner.start(task, "manual")
        self.scheduler.wake()
        return task

    def update(self, ref: str, **changes: Any) -> Task:
        """Change the fields given (see :meth:`Task.changed`)."""
        task = self.find(ref).changed(self.clock.now(), **changes)
        self._check(task)
        self.records.save(task)
        self.scheduler.wake()
        return task

    def set_enabled(self, ref: str, enabled: bool) -> Task:
        return self.update(ref, enabled=enabled)

    def delete(self, ref: str) -> Task:
        task = self.find(ref)
        self.runner.cancel(task.id)
        self.records.delete(task.id)
        self.scheduler.wake()
        return task

    def run_now(self, ref: str) -> TaskRun:
        """Start the task now (a manual run; refused, and recorded skipped, while it is still running)."""
        return self.runner.start(self.find(ref), "manual")

    def _check(self, task: Task) -> None:
        if task.workflow is not None and self.workflow_names is not None:
            names = self.workflow_names()
            if task.workflow not in names:
                known = ", ".join(names) or "none installed"
                raise TaskError(f"There is no workflow named {task.workflow!r}. Workflows: {known}.")
        if task.agent and self.agent_names is not None:
            agents = self.agent_names()
            if task.agent not in agents:
                raise TaskError(f"There is no agent named {task.agent!r}. Agents: {', '.join(agents) or 'none'}.")
