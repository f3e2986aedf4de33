"""The built-in ``switchboard.workflows`` server (lazy, like the other built-ins).

* ``list_workflows`` (read-only): every workflow with its description and inputs, and the broken files with
  their ``path:line: field: problem`` lines;
* ``run_workflow(name, inputs)``: runs the workflow with the :class:`~.runner.WorkflowRunner` for the
  conversation whose model called it (its steps' sub-runs use that conversation's agent, tools and approvals);
  the result is the filled Output, or an error the model reads (unknown name, broken file, missing input,
  a step that failed under ``On error: stop``). Not read-only: the approval policy asks before it runs;
* resources ``workflow:///<name>``: each workflow's ``SKILL.md`` (as Markdown).

Workflows are discovered again on each call, so an edit shows without a restart.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from mcp.server.mcpserver import MCPServer

    from desktop_app.runtime.workflows.discovery import WorkflowSet
    from desktop_app.runtime.workflows.model import Workflow
    from desktop_app.runtime.workflows.runner import WorkflowRunner

SERVER_NAME = "switchboard.workflows"
RUN_TIMEOUT = 24 * 3600.0
"""A workflow's steps may wait for the user's approvals: its tool call is not cut after the usual 60 s."""


def describe(workflow: Workflow) -> str:
    """One workflow as text: name, description, inputs, steps."""
    lines = [f"{workflow.name}: {workflow.description}"]
    for item in workflow.inputs:
        kind = "required" if item.required else "optional"
        default = f" (default: {item.default})" if item.default is not None else ""
        lines.append(f"  input {item.name} ({kind}): {item.description}{default}")
    lines.append("  steps: " + ", ".join(f"{s.number}. {s.name}" for s in workflow.steps))
    return "\n".join(lines)


def listing(found: WorkflowSet) -> str:
    parts = [describe(w) for w in found.sorted()] or ["No workflows are installed."]
    for broken in found.broken:
        parts.append(f"{broken.name} (broken, cannot run):\n" + "\n".join(f"  {p}" for p in broken.problems))
    return "\n\n".join(parts)


def make_workflows_server(load: Callable[[], WorkflowSet], runner: Callable[[], WorkflowRunner]) -> MCPServer:
    """A new ``switchboard.workflows`` server over the workflows ``load()`` finds; ``runner()`` gives the runner
    when a workflow first runs (the server starts with the first request's tool list: listing needs no runner)."""
    import mcp_types as mtypes
    from mcp.server.mcpserver.exceptions import ResourceError, ToolError
    from mcp.server.mcpserver.resources import FunctionResource

    from desktop_app import __version__
    from desktop_app.runtime.hooks.context import current_tool_call
    from desktop_app.runtime.in_process import in_process_server

    server = in_process_server(SERVER_NAME, version=__version__, log_level="WARNING")
    read_only = mtypes.ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True)

    @server.tool(
        description="List the workflows (repeatable multi-step processes) with their inputs and steps.",
        annotations=read_only,
        structured_output=False,
    )
    async def list_workflows() -> str:
        return listing(await asyncio.to_thread(load))

    @server.tool(
        description="Run a workflow by name with its inputs (a mapping of input name to text). Its steps run one "
        "after the other, each as its own model turn; the result is the workflow's Output.",
        structured_output=False,
    )
    async def run_workflow(name: str, inputs: dict[str, str] | None = None) -> str:
        found = await asyncio.to_thread(load)
        workflow = found.get(name)
        if workflow is None:
            broken = found.broken_named(name)
            if broken is not None:
                raise ToolError(
                    f"The workflow {name!r} is broken and was not run: " + "; ".join(map(str, broken.problems))
                )
            known = ", ".join(w.name for w in found.sorted()) or "none"
            raise ToolError(f"There is no workflow named {name!r}. Workflows: {known}.")
        from desktop_app.runtime.workflows.runner import WorkflowBusyError
        from desktop_app.runtime.workflows.template import InputError

        parent = current_tool_call.get()
        running = runner()
        conversation = parent.conversation_id if parent is not None and parent.conversation_id else ""
        conversation = conversation or running.runtime.new_conversation()
        try:
            result = await running.run(workflow, dict(inputs or {}), conversation)
        except (InputError, WorkflowBusyError) as exc:
            raise ToolError(str(exc)) from None
        if result.status != "finished":
            raise ToolError(f"{result.error} ({result.tally()})")
        return result.output or f"(the workflow {name!r} finished without output; {result.tally()})"

    def add_resource(workflow: Workflow) -> None:
        def read() -> str:
            return workflow.file.read_text(encoding="utf-8")

        server.add_resource(
            FunctionResource(
                uri=workflow.uri,
                name=workflow.name,
                description=workflow.description,
                mime_type="text/markdown",
                fn=read,
            )
        )

    for workflow in load().sorted():
        add_resource(workflow)

    @server.resource("workflow:///{name}", mime_type="text/markdown", description="A workflow's SKILL.md")
    def workflow_file(name: str) -> str:
        found = load().get(name)
        if found is None:
            raise ResourceError(f"There is no workflow named {name!r}.")
        return found.file.read_text(encoding="utf-8")

    return server


__all__ = ["RUN_TIMEOUT", "SERVER_NAME", "describe", "listing", "make_workflows_server"]
