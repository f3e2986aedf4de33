"""What a task is: a prompt or a workflow (with inputs), an agent and a schedule; and one run of it.

:func:`make_task` validates what a user, the CLI or the model asked for (a clear :class:`TaskError` when it
does not fit) and builds a :class:`Task`; :meth:`Task.changed` applies an update the same way. ``schedule`` is
``None`` for a task that runs only when asked ("run now").
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from dataclasses import dataclass, replace
from datetime import date
from typing import Literal

from desktop_app.runtime.tasks.schedule import Schedule, ScheduleError, describe, parse_date, zone_named

RunStatus = Literal["running", "waiting", "finished", "failed", "cancelled", "interrupted", "skipped", "missed"]
Trigger = Literal["schedule", "catch_up", "manual"]
NOW = "now"
"""The schedule word for a task that runs once right away and then only when asked."""
MAX_NAME = 80


class TaskError(ValueError):
    """A task that cannot be created or changed as asked; the message says why and what to do."""


@dataclass(frozen=True)
class Task:
    id: str
    name: str
    prompt: str
    workflow: str | None
    inputs: Mapping[str, str]
    agent: str
    schedule: Schedule | None
    enabled: bool
    anchor: float
    """Fire times up to this instant are accounted for (run, skipped or recorded as missed)."""
    created_at: float
    updated_at: float

    @property
    def body(self) -> str:
        """What it runs, in a few words."""
        if self.workflow is not None:
            inputs = ", ".join(f"{k}={v}" for k, v in self.inputs.items())
            return f"workflow {self.workflow}" + (f" ({inputs})" if inputs else "")
        return self.prompt

    def when(self) -> str:
        return describe(self.schedule)

    def next_run(self) -> float | None:
        """The next fire time, or ``None``: disabled, on request only, or expired."""
        if not self.enabled or self.schedule is None:
            return None
        return self.schedule.next_after(self.anchor)

    def expired(self) -> bool:
        return self.schedule is not None and self.schedule.next_after(self.anchor) is None

    def changed(
        self,
        now: float,
        *,
        name: str | None = None,
        prompt: str | None = None,
        workflow: str | None = None,
        inputs: Mapping[str, str] | None = None,
        agent: str | None = None,
        schedule: str | None = None,
        zone: str | None = None,
        expires: str | None = None,
        enabled: bool | None = None,
    ) -> Task:
        """This task with the given fields changed (validated like :func:`make_task`). A new schedule counts
        fire times from ``now``; ``expires=""`` removes the expiration; ``workflow=""`` makes it a prompt task."""
        current = self.schedule
        cron = schedule if schedule is not None else (current.cron if current is not None else NOW)
        keep_expiry = current.expires if current is not None and current.kind != "once" else None
        expiry = keep_expiry.isoformat() if expires is None and keep_expiry is not None else expires
        built = make_task(
            name=self.name if name is None else name,
            prompt=self.prompt if prompt is None else prompt,
            workflow=self.workflow if workflow is None else (workflow or None),
            inputs=self.inputs if inputs is None else inputs,
            agent=self.agent if agent is None else agent,
            schedule=cron,
            zone=(current.zone if current is not None else "UTC") if zone is None else zone,
            expires=expiry or None,
            now=now,
        )
        rescheduled = built.schedule != current and (schedule is not None or zone is not None or expires is not None)
        return replace(
            built,
            id=self.id,
            enabled=self.enabled if enabled is None else enabled,
            anchor=now if rescheduled or (enabled and not self.enabled) else self.anchor,
            created_at=self.created_at,
            updated_at=now,
        )


def make_task(
    *,
    name: str,
    prompt: str = "",
    workflow: str | None = None,
    inputs: Mapping[str, str] | None = None,
    agent: str = "",
    schedule: str = NOW,
    zone: str = "UTC",
    expires: str | date | None = None,
    now: float,
    enabled: bool = True,
) -> Task:
    """A new task, validated. ``schedule``: a cron line (see :mod:`.schedule`) or ``"now"``."""
    name = " ".join(name.split())
    if not name:
        raise TaskError("A task needs a name.")
    if len(name) > MAX_NAME:
        raise TaskError(f"A task name has at most {MAX_NAME} characters.")
    prompt = prompt.strip()
    if workflow is not None and not workflow.strip():
        workflow = None
    if workflow is None and not prompt:
        raise TaskError("A task needs a prompt, or a workflow to run.")
    if workflow is not None and prompt:
        raise TaskError("A task runs either a prompt or a workflow, not both.")
    if workflow is None and inputs:
        raise TaskError("Inputs are for a workflow task; a prompt task has none.")
    parsed: Schedule | None = None
    try:
        until = (parse_date(expires) if expires.strip() else None) if isinstance(expires, str) else expires
        if schedule.strip().lower() == NOW:
            if until is not None:
                raise TaskError("A task that runs now (on request only) has no expiration date.")
            zone_named(zone)
        else:
            parsed = Schedule.parse(schedule, zone, expires=until)
            if parsed.kind == "once" and until is not None:
                raise TaskError("A single-date schedule expires on its date; leave the expiration date out.")
            parsed = parsed.pinned(now)
            if parsed.next_after(now) is None:
                raise TaskError(f"'{parsed.describe()}' never fires again (its expiration date has passed).")
    except ScheduleError as exc:
        raise TaskError(str(exc)) from exc
    return Task(
        id=uuid.uuid4().hex,
        name=name,
        prompt=prompt,
        workflow=workflow,
        inputs=dict(inputs or {}),
        agent=agent.strip(),
        schedule=parsed,
        enabled=enabled,
        anchor=now,
        created_at=now,
        updated_at=now,
    )


@dataclass(frozen=True)
class TaskRun:
    """One run of a task (or a fire time that was skipped or missed: then no conversation)."""

    id: str
    task_id: str
    trigger: Trigger
    status: RunStatus
    started_at: float
    scheduled_for: float | None = None
    conversation_id: str | None = None
    ended_at: float | None = None
    note: str = ""
    answer: str = ""

    @property
    def first_line(self) -> str:
        """The answer's first non-empty line (the notification's text)."""
        return next((line.strip() for line in self.answer.splitlines() if line.strip()), "")

    @property
    def live(self) -> bool:
        return self.status in ("running", "waiting")
