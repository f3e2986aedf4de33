"""Connecting workflows to a host and a runtime: the one :class:`Workflows` object the app and the CLI hold.

It knows where workflows are found (:func:`~.discovery.workflow_roots`: the project folder, the config folder,
the enabled plugins read from the runtime's settings at each call), owns the :class:`~.runner.WorkflowRunner`
and the :class:`~.records.WorkflowRecords` (subscribed to the runtime's events), and registers the lazy
built-in ``switchboard.workflows`` server. The runner and the records are made when first used (the records
before the runner's first step), so that start-up neither loads their modules nor reads the records' folder.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from desktop_app.runtime.workflows.server import RUN_TIMEOUT, SERVER_NAME

if TYPE_CHECKING:
    from desktop_app.runtime.workflows.discovery import WorkflowSet
    from desktop_app.runtime.workflows.records import WorkflowRecords
    from desktop_app.runtime.workflows.runner import WorkflowRunner, WorkflowRuntime


class Workflows:
    """Discovery, the runner and the run records for one runtime."""

    def __init__(
        self,
        runtime: WorkflowRuntime,
        *,
        config_dir: Path,
        project_dir: Path | None,
        data_dir: Path | None = None,
        plugins: Callable[[], dict[str, Any]] | None = None,
        records: WorkflowRecords | None = None,
        make_records: Callable[[], WorkflowRecords] | None = None,
    ) -> None:
        """``records``: the run records; or ``make_records``, what makes them when they are first used."""
        self.runtime = runtime
        self.config_dir = config_dir
        self.project_dir = project_dir
        self.data_dir = data_dir
        self.plugins = plugins or dict
        self._runner: WorkflowRunner | None = None
        self._records: WorkflowRecords | None = None
        self._make_records = make_records
        if records is not None:
            self._subscribe(records)

    @property
    def runner(self) -> WorkflowRunner:
        """Runs workflows step by step (made on first use, after the records it reports to)."""
        if self._runner is None:
            from desktop_app.runtime.workflows.runner import WorkflowRunner

            _ = self.records  # subscribed before the first step's events
            self._runner = WorkflowRunner(self.runtime)
        return self._runner

    def cancel(self, conversation_id: str) -> bool:
        """Stop the workflow running in ``conversation_id``; False when none runs (nor was ever started)."""
        return self._runner is not None and self._runner.cancel(conversation_id)

    @property
    def records(self) -> WorkflowRecords | None:
        """The workflow runs kept per conversation (``None``: not kept), made on first use."""
        if self._make_records is not None:
            make, self._make_records = self._make_records, None
            self._subscribe(make())
        return self._records

    def _subscribe(self, records: WorkflowRecords) -> None:
        self._records = records
        self.runtime.subscribe(records)

    def load(self) -> WorkflowSet:
        """The workflows found now (read from disk on each call; discovery, the parser and the model load with the
        first call)."""
        from desktop_app.runtime.workflows.discovery import discover, workflow_roots

        roots = workflow_roots(
            config_dir=self.config_dir, project_dir=self.project_dir, data_dir=self.data_dir, plugins=self.plugins()
        )
        return discover(roots)

    def problems(self) -> list[str]:
        """What the user is told about the workflows found now: one line per broken file, and the shadowed."""
        found = self.load()
        problems: list[str] = []
        for broken in found.broken:  # one line per file: its first fault, and where to see them all
            first = broken.problems[0]
            more = len(broken.problems) - 1
            problems.append(
                f"The workflow '{broken.name}' cannot run: {first}"
                + (f" (and {more} more problem{'s' if more > 1 else ''})" if more else "")
                + "; see View → Workflows… or `switchboard workflows list`"
            )
        return [*problems, *found.shadowed]

    def register(self, host: Any) -> list[str]:
        """Register the lazy ``switchboard.workflows`` server; problems for the user (its name is taken)."""

        def factory() -> Any:
            from desktop_app.runtime.workflows.server import make_workflows_server  # the SDK: on first use

            return make_workflows_server(self.load, lambda: self.runner)

        try:
            host.register_builtin(SERVER_NAME, factory, call_timeout=RUN_TIMEOUT)
        except ValueError:
            return [
                f"An MCP server in mcp.json is named '{SERVER_NAME}'; the workflows server is off until it is renamed."
            ]
        return []


def wire_workflows(
    host: Any,
    runtime: Any,
    *,
    config_dir: Path,
    data_dir: Path,
    project_dir: Path | None,
    store: Any | None,
    discover_now: bool = True,
) -> tuple[Workflows, list[str]]:
    """The app's and the CLI's :class:`Workflows`: records under ``data_dir``, step runs linked in ``store``.
    The problems of the workflows found (``Workflows.problems``) come with the registration's unless
    ``discover_now`` is False (the app asks for them after ``runtime: ready``)."""

    def make_records() -> WorkflowRecords:  # with the first workflow run or a stored run's display
        from desktop_app.runtime.workflows.records import FOLDER_NAME, WorkflowRecords

        link = titled = None
        if store is not None:
            from desktop_app.runtime.store.agents import link_subagent

            def link(child: str, parent: str, key: str, agent: str) -> None:
                link_subagent(store, child, parent, key, agent)

            def titled(conversation: str, workflow: str) -> None:  # listed, and named after the workflow
                store.ensure_conversation(conversation)
                store.set_title_if_empty(conversation, f"Workflow {workflow}")

        records = WorkflowRecords(
            data_dir / FOLDER_NAME, link=link, agent_of=runtime.conversation_agent, on_started=titled
        )
        if store is not None:  # the runs of conversations purged since go too
            records.prune(c.id for c in store.list_conversations(include_deleted=True))
        return records

    workflows = Workflows(
        runtime,
        config_dir=config_dir,
        project_dir=project_dir,
        data_dir=data_dir,
        plugins=lambda: dict(runtime.settings.plugins),
        make_records=make_records,
    )
    problems = workflows.register(host)
    if discover_now:
        problems += workflows.problems()
    return workflows, problems


__all__ = ["Workflows", "wire_workflows"]
