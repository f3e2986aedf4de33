"""Workflows (nanobot's ``nanobot.workflows``): repeatable multi-step processes kept as folders.

A workflow is ``workflows/<name>/SKILL.md`` (with supporting files beside it) in the project folder, the config
folder or an enabled plugin. The modules:

* :mod:`.model` — the parsed workflow, its inputs, steps, conditions and on-error rules, and the problems of a
  broken file (``path:line: field: message``);
* :mod:`.parser` — reading ``SKILL.md`` (front matter, ``## Inputs``, ``## Steps``, ``## Output``);
* :mod:`.template` — ``{{input.x}}``/``{{Step Name}}`` variables and the conditions' rules;
* :mod:`.discovery` — the roots, precedence and duplicates;
* :mod:`.runner` — :class:`WorkflowRunner`: ``await runner.run(workflow, inputs, conversation_id) ->
  WorkflowResult``; each step a sub-run, conditions and jumps decided by the runner;
* :mod:`.records` — the runs' step states kept per conversation (shown again after a restart);
* :mod:`.server` — the built-in ``switchboard.workflows`` (``list_workflows``, ``run_workflow``,
  ``workflow:///name``);
* :mod:`.wiring` — :class:`Workflows`, what the app and the CLI hold.
"""

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from desktop_app.runtime.workflows.discovery import BrokenWorkflow, WorkflowSet, discover, workflow_roots
    from desktop_app.runtime.workflows.model import Step, Workflow, WorkflowError, WorkflowInput, WorkflowProblem
    from desktop_app.runtime.workflows.parser import parse_workflow
    from desktop_app.runtime.workflows.runner import WorkflowBusyError, WorkflowResult, WorkflowRunner
    from desktop_app.runtime.workflows.template import InputError

_HOMES = {
    "discovery": ("BrokenWorkflow", "WorkflowSet", "discover", "workflow_roots"),
    "model": ("Step", "Workflow", "WorkflowError", "WorkflowInput", "WorkflowProblem"),
    "parser": ("parse_workflow",),
    "runner": ("WorkflowBusyError", "WorkflowResult", "WorkflowRunner"),
    "template": ("InputError",),
}
"""Where each name above lives, imported when first asked for: registering the lazy built-in at start-up
(``wiring``) loads neither the model nor the parser (issue 27: not on the way to ``runtime: ready``)."""


def __getattr__(name: str) -> Any:
    for module, names in _HOMES.items():
        if name in names:
            return getattr(import_module(f"{__name__}.{module}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "BrokenWorkflow",
    "InputError",
    "Step",
    "Workflow",
    "WorkflowBusyError",
    "WorkflowError",
    "WorkflowInput",
    "WorkflowProblem",
    "WorkflowResult",
    "WorkflowRunner",
    "WorkflowSet",
    "discover",
    "parse_workflow",
    "workflow_roots",
]
