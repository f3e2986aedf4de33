"""``switchboard tasks list|add|run|remove|history [--json]``: the scheduled tasks on the terminal.

* ``list``: every task with its schedule in words, next run and last result;
* ``add NAME (--prompt TEXT | --workflow NAME [--input K=V …]) [--schedule CRON|now] [--zone Z] [--expires
  YYYY-MM-DD] [--agent A]``: a new task (validated as the window and the model's ``create_task`` do; a
  ``now`` task is on request only here: ``tasks run`` starts it). A running app sees it at its scheduler's
  next look, within 15 minutes;
* ``run NAME``: run it now in this process with ``ask``'s provider, approval and ``--events`` options, print
  the answer (exit 0 finished, 1 failed or stopped); the run is recorded in the task's history;
* ``remove NAME``: delete the task and its history (its conversations stay);
* ``history [NAME] [--limit N]``: the runs, newest first.

NAME is a task's name (case-insensitive) or id. Exit 2: an unknown task, or a task that does not validate.
"""

from __future__ import annotations

import argparse
import json
from datetime import datetime
from pathlib import Path
from typing import Any, TextIO

from desktop_app.cli.exits import EXIT_FAILED, EXIT_OK, EXIT_USAGE
from desktop_app.paths import HOME_ENV, app_paths
from desktop_app.runtime.tasks.model import NOW, Task, TaskError, TaskRun


def add_tasks_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    from desktop_app.cli.ask import add_run_options

    parser = sub.add_parser("tasks", help="List, add, run or remove scheduled tasks, and show their history.")
    actions = parser.add_subparsers(dest="tasks_command", required=True)
    listing = actions.add_parser("list", help="the tasks: schedule in words, next run, last result")
    add = actions.add_parser("add", help="add a task (a prompt or a workflow on a schedule)")
    add.add_argument("name", metavar="NAME")
    body = add.add_mutually_exclusive_group(required=True)
    body.add_argument("--prompt", metavar="TEXT", help="the prompt each run sends")
    body.add_argument("--workflow", metavar="NAME", help="a workflow to run instead of a prompt")
    add.add_argument("--input", action="append", default=[], metavar="KEY=VALUE", help="a workflow input; repeatable")
    add.add_argument(
        "--schedule",
        default=NOW,
        metavar="CRON",
        help="'M H * * *' daily, 'M H * * 1-5' weekly, 'M H D * *' monthly, 'M H D MONTH *' once, or 'now' "
        "(on request only; the default)",
    )
    add.add_argument("--zone", metavar="ZONE", help="IANA time zone, e.g. Europe/Paris (default: this computer's)")
    add.add_argument("--expires", metavar="YYYY-MM-DD", help="last day the task runs")
    add.add_argument("--agent", default="", metavar="AGENT", help="the agent that runs it (default: the default agent)")
    run = actions.add_parser("run", help="run a task now and print its answer")
    run.add_argument("name", metavar="NAME")
    add_run_options(run)
    remove = actions.add_parser("remove", help="delete a task and its history")
    remove.add_argument("name", metavar="NAME")
    history = actions.add_parser("history", help="the runs, newest first")
    history.add_argument("name", nargs="?", metavar="NAME")
    history.add_argument("--limit", type=int, default=20, metavar="N")
    for action in (listing, add, remove, history):
        action.add_argument("--home", type=Path, metavar="DIR", help=f"keep all files under DIR (like ${HOME_ENV})")
    for action in (listing, add, remove, history, run):
        action.add_argument("--json", action="store_true", help="print JSON")


def _iso(instant: float | None) -> str | None:
    return None if instant is None else datetime.fromtimestamp(instant).astimezone().isoformat(timespec="minutes")


def task_json(task: Task, last: TaskRun | None = None) -> dict[str, Any]:
    s = task.schedule
    return {
        "id": task.id,
        "name": task.name,
        "prompt": task.prompt,
        "workflow": task.workflow,
        "inputs": dict(task.inputs),
        "agent": task.agent,
        "schedule": s.cron if s is not None else NOW,
        "zone": s.zone if s is not None else None,
        "expires": s.expires.isoformat() if s is not None and s.expires is not None else None,
        "when": task.when(),
        "enabled": task.enabled,
        "next_run": _iso(task.next_run()),
        "last_run": run_json(last) if last is not None else None,
    }


def run_json(run: TaskRun) -> dict[str, Any]:
    return {
        "id": run.id,
        "task_id": run.task_id,
        "trigger": run.trigger,
        "status": run.status,
        "scheduled_for": _iso(run.scheduled_for),
        "started_at": _iso(run.started_at),
        "ended_at": _iso(run.ended_at),
        "conversation_id": run.conversation_id,
        "note": run.note,
        "answer": run.answer,
    }


