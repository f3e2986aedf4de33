"""Tasks and their runs in the conversation store (tables ``tasks`` and ``task_runs``, schema version 7).

:class:`TaskRecords` reads and writes them through the :class:`~desktop_app.runtime.store.Store`'s connection,
in its transactions, and tags a run's conversation with its task (``conversations.task_id``). At start,
:meth:`TaskRecords.mark_interrupted` turns the runs a dead process left ``running`` into ``interrupted``,
keeping the partial answer the conversation holds.
"""

from __future__ import annotations

import json
import sqlite3
import uuid
from datetime import date
from typing import Any

from desktop_app.runtime.store import Store
from desktop_app.runtime.store.lease import owner_alive
from desktop_app.runtime.tasks.model import RunStatus, Task, TaskRun, Trigger
from desktop_app.runtime.tasks.schedule import Schedule

_TASK_COLUMNS = (
    "id, name, prompt, workflow, inputs, agent, cron, zone, expires, enabled, anchor, created_at, updated_at"
)
_RUN_COLUMNS = "id, task_id, trigger, status, started_at, scheduled_for, conversation_id, ended_at, note, answer"


def _task(row: tuple[Any, ...]) -> Task:
    tid, name, prompt, workflow, inputs, agent, cron, zone, expires, enabled, anchor, created, updated = row
    until = date.fromisoformat(expires) if expires else None
    schedule = Schedule.parse(cron, zone, expires=until) if cron else None
    return Task(
        id=tid,
        name=name,
        prompt=prompt,
        workflow=workflow,
        inputs=json.loads(inputs or "{}"),
        agent=agent,
        schedule=schedule,
        enabled=bool(enabled),
        anchor=float(anchor),
        created_at=float(created),
        updated_at=float(updated),
    )


def _run(row: tuple[Any, ...]) -> TaskRun:
    rid, task_id, trigger, status, started, scheduled, conversation, ended, note, answer = row
    return TaskRun(rid, task_id, trigger, status, started, scheduled, conversation, ended, note, answer)


def _task_values(task: Task) -> tuple[Any, ...]:
    s = task.schedule
    return (
        task.id,
        task.name,
        task.prompt,
        task.workflow,
        json.dumps(dict(task.inputs), ensure_ascii=False),
        task.agent,
        s.cron if s is not None else None,
        s.zone if s is not None else "UTC",
        s.expires.isoformat() if s is not None and s.expires is not None else None,
        int(task.enabled),
        task.anchor,
        task.created_at,
        task.updated_at,
    )


