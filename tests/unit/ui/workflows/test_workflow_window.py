"""A workflow run in the real window (pytest-qt, real MainWindow, Runtime and Store, the loopback model):
View → Workflows… lists the workflows and the broken file with path:line and field; Run… fills in the inputs and
runs it; the chat shows the step list live (a step's tool call is approved inside its row), then done and
skipped steps and the Output; after a restart the reopened conversation shows the same step list, each step's
sub-run read from the store when opened. Stop stops a running workflow."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QAction

from desktop_app.runtime.providers.openai import OpenAIProvider
from desktop_app.runtime.run.approvals import ApprovalPolicy
from desktop_app.runtime.service import Runtime
from desktop_app.runtime.settings import ProviderSettings, Settings
from desktop_app.runtime.store import Store, attach_store
from desktop_app.runtime.workflows.wiring import wire_workflows
from desktop_app.ui.conversations.panel import ID_ROLE
from desktop_app.ui.window.main_window import MainWindow
from desktop_app.ui.workflows import install_workflows
from desktop_app.ui.workflows.steps import WorkflowRunBlock
from tests.support.fakes import FakeHost
from tests.support.llm_server import Gate, ScriptedLLMServer, text_reply, tool_call_reply

FIXTURES = Path(__file__).resolve().parents[3] / "fixtures" / "workflows"


class Session:
    """One app session: runtime, store, workflows and window over ``home``."""

    def __init__(self, qtbot: Any, home: Path, url: str, host: FakeHost) -> None:
        settings = Settings(provider=ProviderSettings(base_url=url, model="test-model"))

        def factory(s: ProviderSettings, key: str | None) -> OpenAIProvider:
            return OpenAIProvider(base_url=s.base_url, api_key=key, dialect="openai", sleep=self.runtime.sleeper.sleep)

        self.runtime = Runtime(
            settings=settings, host=host, api_key_override="k", provider_factory=factory, policy=ApprovalPolicy("ask")
        )
        self.store = Store.open(home / "store.db")
        self.recorder = attach_store(self.runtime, self.store)
        self.workflows, self.problems = wire_workflows(
            host, self.runtime, config_dir=home / "config", data_dir=home / "data", project_dir=None, store=self.store
        )
        self.window = MainWindow()
        qtbot.addWidget(self.window)
        self.window.attach_runtime(self.runtime)
        self.window.attach_store(self.store)
        self.ui = install_workflows(self.window, self.workflows)
        self.window.show()
        qtbot.waitExposed(self.window)

    def close(self, qtbot: Any, qloop: Any) -> None:
        task = qloop.create_task(self.runtime.aclose())
        qtbot.waitUntil(task.done)
        self.recorder.close()
        self.store.close()


class NoBuiltins(FakeHost):
    def register_builtin(self, name: str, factory: Any, *, call_timeout: float | None = None) -> None:
        """The fake host has no built-in servers; the workflows server is not needed in the window."""


def block_of(window: MainWindow) -> WorkflowRunBlock | None:
    return next((b for b in window.view.blocks() if isinstance(b, WorkflowRunBlock)), None)


@pytest.mark.integration
def test_a_workflow_runs_as_a_step_list_in_the_window_and_comes_back_after_a_restart(
    qtbot: Any, qloop: Any, llm_server: ScriptedLLMServer, tmp_path: Path
) -> None:
    folder = tmp_path / "config" / "workflows"
    shutil.copytree(FIXTURES / "good" / "safe-fix", folder / "safe-fix")
    shutil.copytree(FIXTURES / "broken" / "bad-name", folder / "bad-name")
    llm_server.enqueue(
        tool_call_reply([("c1", "mcp__fake__read_log", {"lines": 5})]),
        text_reply("The crash is minor."),
        text_reply("Small change. SAFE"),
        text_reply("Fixed it."),
    )
    host = NoBuiltins(handlers={"read_log": lambda _a: "error at save()"})
    first = Session(qtbot, tmp_path, llm_server.url, host)
    try:
        window = first.window
        assert any("bad-name" in p and ":2: name:" in p for p in first.problems)
        window.findChild(type(first.ui.action), "workflowsAction").trigger()
        dialog = first.ui.dialog
        assert dialog is not None
        qtbot.waitExposed(dialog)
        names = [dialog.list.item(i).text() for i in range(dialog.list.count())]
        assert names == ["safe-fix", "⚠ bad-name (broken)"]
        dialog.select("bad-name")
        assert dialog.problems.toPlainText() == (
            f"{folder / 'bad-name' / 'SKILL.md'}:2: name: 'Bad_Name': only lowercase letters, digits and single '-' "
            "between them (e.g. code-review)"
        )
        assert not dialog.run_button.isEnabled()
        dialog.select("safe-fix")
        qtbot.mouseClick(dialog.run_button, Qt.MouseButton.LeftButton)  # the required input is empty: not run
        assert "Fill in: issue" in dialog.about.text() and block_of(window) is None
        dialog.inputs["issue"].setText("crash on save")
        qtbot.mouseClick(dialog.run_button, Qt.MouseButton.LeftButton)

        qtbot.waitUntil(lambda: block_of(window) is not None, timeout=5000)
        block = block_of(window)
        assert block is not None
        assert window.controller is not None and window.controller.busy  # Send is Stop while it runs
        first_row = block.steps[0]
        qtbot.waitUntil(lambda: any(c.pending for c in first_row.body.cards.values()), timeout=5000)
        assert first_row.status.text() == "Waiting for your approval" and first_row.expanded
        assert [r.status.text() for r in block.steps[1:]] == ["Pending", "Pending", "Pending"]
        [card] = first_row.body.cards.values()
        qtbot.mouseClick(card.approve_button, Qt.MouseButton.LeftButton)  # approved inside the step's row
        qtbot.waitUntil(lambda: block.status == "finished", timeout=10_000)

        assert [(r.step_name, r.status.text()) for r in block.steps] == [
            ("Assess Issue", "Done"),
            ("Judge Safety", "Done"),
            ("Make Fix", "Done"),
            ("Write Report", "Skipped"),
        ]
        assert block.steps[3].detail.text() == "condition not met: {{Judge Safety}} contains UNSAFE"
        prompt = "Read this report and say how severe the bug is: crash on save"
        assert first_row.body.prompts[0].text().endswith(prompt)
        assert first_row.body.last_answer is not None and first_row.body.last_answer.text == "The crash is minor."
        assert block.output.text == "Fixed it." and block.output.isVisible()
        assert block.state.text() == "Finished · 3 of 4 steps done"
        assert host.log == [("fake", "read_log", {"lines": 5})]
        qtbot.waitUntil(lambda: not window.controller.busy)
        conversation = window.controller.conversation_id
        listed = window.conversation_ctl.panel.list
        titles = [listed.item(i).text() for i in range(listed.count()) if listed.item(i).data(ID_ROLE)]
        assert titles == ["Workflow safe-fix"]  # listed, named after the workflow (its steps' runs are not)
    finally:
        first.close(qtbot, qloop)

    second = Session(qtbot, tmp_path, llm_server.url, NoBuiltins())
    try:
        second.window.conversation_ctl.open_conversation(conversation)
        qtbot.waitUntil(lambda: block_of(second.window) is not None, timeout=5000)
        again = block_of(second.window)
        assert again is not None
        assert [r.status.text() for r in again.steps] == ["Done", "Done", "Done", "Skipped"]
        assert again.output.text == "Fixed it." and again.state.text() == "Finished · 3 of 4 steps done"
        row = again.steps[1]
        assert not row.expanded
        qtbot.mouseClick(row.toggle, Qt.MouseButton.LeftButton)  # read from the store when opened
        assert row.body.last_answer is not None and row.body.last_answer.text == "Small change. SAFE"
    finally:
        second.close(qtbot, qloop)


@pytest.mark.integration
def test_stop_stops_the_workflow(qtbot: Any, qloop: Any, llm_server: ScriptedLLMServer, tmp_path: Path) -> None:
    shutil.copytree(FIXTURES / "good" / "greet", tmp_path / "config" / "workflows" / "greet")
    gate = Gate()
    reply = text_reply("Hello!")
    reply.steps = [gate, *reply.steps]
    llm_server.enqueue(reply)
    session = Session(qtbot, tmp_path, llm_server.url, NoBuiltins())
    try:
        window = session.window
        workflow = session.workflows.load().workflows["greet"]
        session.ui.chat.start(workflow, {})
        qtbot.waitUntil(lambda: block_of(window) is not None and block_of(window).steps[0].step_status == "running")
        window.turns.on_stop_requested()  # Esc / Stop
        block = block_of(window)
        qtbot.waitUntil(lambda: block.status == "cancelled", timeout=5000)
        gate.open()
        assert [(r.status.text(), r.detail.text()) for r in block.steps] == [
            ("Failed", "stopped"),
            ("Skipped", "not run: the workflow was stopped"),
        ]
        assert block.state.text().startswith("Stopped")
        qtbot.waitUntil(lambda: not window.controller.busy)
    finally:
        gate.open()
        session.close(qtbot, qloop)


def test_the_menu_action_works_when_nobody_keeps_what_install_returned(
    qtbot: Any, window: MainWindow, tmp_path: Path
) -> None:
    import gc

    from desktop_app.runtime.workflows.wiring import Workflows
    from desktop_app.ui.workflows.dialog import WorkflowsDialog

    shutil.copytree(FIXTURES / "good" / "greet", tmp_path / "workflows" / "greet")
    install_workflows(window, Workflows(window.runtime, config_dir=tmp_path, project_dir=None))  # as app.py does
    gc.collect()
    action = next(a for a in window.findChildren(QAction) if a.objectName() == "workflowsAction")
    action.trigger()
    dialog = window.findChild(WorkflowsDialog)
    assert dialog is not None and dialog.isVisible()
    assert [dialog.list.item(i).text() for i in range(dialog.list.count())] == ["greet"]