def _print(out: TextIO, ns: argparse.Namespace, data: Any, text: str) -> None:
    from desktop_app.cli.terminal import terminal_safe

    out.write(json.dumps(data, indent=2, ensure_ascii=False) + "\n" if ns.json else terminal_safe(text) + "\n")


def tasks_command(ns: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """``list``, ``add``, ``remove`` and ``history``: the store only, no provider."""
    from desktop_app.cli.workflows import parse_inputs
    from desktop_app.runtime.store import Store, StoreError, store_path
    from desktop_app.runtime.tasks.model import make_task
    from desktop_app.runtime.tasks.records import TaskRecords
    from desktop_app.runtime.tasks.schedule import local_zone
    from desktop_app.runtime.tasks.server import describe_task, result_text

    paths = app_paths(ns.home).ensure()
    try:
        store = Store.open(store_path(paths))
    except StoreError as exc:
        err.write(f"switchboard: {exc}\n")
        return EXIT_FAILED
    with store:
        records = TaskRecords(store)
        try:
            if ns.tasks_command == "list":
                tasks, last = records.all(), records.last_runs()
                text = "\n\n".join(describe_task(t, last.get(t.id)) for t in tasks) or "No tasks yet."
                _print(out, ns, [task_json(t, last.get(t.id)) for t in tasks], text)
            elif ns.tasks_command == "add":
                inputs = parse_inputs(ns.input)
                if isinstance(inputs, str):
                    raise TaskError(inputs)
                task = make_task(
                    name=ns.name,
                    prompt=ns.prompt or "",
                    workflow=ns.workflow,
                    inputs=inputs,
                    agent=ns.agent,
                    schedule=ns.schedule,
                    zone=ns.zone or local_zone(),
                    expires=ns.expires,
                    now=store.now(),
                )
                records.save(task)
                _print(out, ns, task_json(task), "Added:\n" + describe_task(task))
            elif ns.tasks_command == "remove":
                task = find(records, ns.name)
                records.delete(task.id)
                _print(out, ns, task_json(task), f"Removed the task {task.name!r}.")
            else:
                task_id = find(records, ns.name).id if ns.name else None
                runs = records.history(task_id, limit=max(1, ns.limit))
                names = {t.id: t.name for t in records.all()}
                lines = [
                    f"{_iso(r.started_at)}  {names.get(r.task_id, r.task_id)}  {r.trigger}  {result_text(r)}"
                    + (f"  (conversation {r.conversation_id})" if r.conversation_id else "")
                    for r in runs
                ]
                _print(out, ns, [run_json(r) for r in runs], "\n".join(lines) or "No runs yet.")
        except TaskError as exc:
            err.write(f"switchboard: {exc}\n")
            return EXIT_USAGE
    return EXIT_OK


def find(records: Any, ref: str) -> Task:
    """A task by id or name, as :meth:`Tasks.find` does."""
    from desktop_app.runtime.tasks.service import Tasks

    return Tasks.find_in(records, ref)


async def run_command(ns: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """``tasks run NAME``: the task now, in this process, with ``ask``'s runtime and options."""
    from desktop_app.assembly import assemble
    from desktop_app.cli.ask import provider_from_options
    from desktop_app.cli.terminal import JsonlPrinter, TerminalApprover, terminal_safe
    from desktop_app.runtime.redaction import redact
    from desktop_app.runtime.run.approvals import ApprovalPolicy
    from desktop_app.runtime.settings import load_settings

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
    )
    for problem in built.problems:
        err.write(f"switchboard: {terminal_safe(redact(str(problem)))}\n")
    try:
        if built.tasks is None:
            err.write("switchboard: conversation history is off, so there are no tasks\n")
            return EXIT_FAILED
        try:
            task = built.tasks.find(ns.name)
        except TaskError as exc:
            err.write(f"switchboard: {exc}\n")
            return EXIT_USAGE
        await built.host.start()
        if ns.events == "jsonl":
            built.runtime.subscribe(JsonlPrinter(out))
        built.runtime.subscribe(TerminalApprover(built.runtime, err))
        started = built.tasks.run_now(task.id)
        done = await built.tasks.runner.wait(task.id) or started
    finally:
        await built.aclose()
    if ns.events != "jsonl":
        _print(out, ns, run_json(done), done.answer or result_text_of(done))
    return EXIT_OK if done.status == "finished" else EXIT_FAILED


def result_text_of(run: TaskRun) -> str:
    from desktop_app.runtime.tasks.server import result_text

    return result_text(run)


def tasks_main(ns: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    if ns.tasks_command != "run":
        return tasks_command(ns, out, err)
    import asyncio

    from desktop_app.cli.ask import stoppable

    return asyncio.run(stoppable(run_command(ns, out, err)))


__all__ = ["add_tasks_parser", "run_command", "run_json", "task_json", "tasks_command", "tasks_main"]
