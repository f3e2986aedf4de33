"""Workflow runs kept with their conversation, so that the step list shows again after a restart.

:class:`WorkflowRecords` is an event subscriber: ``WorkflowStarted``/``WorkflowStep``/``WorkflowFinished`` update
the conversation's runs in ``<folder>/<conversation id>.json`` (written atomically on each change; a run has a
handful of steps). ``load`` gives them back as :class:`WorkflowRunRecord`; a run still marked running that this
process is not running (the app was closed or crashed mid-way) comes back as ``interrupted``, its running step
failed. Each step's sub-run is a child conversation in the store; ``link`` (given by the assembly) files it under
the workflow's conversation, so it is reached from the step list and not listed on its own.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from desktop_app.runtime import events as ev

log = logging.getLogger(__name__)
FOLDER_NAME = "workflow-runs"
_SAFE = re.compile(r"[^A-Za-z0-9_.-]")

Link = Callable[[str, str, str, str], None]
"""``link(child conversation, parent conversation, step key, agent)``."""


@dataclass
class StepRecord:
    """One step of a recorded workflow run: its status, output and sub-run."""

    name: str
    status: str = "pending"
    child_conversation_id: str = ""
    output: str = ""
    detail: str = ""


@dataclass
class WorkflowRunRecord:
    """A workflow run as it is kept on disk: its inputs, status and steps."""

    run_id: str
    workflow: str
    status: str = "running"
    """``running``, ``finished``, ``failed``, ``cancelled`` or ``interrupted``."""
    inputs: dict[str, str] = field(default_factory=dict)
    steps: list[StepRecord] = field(default_factory=list)
    output: str = ""
    error: str = ""

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> WorkflowRunRecord:
        steps = [
            StepRecord(**{k: str(v) for k, v in s.items() if k in StepRecord.__dataclass_fields__})
            for s in data.get("steps", [])
        ]
        return cls(
            str(data["run_id"]),
            str(data["workflow"]),
            str(data.get("status", "running")),
            {str(k): str(v) for k, v in dict(data.get("inputs", {})).items()},
            steps,
            str(data.get("output", "")),
            str(data.get("error", "")),
        )


def step_key(run_id: str, index: int) -> str:
    """The id a step's sub-run is filed under in the store (as a sub-agent's run is under its tool call)."""
    return f"workflow-{run_id}-{index}"


class WorkflowRecords:
    """Keeps each conversation's workflow runs in ``folder`` (see the module)."""

    def __init__(
        self,
        folder: Path,
        *,
        link: Link | None = None,
        agent_of: Callable[[str], str] | None = None,
        on_started: Callable[[str, str], None] | None = None,
    ) -> None:
        """``on_started(conversation, workflow)``: a run began (the store titles an untitled conversation)."""
        self.folder = folder
        self.link = link
        self.on_started = on_started
        self.agent_of = agent_of
        self._live: set[str] = set()

    def _file(self, conversation_id: str) -> Path:
        return self.folder / f"{_SAFE.sub('_', conversation_id)}.json"

    def _read(self, conversation_id: str) -> list[WorkflowRunRecord]:
        try:
            data = json.loads(self._file(conversation_id).read_text(encoding="utf-8"))
            return [WorkflowRunRecord.from_json(item) for item in data]
        except FileNotFoundError:
            return []
        except (OSError, ValueError, KeyError, TypeError) as exc:
            log.warning("workflow runs of %s unreadable: %s", conversation_id, exc)
            return []

    def _write(self, conversation_id: str, runs: list[WorkflowRunRecord]) -> None:
        from desktop_app.runtime.host.jsonfiles import write_bytes_atomically

        payload = json.dumps([asdict(r) for r in runs], ensure_ascii=False, indent=1)
        write_bytes_atomically(self._file(conversation_id), payload.encode("utf-8"))

    def __call__(self, event: ev.Event) -> None:
        if not isinstance(event, ev.WorkflowStarted | ev.WorkflowStep | ev.WorkflowFinished):
            return
        try:
            self._apply(event)
        except OSError as exc:  # the chat still shows the run; only its record after a restart is lost
            log.error("workflow run %s not saved: %s", event.run_id, exc)

    def _apply(self, event: ev.WorkflowStarted | ev.WorkflowStep | ev.WorkflowFinished) -> None:
        runs = self._read(event.conversation_id)
        if isinstance(event, ev.WorkflowStarted):
            self._live.add(event.run_id)
            runs.append(
                WorkflowRunRecord(
                    event.run_id, event.workflow, inputs=dict(event.inputs), steps=[StepRecord(n) for n in event.steps]
                )
            )
            self._write(event.conversation_id, runs)
            if self.on_started is not None:
                try:
                    self.on_started(event.conversation_id, event.workflow)
                except Exception as exc:  # the run is kept; only the conversation's title is missing
                    log.warning("conversation %s not titled: %s", event.conversation_id, exc)
            return
        run = next((r for r in runs if r.run_id == event.run_id), None)
        if run is None:
            return
        if isinstance(event, ev.WorkflowStep):
            if 0 <= event.index < len(run.steps):
                step = run.steps[event.index]
                step.status, step.output, step.detail = event.status, event.output, event.detail
                if event.child_conversation_id and not step.child_conversation_id:
                    step.child_conversation_id = event.child_conversation_id
                    self._link(event, step.child_conversation_id)
        else:
            run.status, run.output, run.error = event.status, event.output, event.error
            self._live.discard(event.run_id)
        self._write(event.conversation_id, runs)

    def _link(self, event: ev.WorkflowStep, child: str) -> None:
        if self.link is None:
            return
        agent = self.agent_of(child) if self.agent_of is not None else ""
        try:
            self.link(child, event.conversation_id, step_key(event.run_id, event.index), agent)
        except Exception as exc:  # a store that cannot write: the step's run is then listed on its own
            log.warning("workflow step run %s not linked: %s", child, exc)

    def load(self, conversation_id: str) -> list[WorkflowRunRecord]:
        """The conversation's workflow runs, oldest first (a dead process's running run as interrupted)."""
        runs = self._read(conversation_id)
        for run in runs:
            if run.status == "running" and run.run_id not in self._live:
                run.status = "interrupted"
                run.error = run.error or "The app closed while the workflow was running."
                for step in run.steps:
                    if step.status == "running":
                        step.status, step.detail = "failed", "interrupted"
        return runs

    def prune(self, keep: Iterable[str]) -> None:
        """Forget the runs of conversations not in ``keep`` (purged ones)."""
        kept = {self._file(c).name for c in keep}
        try:
            files = list(self.folder.glob("*.json"))
        except OSError:
            return
        for path in files:
            if path.name not in kept:
                path.unlink(missing_ok=True)


__all__ = ["FOLDER_NAME", "StepRecord", "WorkflowRecords", "WorkflowRunRecord", "step_key"]
