"""The workflow model: what a parsed ``workflows/<name>/SKILL.md`` holds (nanobot's format), as frozen data.

A :class:`Workflow` has its front matter (``name``, ``description``, ``metadata``), its :class:`WorkflowInput`
list, its :class:`Step` list (each with an optional :class:`Condition` and an :class:`OnError` rule) and an
optional output template. A file that breaks the format gives :class:`WorkflowProblem` lines instead (the file,
the line, the field at fault, what is wrong), gathered in :class:`WorkflowError`; such a workflow never runs.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

SKILL_FILE = "SKILL.md"
FOLDER = "workflows"

ConditionOp = Literal["contains", "not empty", "equals"]
OnErrorAction = Literal["stop", "continue", "jump"]


@dataclass(frozen=True)
class WorkflowProblem:
    """One reason a workflow file cannot run: ``path:line: field: message``."""

    path: Path
    line: int
    field: str
    message: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.field}: {self.message}"


class WorkflowError(ValueError):
    """A workflow file that breaks the format; ``problems`` names each fault (never half-run)."""

    def __init__(self, problems: list[WorkflowProblem]) -> None:
        self.problems = problems
        super().__init__("; ".join(str(p) for p in problems))


@dataclass(frozen=True)
class WorkflowInput:
    name: str
    required: bool
    description: str = ""
    default: str | None = None
    line: int = 0


@dataclass(frozen=True)
class Condition:
    """``{{subject}} contains X | not empty | equals Y``: ``subject`` is the variable inside the braces."""

    subject: str
    op: ConditionOp
    value: str = ""
    line: int = 0

    def __str__(self) -> str:
        tail = f" {self.value}" if self.op != "not empty" else ""
        return f"{{{{{self.subject}}}}} {self.op}{tail}"


@dataclass(frozen=True)
class OnError:
    """``stop`` (the default), ``continue``, or a jump to a later step (``target``)."""

    action: OnErrorAction = "stop"
    target: str = ""

    def __str__(self) -> str:
        return self.target if self.action == "jump" else self.action


@dataclass(frozen=True)
class Step:
    number: int
    name: str
    prompt: str
    """The step's text without its Condition and On error lines; variables not yet filled in."""
    line: int
    condition: Condition | None = None
    on_error: OnError = field(default_factory=OnError)


@dataclass(frozen=True)
class Workflow:
    name: str
    description: str
    folder: Path
    inputs: tuple[WorkflowInput, ...]
    steps: tuple[Step, ...]
    output: str | None = None
    """The ``## Output`` template; ``None``: the last step's output is the result."""
    metadata: Mapping[str, str] = field(default_factory=dict)
    source: str = ""
    """Where it was found ("project", "config folder", "plugin <id>")."""

    @property
    def file(self) -> Path:
        return self.folder / SKILL_FILE

    @property
    def uri(self) -> str:
        return f"workflow:///{self.name}"

    def step(self, name: str) -> Step | None:
        return next((s for s in self.steps if s.name == name), None)

    def jump_targets(self) -> frozenset[str]:
        """Steps named by another step's ``On error``: they run only when a failure jumps to them."""
        return frozenset(s.on_error.target for s in self.steps if s.on_error.action == "jump")


__all__ = [
    "FOLDER",
    "SKILL_FILE",
    "Condition",
    "ConditionOp",
    "OnError",
    "OnErrorAction",
    "Step",
    "Workflow",
    "WorkflowError",
    "WorkflowInput",
    "WorkflowProblem",
]
