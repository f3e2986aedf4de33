"""``switchboard workflows list [--json]`` and ``switchboard workflows run NAME --input k=v …``.

``list`` shows the workflows found in the project folder (``--project``, default: the current folder), the config
folder and the enabled plugins, with their inputs and steps, and the broken files with ``path:line: field:
problem`` lines (``--json``: one object with ``workflows``, ``broken`` and ``shadowed``). ``run`` runs one with
the runtime ``ask`` uses and its provider, approval, ``--events jsonl`` and ``--home`` options: each step's
state goes to stderr as it changes (or every event to stdout as JSONL), then the workflow's Output is printed.
Exit codes: 0 finished, 1 a step failed under ``On error: stop`` or the run was stopped, 2 an unknown or broken
workflow, or inputs that do not fit (nothing ran), 6 not saved (as ``ask``).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any, TextIO

from desktop_app.cli.exits import EXIT_FAILED, EXIT_NOT_SAVED, EXIT_OK, EXIT_USAGE
from desktop_app.paths import HOME_ENV, app_paths
from desktop_app.runtime import events as ev
from desktop_app.runtime.settings import load_settings
from desktop_app.runtime.workflows.discovery import WorkflowSet, discover, workflow_roots
from desktop_app.runtime.workflows.model import Workflow


def add_workflows_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    from desktop_app.cli.ask import add_run_options

    parser = sub.add_parser("workflows", help="List the workflows, or run one step by step.")
    actions = parser.add_subparsers(dest="workflows_command", required=True)
    listing = actions.add_parser("list", help="the workflows, their inputs and steps, and the broken files")
    listing.add_argument("--json", action="store_true", help="print JSON")
    listing.add_argument("--home", type=Path, metavar="DIR", help=f"keep all files under DIR (like ${HOME_ENV})")
    run = actions.add_parser("run", help="run a workflow and print its Output")
    run.add_argument("name", metavar="NAME", help="the workflow's name")
    run.add_argument("--input", action="append", default=[], metavar="KEY=VALUE", help="an input's value; repeatable")
    add_run_options(run)
    for action in (listing, run):
        action.add_argument(
            "--project", type=Path, metavar="DIR", help="the project folder whose workflows/ is read (default: .)"
        )


def _found(ns: argparse.Namespace) -> WorkflowSet:
    paths = app_paths(ns.home)
    settings = load_settings(paths.settings_file)
    roots = workflow_roots(
        config_dir=paths.config_dir,
        project_dir=ns.project or Path.cwd(),
        data_dir=paths.data_dir,
        plugins=settings.plugins,
    )
    return discover(roots)


def as_json(workflow: Workflow) -> dict[str, Any]:
    return {
        "name": workflow.name,
        "description": workflow.description,
        "source": workflow.source,
        "file": str(workflow.file),
        "inputs": [
            {"name": i.name, "required": i.required, "description": i.description, "default": i.default}
            for i in workflow.inputs
        ],
        "steps": [s.name for s in workflow.steps],
        "metadata": dict(workflow.metadata),
    }


def list_command(ns: argparse.Namespace, out: TextIO) -> int:
    from desktop_app.runtime.workflows.server import describe

    found = _found(ns)
    if ns.json:
        data = {
            "workflows": [as_json(w) for w in found.sorted()],
            "broken": [
                {
                    "name": b.name,
                    "file": str(b.file),
                    "problems": [{"line": p.line, "field": p.field, "message": p.message} for p in b.problems],
                }
                for b in found.broken
            ],
            "shadowed": found.shadowed,
        }
        out.write(json.dumps(data, indent=2, ensure_ascii=False) + "\n")
        return EXIT_OK
    blocks = [f"{describe(w)}\n  from {w.file}" for w in found.sorted()] or ["No workflows found."]
    for broken in found.broken:
        blocks.append(f"{broken.name}: broken, cannot run\n" + "\n".join(f"  {p}" for p in broken.problems))
    blocks += found.shadowed
    out.write("\n\n".join(blocks) + "\n")
    return EXIT_OK


def parse_inputs(pairs: list[str]) -> dict[str, str] | str:
    """``--input k=v`` values as a mapping, or what is wrong with one."""
    inputs: dict[str, str] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            return f"--input {pair!r}: write it as NAME=VALUE"
        inputs[key.strip()] = value
    return inputs


class StepPrinter:
    """Each step's state on stderr as it changes (the text mode of ``workflows run``)."""

    def __init__(self, err: TextIO, conversation_id: str) -> None:
        self.err = err
        self.conversation_id = conversation_id
        self.count = 0

    def __call__(self, event: ev.Event) -> None:
        from desktop_app.cli.terminal import terminal_safe

        if event.conversation_id != self.conversation_id:
            return
        if isinstance(event, ev.WorkflowStarted):
            self.count = len(event.steps)
            self.err.write(f"workflow {event.workflow}: {self.count} steps\n")
        elif isinstance(event, ev.WorkflowStep):
            detail = f" ({event.detail})" if event.detail else ""
            self.err.write(
                terminal_safe(f"[{event.index + 1}/{self.count}] {event.name}: {event.status}{detail}") + "\n"
            )
        self.err.flush()


