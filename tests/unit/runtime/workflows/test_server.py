"""The built-in switchboard.workflows server through an MCP client: list_workflows (broken files with
path:line and field), run_workflow walking the steps on the real Runtime, workflow:///name resources."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from mcp import Client

from desktop_app.runtime.workflows.server import make_workflows_server
from desktop_app.runtime.workflows.wiring import Workflows
from tests.support.fakes import answer
from tests.unit.runtime.workflows.test_runner import build, prompts

FIXTURES = Path(__file__).resolve().parents[3] / "fixtures" / "workflows"


def tool_text(result: object) -> str:
    return "".join(getattr(c, "text", "") for c in getattr(result, "content", []))


@pytest.mark.asyncio
async def test_list_run_and_read(tmp_path: Path) -> None:
    folder = tmp_path / "config" / "workflows"
    for kind, name in (("good", "pr-review"), ("good", "safe-fix"), ("broken", "bad-condition")):
        shutil.copytree(FIXTURES / kind / name, folder / name)
    runtime, provider, _seen = build([answer("x.py"), answer("Clean.")])
    workflows = Workflows(runtime, config_dir=tmp_path / "config", project_dir=None)
    server = make_workflows_server(workflows.load, lambda: workflows.runner)
    async with Client(server) as client:
        listed = tool_text(await client.call_tool("list_workflows", {}))
        assert "pr-review: Review the changed files" in listed
        assert "  input target (optional): The folder or files to look at (default: src/)" in listed
        assert "  steps: 1. List Changes, 2. Review Files" in listed
        assert (
            f"bad-condition (broken, cannot run):\n  {folder / 'bad-condition' / 'SKILL.md'}:14: "
            "step 2 (Act): Condition:" in listed
        )

        result = await client.call_tool("run_workflow", {"name": "pr-review", "inputs": {"target": "app/"}})
        assert not result.is_error
        assert tool_text(result) == "Review of app/:\nClean."
        assert prompts(provider)[0] == "List the files changed under app/, one per line."

        broken = await client.call_tool("run_workflow", {"name": "bad-condition"})
        assert (
            broken.is_error
            and "is broken and was not run" in tool_text(broken)
            and ":14: step 2 (Act)" in tool_text(broken)
        )
        missing = await client.call_tool("run_workflow", {"name": "safe-fix", "inputs": {}})
        assert missing.is_error and "needs the input 'issue'" in tool_text(missing)
        unknown = await client.call_tool("run_workflow", {"name": "nope"})
        assert unknown.is_error and "Workflows: pr-review, safe-fix." in tool_text(unknown)

        resources = await client.list_resources()
        assert {str(r.uri) for r in resources.resources} == {"workflow:///pr-review", "workflow:///safe-fix"}
        read = await client.read_resource("workflow:///safe-fix")
        assert read.contents[0].text.startswith("---\nname: safe-fix")  # type: ignore[union-attr]


@pytest.mark.asyncio
async def test_a_step_cannot_start_the_workflow_it_belongs_to(tmp_path: Path) -> None:
    from desktop_app.runtime import events as ev
    from desktop_app.runtime.host import Host
    from desktop_app.runtime.run.approvals import ApprovalPolicy
    from desktop_app.runtime.service import Runtime
    from desktop_app.runtime.settings import ProviderSettings, Settings
    from tests.support.fakes import FakeProvider, calls

    shutil.copytree(FIXTURES / "good" / "greet", tmp_path / "workflows" / "greet")
    host = Host({})
    provider = FakeProvider(
        [calls(("c1", "run_workflow", '{"name": "greet"}')), answer("Hello anyway."), answer("Goodbye.")]
    )
    runtime = Runtime(
        settings=Settings(provider=ProviderSettings(base_url="http://127.0.0.1:9/v1", model="m")),
        host=host,
        policy=ApprovalPolicy("always"),
        provider_factory=lambda _s, _k: provider,
    )
    seen: list[ev.Event] = []
    runtime.subscribe(seen.append)
    workflows = Workflows(runtime, config_dir=tmp_path, project_dir=None)
    assert workflows.register(host) == []
    try:
        result = await workflows.runner.run(workflows.load().workflows["greet"], {}, runtime.new_conversation())
    finally:
        await runtime.aclose()
    [refused] = [e for e in seen if isinstance(e, ev.ToolResult)]
    assert refused.is_error and "Workflow cycle refused: greet → greet" in refused.text
    assert (result.status, result.output) == ("finished", "Goodbye.")
    assert [e.workflow for e in seen if isinstance(e, ev.WorkflowStarted)] == ["greet"]  # never started inside


class Registry:
    """What ``Workflows.register`` needs of a Host: the lazy built-in's factory, kept."""

    def __init__(self) -> None:
        self.factories: dict[str, object] = {}

    def register_builtin(self, name: str, factory: object, call_timeout: float | None = None) -> None:
        self.factories[name] = factory


@pytest.mark.asyncio
async def test_the_server_lists_without_a_runner_and_makes_it_for_the_first_run(tmp_path: Path) -> None:
    """The server starts with the first request's tool list (the built-ins' tools are offered): that needs no
    runner, whose module, the template's and the records' load with the first workflow run (issue 27: memory
    after first use)."""
    shutil.copytree(FIXTURES / "good" / "pr-review", tmp_path / "config" / "workflows" / "pr-review")
    runtime, _provider, _seen = build([answer("x.py"), answer("Clean.")])
    workflows = Workflows(runtime, config_dir=tmp_path / "config", project_dir=None)
    host = Registry()
    assert workflows.register(host) == []
    [factory] = host.factories.values()
    async with Client(factory()) as client:  # type: ignore[operator]
        listed = await client.list_tools()
        assert {t.name for t in listed.tools} == {"list_workflows", "run_workflow"}
        assert "pr-review" in tool_text(await client.call_tool("list_workflows", {}))
        assert workflows._runner is None
        result = await client.call_tool("run_workflow", {"name": "pr-review", "inputs": {"target": "app/"}})
        assert not result.is_error and workflows._runner is not None
