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

from desktop_app.runtime.tasks.model import NOW, Task, TaskError, TaskRun, make_task
from desktop_app.runtime.tasks.schedule import Schedule, ScheduleError
from desktop_app.runtime.tasks.service import Tasks

__all__ = ["NOW", "Schedule", "ScheduleError", "Task", "TaskError", "TaskRun", "Tasks", "make_task"]
