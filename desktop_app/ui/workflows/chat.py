"""Workflow runs in the chat window: started from the Workflows dialog, shown as a step list, stopped by Stop.

:class:`WorkflowChat` follows the controller's ``workflow_event`` signal: ``WorkflowStarted`` adds a
:class:`~.steps.WorkflowRunBlock` to the view, each ``WorkflowStep`` updates its row (a running step's sub-run is
registered with the view's ``nested`` router, so its streamed answer, tool cards and approvals appear inside the
row, and answering an approval goes through the view's ``decided`` as any other), ``WorkflowFinished`` shows the
state and the Output. While a workflow started here runs, the conversation is busy (Send is Stop) and Stop ends
the workflow (``ChatController.stoppers``). When a stored conversation is shown again, its workflow runs come back
from their records, each step's sub-run read from the store when its row is opened.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject
from shiboken6 import isValid

from desktop_app.ui.workflows.steps import WorkflowRunBlock

if TYPE_CHECKING:
    from desktop_app.runtime import events as ev
    from desktop_app.runtime.workflows.model import Workflow
    from desktop_app.runtime.workflows.wiring import Workflows
    from desktop_app.ui.chat.subagents import SubTranscript
    from desktop_app.ui.window.main_window import MainWindow


class WorkflowChat(QObject):
    """The window's workflow runs (see the module)."""

    def __init__(self, window: MainWindow, workflows: Workflows) -> None:
        super().__init__(window)
        self.setObjectName("workflowChat")
        self.window = window
        self.workflows = workflows
        self.blocks: dict[str, WorkflowRunBlock] = {}
        controller = window.controller
        assert controller is not None, "install after attach_runtime"
        self.controller = controller
        controller.workflow_event.connect(self.on_event)
        controller.stoppers.append(self.stop)
        window.view.transcript_loaded.connect(self.show_stored)

    # -- starting and stopping ---------------------------------------------------------------------------

    def start(self, workflow: Workflow, inputs: Mapping[str, str]) -> asyncio.Task[Any] | None:
        """Run ``workflow`` in the shown conversation (``None``: it is busy; the status bar says so)."""
        controller = self.controller
        if controller.busy:
            self.window.set_status("This conversation is busy: wait for it or press Stop, then run the workflow.")
            return None
        conversation = controller.conversation_id
        controller.set_busy(True)
        self.window.set_status(f"Running the workflow {workflow.name}…")

        async def run() -> Any:
            from desktop_app.ui.error_text import describe_exception

            try:
                result = await self.workflows.runner.run(workflow, dict(inputs), conversation)
            except Exception as exc:  # inputs that do not fit, a workflow already running: said in the chat
                self.window.view.show_error(describe_exception(exc))
                return None
            finally:
                if controller.conversation_id == conversation:
                    controller.set_busy(False)
            self.window.set_status(f"Workflow {workflow.name}: {result.status}, {result.tally()}")
            return result

        task: asyncio.Task[Any] = self.window.tasks.start(run(), name=f"workflow-{workflow.name}")
        return task

    def stop(self, conversation_id: str) -> None:
        self.workflows.cancel(conversation_id)  # no runner is made to stop nothing

    # -- live events -------------------------------------------------------------------------------------

    def on_event(self, event: ev.Event) -> None:
        kind = event.kind
        if kind == "workflow_started":
            block = WorkflowRunBlock(event.workflow, list(event.steps), event.run_id)  # type: ignore[union-attr]
            self.blocks[event.run_id] = block
            self.window.view.add_block(block)
            self.window.conversation_ctl.on_activity(event)  # listed (titled after the workflow) and current
            return
        block_or_none = self.blocks.get(event.run_id)
        if block_or_none is None or not isValid(block_or_none):
            return
        block = block_or_none
        if kind == "workflow_step":
            self._step(block, event)  # type: ignore[arg-type]
        elif kind == "workflow_finished":
            block.show_run_status(event.status, event.error)  # type: ignore[union-attr]
            block.show_output(event.output)  # type: ignore[union-attr]
            self.window.conversation_ctl.on_activity(event)

    def _step(self, block: WorkflowRunBlock, event: ev.WorkflowStep) -> None:
        row = block.show_step(event.index, event.status, event.detail)
        if row is None:
            return
        view = self.window.view
        child = event.child_conversation_id
        if event.status == "running" and child:
            view.nested.subs[child] = row  # the sub-run's events go into the row (``SubagentNesting``)
            row.body.decided.connect(view.decided)
            if event.prompt:
                row.body.add_user_message(event.prompt)
            row.set_expanded(True)
        elif event.status in ("done", "failed"):
            row.body.end_segment()
            if event.status == "done" and row.body.last_answer is None and event.output:
                row.body.add_answer(event.output)  # an answer that came without deltas
            for card in row.body.pending_cards():
                card.disarm("Not answered — the step ended")
            row.set_expanded(event.status == "failed")  # a failure stays open to be read

    # -- after a restart ---------------------------------------------------------------------------------

    def show_stored(self) -> None:
        """The shown conversation's stored workflow runs, at the end of its transcript."""
        records = self.workflows.records
        if records is None:
            return
        for record in records.load(self.controller.conversation_id):
            block = WorkflowRunBlock.from_record(record, self._loader)
            self.blocks[record.run_id] = block
            self.window.view.add_block(block)

    def _loader(self, child: str) -> Callable[[SubTranscript], None] | None:
        store = self.window.conversation_ctl.store
        if store is None:
            return None

        def load(body: SubTranscript) -> None:
            from desktop_app.ui.chat.replay import read_transcript, replay_nested

            replay_nested(body, read_transcript(store, child, None))

        return load


__all__ = ["WorkflowChat"]
