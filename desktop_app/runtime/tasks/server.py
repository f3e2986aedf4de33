"""The built-in ``switchboard.tasks`` server (lazy, like the other built-ins; nanobot's ``nanobot.tasks``).

* ``list_tasks`` (read-only): every task with its schedule in words, next run and last result;
* ``create_task``, ``update_task``, ``delete_task``: change the tasks. They always ask for the user's approval
  (``run.approvals.ALWAYS_ASK``): no "always allow" grant, ``--approve always`` or hook answers for them;
* ``run_task``: start a task now in the background (a new conversation tagged with the task); asks like any
  tool that is not read-only.
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING

from desktop_app.runtime.tasks import SERVER_NAME
from desktop_app.runtime.tasks.model import NOW, Task, TaskError, TaskRun
from desktop_app.runtime.tasks.service import Tasks

if TYPE_CHECKING:
    from mcp.server.mcpserver import MCPServer

CHANGING_TOOLS = ("create_task", "update_task", "delete_task")
SCHEDULE_HELP = (
    "schedule: a five-field cron line 'M H D MONTH WEEKDAY' restricted to every day ('0 9 * * *'), weekly "
    "('0 9 * * 1-5'), monthly ('0 8 1 * *') or a single date ('0 18 24 12 *'), or 'now' (run once right away, "
    "then only on request); zone: an IANA time zone such as 'Europe/Paris'; expires: YYYY-MM-DD (optional)."
)


def _when(instant: float | None, task: Task) -> str:
    if instant is None:
        return "none"
    zone = task.schedule.tz if task.schedule is not None else None
    return datetime.fromtimestamp(instant, zone).strftime("%Y-%m-%d %H:%M")


def result_text(run: TaskRun) -> str:
    """``finished: <first line>``, ``skipped: still running``, ``failed: <why>``."""
    if run.note.startswith(run.status):
        return run.note
    detail = run.first_line or run.note
    return f"{run.status}: {detail}" if detail else run.status


def describe_task(task: Task, last: TaskRun | None = None) -> str:
    lines = [
        f"{task.name} (id {task.id}){'' if task.enabled else ' [disabled]'}",
        f"  runs: {task.body}",
        f"  schedule: {task.when()}",
        f"  next run: {_when(task.next_run(), task)}",
    ]
    if task.agent:
        lines.append(f"  agent: {task.agent}")
    if last is not None:
        lines.append(f"  last run: {_when(last.started_at, task)} {result_text(last)}")
    return "\n".join(lines)


def make_tasks_server(tasks: Tasks) -> MCPServer:
    """A new ``switchboard.tasks`` server over ``tasks``."""
    import mcp_types as mtypes
    from mcp.server.mcpserver.exceptions import ToolError

    from desktop_app import __version__
    from desktop_app.runtime.in_process import in_process_server

    server = in_process_server(SERVER_NAME, version=__version__, log_level="WARNING")
    read_only = mtypes.ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True)
    changing = mtypes.ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=False)

    @server.tool(
        description="List the scheduled and on-request tasks: schedule, next run, last result.",
        annotations=read_only,
        structured_output=False,
    )
    async def list_tasks() -> str:
        found = tasks.all()
        last = tasks.last_runs()
        return "\n\n".join(describe_task(t, last.get(t.id)) for t in found) or "No tasks yet."

    @server.tool(
        description="Create a task: a prompt (or a workflow with inputs) run by an agent on a schedule, in the "
        "background, each run a new conversation. " + SCHEDULE_HELP,
        annotations=changing,
        structured_output=False,
    )
    async def create_task(
        name: str,
        prompt: str = "",
        schedule: str = NOW,
        zone: str = "UTC",
        expires: str | None = None,
        workflow: str | None = None,
        inputs: dict[str, str] | None = None,
        agent: str = "",
    ) -> str:
        try:
            task = tasks.create(
                name=name,
                prompt=prompt,
                workflow=workflow,
                inputs=inputs,
                agent=agent,
                schedule=schedule,
                zone=zone,
                expires=expires,
            )
        except TaskError as exc:
            raise ToolError(str(exc)) from None
        return "Created:\n" + describe_task(task)

    @server.tool(
        description="Change a task (by id or name): only the fields given change; enabled=false pauses it. "
        + SCHEDULE_HELP,
        annotations=changing,
        structured_output=False,
    )
    async def update_task(
        task: str,
        name: str | None = None,
        prompt: str | None = None,
        schedule: str | None = None,
        zone: str | None = None,
        expires: str | None = None,
        workflow: str | None = None,
        inputs: dict[str, str] | None = None,
        agent: str | None = None,
        enabled: bool | None = None,
    ) -> str:
        changes = {
            k: v
            for k, v in dict(
                name=name,
                prompt=prompt,
                schedule=schedule,
                zone=zone,
                expires=expires,
                workflow=workflow,
                inputs=inputs,
                agent=agent,
                enabled=enabled,
            ).items()
            if v is not None
        }
        try:
            updated = tasks.update(task, **changes)
        except TaskError as exc:
            raise ToolError(str(exc)) from None
        return "Updated:\n" + describe_task(updated)

    @server.tool(
        description="Delete a task (by id or name) and its run history.", annotations=changing, structured_output=False
    )
    async def delete_task(task: str) -> str:
        try:
            gone = tasks.delete(task)
        except TaskError as exc:
            raise ToolError(str(exc)) from None
        return f"Deleted the task {gone.name!r}."

    @server.tool(
        description="Start a task (by id or name) now, in the background; its answer arrives later.",
        structured_output=False,
    )
    async def run_task(task: str) -> str:
        try:
            run = tasks.run_now(task)
        except TaskError as exc:
            raise ToolError(str(exc)) from None
        if run.status == "skipped":
            raise ToolError(f"The task {task!r} is still running; it was not started again.")
        if run.status == "failed":
            raise ToolError(f"The task {task!r} could not start: {run.note}")
        return f"Started; its answer will be in conversation {run.conversation_id}."

    return server


__all__ = ["CHANGING_TOOLS", "SERVER_NAME", "describe_task", "make_tasks_server", "result_text"]
