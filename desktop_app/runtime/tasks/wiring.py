"""Connecting tasks to a host, a runtime, the store and the workflows (what :mod:`desktop_app.assembly` calls).

:func:`wire_tasks` registers the lazy ``switchboard.tasks`` server of a session with a store (without one there
are no tasks: they live in the store) and returns the session's :class:`~.service.Tasks` as a
:class:`TasksOnFirstUse`: made when first asked for (the app: after ``runtime: ready``, issue 27; the built-in
server: when it is first created), so registering loads nothing of the tasks' model, schedule or scheduler.
Its scheduler is started only by what stays running: the app (``Tasks.start`` after the window is up) and
``switchboard serve``.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from desktop_app.runtime.tasks import SERVER_NAME

if TYPE_CHECKING:
    from desktop_app.runtime.store import Store
    from desktop_app.runtime.tasks.model import RunStatus
    from desktop_app.runtime.tasks.runner import RunWorkflow, TaskRuntime
    from desktop_app.runtime.tasks.service import Tasks

CLOCK_SHIFT_ENV = "SWITCHBOARD_TASKS_CLOCK_SHIFT"
"""Seconds the scheduler's clock runs ahead (tests only: cron times are whole minutes)."""
RUN_TIMEOUT = 120.0
"""The tools return at once (a run goes on in the background); the usual timeout is plenty."""


def workflow_body(workflows: Any) -> tuple[RunWorkflow, Any]:
    """The workflow runner's API as a task body: ``(run_workflow, workflow_names)``."""

    async def run_workflow(name: str, inputs: Mapping[str, str], conversation_id: str) -> tuple[RunStatus, str, str]:
        workflow = workflows.load().get(name)
        if workflow is None:
            return "failed", "", f"there is no usable workflow named {name!r} (missing or broken)"
        result = await workflows.runner.run(workflow, dict(inputs), conversation_id)
        status: RunStatus = result.status
        return status, result.output, result.error

    def names() -> list[str]:
        return [w.name for w in workflows.load().sorted()]

    return run_workflow, names


class TasksOnFirstUse:
    """The session's :class:`Tasks`, made by ``make`` the first time ``get`` is called."""

    def __init__(self, make: Callable[[], Tasks]) -> None:
        self._make = make
        self.made: Tasks | None = None

    def get(self) -> Tasks:
        if self.made is None:
            self.made = self._make()
        return self.made


def wire_tasks(
    host: Any, runtime: TaskRuntime, *, store: Store | None, workflows: Any | None
) -> tuple[TasksOnFirstUse | None, list[str]]:
    """The session's tasks (``None`` without a store), made on first use, and problems for the user."""
    if store is None:
        return None, []

    def make() -> Tasks:
        from desktop_app.runtime.tasks.scheduler import SystemClock
        from desktop_app.runtime.tasks.service import Tasks

        run_workflow, names = workflow_body(workflows) if workflows is not None else (None, None)
        catalog = getattr(runtime, "agents", None)
        return Tasks(
            runtime,
            store,
            clock=SystemClock(float(os.environ.get(CLOCK_SHIFT_ENV) or 0)),
            run_workflow=run_workflow,
            workflow_names=names,
            agent_names=catalog.names if catalog is not None else None,
        )

    tasks = TasksOnFirstUse(make)

    def factory() -> Any:
        from desktop_app.runtime.tasks.server import make_tasks_server  # the SDK: on first use

        return make_tasks_server(tasks.get())

    try:
        host.register_builtin(SERVER_NAME, factory, call_timeout=RUN_TIMEOUT)
    except ValueError:
        return tasks, [
            f"An MCP server in mcp.json is named '{SERVER_NAME}'; the tasks server is off until it is renamed."
        ]
    return tasks, []


__all__ = ["TasksOnFirstUse", "wire_tasks", "workflow_body"]
