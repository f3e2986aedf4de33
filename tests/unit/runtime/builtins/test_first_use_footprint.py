"""What the first use of the built-in servers loads and keeps (issue 27, "RSS after first use").

A first prompt whose model calls a built-in tool goes through the real assembly, Host and Runtime in a fresh
interpreter (``sys.modules`` is the interpreter's, so a subprocess). The built-ins' results are the JSON of
pydantic models validated by their own server in this process; with an output schema the SDK's client
revalidated each one with ``jsonschema`` (and attrs, referencing, rpds: 43 modules, ~3 MB RSS).
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path

import pytest
from mcp.server.mcpserver import MCPServer

from desktop_app.paths import AppPaths
from desktop_app.runtime.builtins import make_artifacts_server, make_history_server, make_system_server

ROOT = Path(__file__).resolve().parents[4]

FIRST_USE = r"""
import asyncio, json, sys, tempfile
from pathlib import Path
from desktop_app.assembly import assemble
from desktop_app.paths import AppPaths
from desktop_app.runtime.run.approvals import ApprovalPolicy
from desktop_app.runtime.service import Runtime
from desktop_app.runtime.settings import ProviderSettings, Settings
from tests.support.fakes import FakeProvider, answer, calls

async def main() -> None:
    root = Path(tempfile.mkdtemp())
    paths = AppPaths(root / "config", root / "data", root / "logs").ensure()
    built = assemble(paths, strict=True)
    provider = FakeProvider([calls(("c1", "current_time", "{}")), answer("It is late.")])
    settings = Settings(provider=ProviderSettings(base_url="http://127.0.0.1:9/v1", model="m"))
    runtime = Runtime(settings=settings, host=built.host, policy=ApprovalPolicy("ask"),
                      provider_factory=lambda _s, _k: provider)
    try:
        outcome = await runtime.run(runtime.new_conversation(), "What time is it?")
        result = provider.requests[1].messages[-1]
    finally:
        await built.aclose()
    loaded = sorted(m for m in ("jsonschema", "referencing", "rpds") if m in sys.modules)
    print(json.dumps({"status": outcome.status, "result": str(result), "loaded": loaded}))

asyncio.run(main())
"""


def test_a_first_prompt_with_a_builtin_tool_call_does_not_import_jsonschema() -> None:
    done = subprocess.run(
        [sys.executable, "-c", FIRST_USE], capture_output=True, text=True, timeout=120, cwd=ROOT, check=False
    )
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert report["status"] == "finished"
    assert "utc_offset" in report["result"]  # the tool ran and its result reached the model
    assert report["loaded"] == []


def _servers(tmp_path: Path) -> list[MCPServer]:
    paths = AppPaths(tmp_path / "config", tmp_path / "data", tmp_path / "logs")
    return [
        make_system_server(paths),
        make_history_server(None),
        make_artifacts_server(tmp_path / "artifacts"),
    ]


def test_builtin_tools_declare_no_output_schema_and_still_return_their_json(tmp_path: Path) -> None:
    async def listed() -> dict[str, object]:
        return {tool.name: tool.output_schema for server in _servers(tmp_path) for tool in await server.list_tools()}

    schemas = asyncio.run(listed())
    assert len(schemas) == 7
    assert schemas == dict.fromkeys(schemas)


@pytest.mark.asyncio
async def test_a_model_result_stays_structured_through_its_json_text(tmp_path: Path) -> None:
    from mcp.client.client import Client

    from desktop_app.runtime.host.outcomes import outcome_from_result

    async with Client(_servers(tmp_path)[2]) as client:
        result = await client.call_tool("list_artifacts", {})
    outcome = outcome_from_result(result)
    assert outcome.structured == {"folder": str(tmp_path / "artifacts"), "artifacts": []}


@pytest.mark.asyncio
async def test_no_in_process_server_of_the_assembly_declares_an_output_schema(tmp_path: Path) -> None:
    from desktop_app.assembly import assemble
    from desktop_app.runtime.skills.discovery import SkillSet
    from desktop_app.runtime.skills.server import make_skills_server

    paths = AppPaths(tmp_path / "config", tmp_path / "data", tmp_path / "logs").ensure()
    built = assemble(paths, strict=True)
    try:
        servers = [factory() for factory in built.host.registry.builtins.values()]
        servers.append(make_skills_server(SkillSet))
        schemas = {tool.name: tool.output_schema for server in servers for tool in await server.list_tools()}
    finally:
        await built.aclose()
    assert {"current_time", "list_tasks", "create_task", "list_workflows", "run_workflow", "load_skill"} <= set(schemas)
    assert {name: schema for name, schema in schemas.items() if schema is not None} == {}