async def run_command(ns: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from desktop_app.assembly import assemble
    from desktop_app.cli.ask import _StoreWatch, provider_from_options
    from desktop_app.cli.terminal import JsonlPrinter, TerminalApprover, terminal_safe
    from desktop_app.runtime.redaction import redact
    from desktop_app.runtime.run.approvals import ApprovalPolicy
    from desktop_app.runtime.workflows.template import InputError, resolve_inputs

    inputs = parse_inputs(ns.input)
    if isinstance(inputs, str):
        err.write(f"switchboard: {inputs}\n")
        return EXIT_USAGE
    found = _found(ns)
    workflow = found.get(ns.name)
    if workflow is None:
        broken = found.broken_named(ns.name)
        if broken is not None:
            err.write(f"switchboard: the workflow {ns.name!r} is broken and was not run:\n")
            err.write("".join(f"  {p}\n" for p in broken.problems))
        else:
            known = ", ".join(w.name for w in found.sorted()) or "none"
            err.write(
                f"switchboard: no workflow named {ns.name!r} (workflows: {known}; see `switchboard workflows list`)\n"
            )
        return EXIT_USAGE
    try:
        resolve_inputs(workflow, inputs)
    except InputError as exc:
        err.write(f"switchboard: {exc}\n")
        return EXIT_USAGE
    paths = app_paths(ns.home).ensure()
    settings = load_settings(paths.settings_file)
    provider = provider_from_options(ns, settings, err)
    if provider is None:
        return EXIT_USAGE
    built = assemble(
        paths,
        strict=True,
        settings=settings.model_copy(update={"provider": provider}),
        mcp_config=ns.mcp_config,
        policy=ApprovalPolicy(ns.approve),
        project_dir=ns.project or Path.cwd(),
    )
    for problem in built.problems:
        err.write(f"switchboard: {terminal_safe(redact(str(problem)))}\n")
    runtime, host = built.runtime, built.host
    assert built.workflows is not None
    try:
        await host.start()
        conversation = runtime.new_conversation()
        runtime.subscribe(JsonlPrinter(out) if ns.events == "jsonl" else StepPrinter(err, conversation))
        store_watch = _StoreWatch(err)
        runtime.subscribe(store_watch)
        approver = TerminalApprover(runtime, err)  # every step's approvals: on the terminal, or denied without one
        runtime.subscribe(approver)
        if ns.approve == "ask":
            host.subscribe(approver.on_host_event)
        result = await built.workflows.runner.run(workflow, inputs, conversation)
    finally:
        await built.aclose()
    if ns.events != "jsonl" and result.output:
        out.write(terminal_safe(result.output) + "\n")
    err.write(f"switchboard: workflow {result.status}: {result.tally()}\n")
    if result.status != "finished":
        err.write(f"switchboard: {terminal_safe(result.error)}\n")
        return EXIT_FAILED
    return EXIT_NOT_SAVED if store_watch.failed else EXIT_OK


def workflows_command(ns: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    if ns.workflows_command == "list":
        return list_command(ns, out)
    import asyncio

    from desktop_app.cli.ask import stoppable

    return asyncio.run(stoppable(run_command(ns, out, err)))


__all__ = ["add_workflows_parser", "parse_inputs", "run_command", "workflows_command"]
