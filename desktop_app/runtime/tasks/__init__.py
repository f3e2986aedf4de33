"""Tasks (nanobot's ``nanobot.tasks``): prompts or workflows run by schedule or on request, in the background.

* :mod:`.schedule` — the restricted cron (daily, weekly, monthly, a single date), zones, expiration, fire
  times across daylight-saving changes, the schedule in words;
* :mod:`.model` — :class:`Task` and :class:`TaskRun`, validation (:func:`make_task`, :class:`TaskError`);
* :mod:`.records` — tasks and runs in the store (schema version 7), interrupted runs at start;
* :mod:`.runner` — :class:`TaskRunner`: each run a Runtime run on a new conversation tagged with the task;
* :mod:`.scheduler` — :class:`Scheduler`: one timer for the next due task, missed fires, overlap;
* :mod:`.service` — :class:`Tasks`, what the app, ``switchboard serve`` and the CLI hold;
* :mod:`.server` — the built-in ``switchboard.tasks`` MCP server.
"""

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from desktop_app.runtime.tasks.model import NOW, Task, TaskError, TaskRun, make_task
    from desktop_app.runtime.tasks.schedule import Schedule, ScheduleError
    from desktop_app.runtime.tasks.service import Tasks

SERVER_NAME = "switchboard.tasks"
"""The built-in server's name (:mod:`.server`); here so that registering it (:mod:`.wiring`) loads nothing else."""

_HOMES = {
    "model": ("NOW", "Task", "TaskError", "TaskRun", "make_task"),
    "schedule": ("Schedule", "ScheduleError"),
    "service": ("Tasks",),
}
"""Where each name above lives, imported when first asked for: the app registers ``switchboard.tasks`` before
``runtime: ready`` and makes the :class:`Tasks` after it (issue 27)."""


def __getattr__(name: str) -> Any:
    for module, names in _HOMES.items():
        if name in names:
            return getattr(import_module(f"{__name__}.{module}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["NOW", "SERVER_NAME", "Schedule", "ScheduleError", "Task", "TaskError", "TaskRun", "Tasks", "make_task"]
