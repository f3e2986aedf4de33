"""Finding workflows: every ``workflows/<name>/SKILL.md`` in the project folder, the config folder and the enabled
plugins, in that order of precedence (the most specific wins: a project's ``code-review`` is used over yours, and
yours over a plugin's). A name found again further down the list is reported as shadowed, naming both files.
A file that breaks the format is listed as :class:`BrokenWorkflow` with its problems (path:line: field) and is
never run. Discovery reads the folders again on each call, so an edit shows without a restart.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from desktop_app.runtime.workflows.model import FOLDER, SKILL_FILE, Workflow, WorkflowError, WorkflowProblem
from desktop_app.runtime.workflows.parser import parse_workflow


@dataclass(frozen=True)
class WorkflowRoot:
    """A folder holding workflow folders, and how to name where they come from."""

    folder: Path
    source: str


@dataclass(frozen=True)
class BrokenWorkflow:
    name: str
    """The folder's name (the front matter may not say one)."""
    folder: Path
    source: str
    problems: tuple[WorkflowProblem, ...]

    @property
    def file(self) -> Path:
        return self.folder / SKILL_FILE


@dataclass
class WorkflowSet:
    workflows: dict[str, Workflow] = field(default_factory=dict)
    broken: list[BrokenWorkflow] = field(default_factory=list)
    shadowed: list[str] = field(default_factory=list)

    def sorted(self) -> list[Workflow]:
        return [self.workflows[name] for name in sorted(self.workflows)]

    def get(self, name: str) -> Workflow | None:
        return self.workflows.get(name.removeprefix("workflow:///").removesuffix(".md"))

    def broken_named(self, name: str) -> BrokenWorkflow | None:
        return next((b for b in self.broken if b.name == name), None)


def workflow_roots(
    *,
    config_dir: Path,
    project_dir: Path | None,
    data_dir: Path | None = None,
    plugins: Mapping[str, Any] | None = None,
) -> list[WorkflowRoot]:
    """The project's ``workflows/``, the config folder's, then each enabled plugin's (by id), in precedence order."""
    roots: list[WorkflowRoot] = []
    if project_dir is not None:
        roots.append(WorkflowRoot(project_dir / FOLDER, "project"))
    roots.append(WorkflowRoot(config_dir / FOLDER, "your workflows folder"))
    if data_dir is not None and plugins:
        from desktop_app.runtime.plugins.manage import FILES_DIR

        for plugin_id, record in sorted(plugins.items()):
            if isinstance(record, Mapping) and record.get("enabled"):
                roots.append(WorkflowRoot(data_dir / FILES_DIR / plugin_id / FOLDER, f"plugin {plugin_id}"))
    return roots


def discover(roots: Iterable[WorkflowRoot]) -> WorkflowSet:
    """Every workflow in ``roots`` (each root's folders in name order); the first of a name wins."""
    found = WorkflowSet()
    where: dict[str, Path] = {}
    for root in roots:
        try:
            folders = sorted(p for p in root.folder.iterdir() if p.is_dir() and (p / SKILL_FILE).is_file())
        except OSError:
            continue
        for folder in folders:
            if folder.name in where:
                found.shadowed.append(
                    f"{folder / SKILL_FILE}: the workflow {folder.name!r} is also in {where[folder.name]}, which is "
                    "used (project, then your workflows folder, then plugins); this one is skipped"
                )
                continue
            where[folder.name] = folder / SKILL_FILE
            try:
                workflow = parse_workflow(folder, source=root.source)
            except WorkflowError as exc:
                found.broken.append(BrokenWorkflow(folder.name, folder, root.source, tuple(exc.problems)))
                continue
            found.workflows[workflow.name] = workflow
    return found


__all__ = ["BrokenWorkflow", "WorkflowRoot", "WorkflowSet", "discover", "workflow_roots"]