class TaskRecords:
    """The tasks and run history of one store."""

    def __init__(self, store: Store) -> None:
        self.store = store

    @property
    def _conn(self) -> sqlite3.Connection:
        return self.store.connection

    # -- tasks -----------------------------------------------------------------------------------------

    def save(self, task: Task) -> None:
        """Insert or replace ``task``."""
        marks = ", ".join("?" * 13)
        with self.store.transaction() as c:
            c.execute(f"INSERT OR REPLACE INTO tasks ({_TASK_COLUMNS}) VALUES ({marks})", _task_values(task))

    def delete(self, task_id: str) -> bool:
        """Delete the task and its history (its conversations stay, still tagged)."""
        with self.store.transaction() as c:
            return c.execute("DELETE FROM tasks WHERE id = ?", (task_id,)).rowcount > 0

    def get(self, task_id: str) -> Task | None:
        row = self._conn.execute(f"SELECT {_TASK_COLUMNS} FROM tasks WHERE id = ?", (task_id,)).fetchone()
        return _task(row) if row else None

    def all(self) -> list[Task]:
        rows = self._conn.execute(f"SELECT {_TASK_COLUMNS} FROM tasks ORDER BY created_at, name, id").fetchall()
        return [_task(r) for r in rows]

    def set_anchor(self, task_id: str, anchor: float, *, enabled: bool | None = None) -> None:
        with self.store.transaction() as c:
            if enabled is None:
                c.execute("UPDATE tasks SET anchor = ? WHERE id = ?", (anchor, task_id))
            else:
                c.execute("UPDATE tasks SET anchor = ?, enabled = ? WHERE id = ?", (anchor, int(enabled), task_id))

    # -- runs ------------------------------------------------------------------------------------------

    def add_run(
        self,
        task_id: str,
        trigger: Trigger,
        status: RunStatus,
        *,
        scheduled_for: float | None = None,
        conversation_id: str | None = None,
        note: str = "",
        ended: bool = False,
    ) -> TaskRun:
        now = self.store.now()
        run = TaskRun(
            uuid.uuid4().hex,
            task_id,
            trigger,
            status,
            now,
            scheduled_for,
            conversation_id,
            now if ended else None,
            note,
        )
        with self.store.transaction() as c:
            c.execute(
                f"INSERT INTO task_runs ({_RUN_COLUMNS}, owner) VALUES (?,?,?,?,?,?,?,?,?,?,?)",
                (*self._run_values(run), self.store.owner),
            )
            if conversation_id is not None:
                self.tag(conversation_id, task_id)
        return run

    @staticmethod
    def _run_values(run: TaskRun) -> tuple[Any, ...]:
        return (
            run.id,
            run.task_id,
            run.trigger,
            run.status,
            run.started_at,
            run.scheduled_for,
            run.conversation_id,
            run.ended_at,
            run.note,
            run.answer,
        )

    def tag(self, conversation_id: str, task_id: str) -> None:
        """Tag the conversation with its task (creating its row if the recorder has not yet)."""
        self.store.ensure_conversation(conversation_id)
        with self.store.transaction() as c:
            c.execute("UPDATE conversations SET task_id = ? WHERE id = ?", (task_id, conversation_id))

    def set_status(self, run_id: str, status: RunStatus, *, note: str | None = None, answer: str | None = None) -> None:
        ended = None if status in ("running", "waiting") else self.store.now()
        with self.store.transaction() as c:
            c.execute(
                "UPDATE task_runs SET status = ?, ended_at = ?, note = COALESCE(?, note), "
                "answer = COALESCE(?, answer) WHERE id = ?",
                (status, ended, note, answer, run_id),
            )

    def run(self, run_id: str) -> TaskRun | None:
        row = self._conn.execute(f"SELECT {_RUN_COLUMNS} FROM task_runs WHERE id = ?", (run_id,)).fetchone()
        return _run(row) if row else None

    def history(self, task_id: str | None = None, *, limit: int = 50) -> list[TaskRun]:
        """Runs, newest first (of one task, or of all)."""
        where, args = ("WHERE task_id = ?", (task_id,)) if task_id is not None else ("", ())
        rows = self._conn.execute(
            f"SELECT {_RUN_COLUMNS} FROM task_runs {where} ORDER BY started_at DESC, rowid DESC LIMIT ?",
            (*args, limit),
        ).fetchall()
        return [_run(r) for r in rows]

    def last_runs(self) -> dict[str, TaskRun]:
        """Each task's latest run (a fire skipped while a run was going is in the history, not the last result)."""
        rows = self._conn.execute(
            f"SELECT {_RUN_COLUMNS} FROM task_runs t WHERE rowid = (SELECT rowid FROM task_runs u "
            "WHERE u.task_id = t.task_id AND u.status != 'skipped' ORDER BY started_at DESC, rowid DESC LIMIT 1)"
        ).fetchall()
        return {r[1]: _run(r) for r in rows}

    def task_of(self, conversation_id: str) -> str | None:
        row = self._conn.execute("SELECT task_id FROM conversations WHERE id = ?", (conversation_id,)).fetchone()
        return str(row[0]) if row and row[0] else None

    def mark_interrupted(self) -> list[TaskRun]:
        """Runs left live by a process that is gone become ``interrupted``, with the partial answer their
        conversation holds. Call at start, after ``Store.mark_interrupted_runs``."""
        live = self._conn.execute(
            "SELECT id, owner, conversation_id FROM task_runs WHERE status IN ('running', 'waiting')"
        )
        dead = [
            (rid, cid)
            for rid, owner, cid in live.fetchall()
            if not owner_alive(self.store.path, owner, me=self.store.owner)
        ]
        for run_id, conversation_id in dead:
            partial = self.partial_answer(conversation_id) if conversation_id else ""
            self.set_status(
                run_id, "interrupted", note="interrupted: Switchboard stopped during the run", answer=partial
            )
        return [r for r in (self.run(rid) for rid, _ in dead) if r is not None]

    def partial_answer(self, conversation_id: str) -> str:
        """The text of the conversation's last assistant message (kept when its run was cut)."""
        row = self._conn.execute(
            "SELECT group_concat(p.text, '') FROM parts p WHERE p.kind = 'text' AND p.message_id = ("
            "SELECT id FROM messages WHERE conversation_id = ? AND role = 'assistant' ORDER BY position DESC LIMIT 1)",
            (conversation_id,),
        ).fetchone()
        return str(row[0]) if row and row[0] else ""
