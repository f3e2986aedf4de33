"""Every tool name in a request to each provider dialect matches ``^[a-zA-Z0-9_-]{1,64}$`` (issue 22, item 1),
and the name the model calls maps back to the right server and tool through the real Host.

The host holds what a user has after enabling a Claude Code plugin shaped like the official ``feature-dev``
(its agent is ``feature-dev.code-explorer``: a ``.`` in ``chat-with-feature-dev.code-explorer``), its command
(a prompt) and a skill, the built-in servers, and an external server with a long name, a hyphenated tool
(``resolve-library-id``, which must keep its hyphens), a long tool name and a tool named outside ASCII.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from mcp.server.mcpserver import MCPServer

from desktop_app.paths import AppPaths
from desktop_app.runtime.agents import AgentCatalog, AgentRunner, register_agents
from desktop_app.runtime.builtins import register_builtins
from desktop_app.runtime.host import Host
from desktop_app.runtime.messages import AssistantMessage, SystemMessage, ToolCallRequest, ToolMessage, UserMessage
from desktop_app.runtime.plugins import manage
from desktop_app.runtime.plugins.prompts import wire_prompts
from desktop_app.runtime.providers.anthropic_request import build_body
from desktop_app.runtime.providers.base import ChatRequest
from desktop_app.runtime.providers.openai_request import build_request
from desktop_app.runtime.run.approvals import ApprovalPolicy
from desktop_app.runtime.service import Runtime
from desktop_app.runtime.settings import ProviderSettings, load_settings, save_settings
from desktop_app.runtime.skills import discover
from desktop_app.runtime.skills.wiring import SkillsWiring
from tests.support import claude_plugins
from tests.support.fakes import FakeProvider

PROVIDER_RULE = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
LONG_SERVER = "acme-enterprise-knowledge-base-and-document-search"
LONG_TOOL = "find_every_document_that_mentions_the_quarterly_roadmap_review"
AGENT_SERVER = "switchboard.agent.feature-dev.code-explorer"


def context7() -> MCPServer:
    server = MCPServer("context7", log_level="WARNING")

    @server.tool(name="resolve-library-id")
    async def resolve(name: str = "") -> str:
        return f"resolved {name}"

    return server


def external_server() -> MCPServer:
    server = MCPServer(LONG_SERVER, log_level="WARNING")

    @server.tool(name=LONG_TOOL)
    async def long_one() -> str:
        return "the long one answered"

    @server.tool(name="résumé.lookup")
    async def accented() -> str:
        return "accented answered"

    @server.tool(name="検索")
    async def search() -> str:
        return "search answered"

    return server


async def build_host(tmp_path: Path) -> tuple[Host, Runtime]:
    paths = AppPaths(tmp_path / "config", tmp_path / "data", tmp_path / "logs").ensure()
    places = manage.Places(paths.data_dir, paths.settings_file, paths.mcp_config_file)
    plugin = claude_plugins.feature_dev(tmp_path / "src")
    claude_plugins.skill(plugin, "feature-notes", "name: feature-notes\ndescription: Keeps notes while building")
    manage.install(plugin, places)
    manage.enable("feature-dev", places)
    settings = load_settings(paths.settings_file).model_copy(
        update={"provider": ProviderSettings(base_url="http://127.0.0.1:9/v1", model="m")}
    )
    save_settings(paths.settings_file, settings)
    host = Host({})
    runtime = Runtime(
        settings=settings,
        host=host,
        policy=ApprovalPolicy("always"),
        settings_path=paths.settings_file,
        provider_factory=lambda _s, _k: FakeProvider([]),
    )
    catalog = AgentCatalog.load(settings, paths.config_dir, data_dir=paths.data_dir)
    runtime.attach_agents(catalog)
    assert register_agents(host, AgentRunner(runtime, catalog)) == []
    assert register_builtins(host, store=None, paths=paths) == []
    assert wire_prompts(host, paths.data_dir, paths.settings_file)
    skills = SkillsWiring(host, lambda: discover(manage.enabled_skill_roots(paths.data_dir, settings.plugins)))
    assert skills.refresh().skills and skills.registered
    host.add_in_process(LONG_SERVER, external_server)
    host.add_in_process("context7", context7)
    for server in host.states():
        await host.ensure_connected(server)
    return host, runtime


def history() -> tuple[AssistantMessage | ToolMessage | UserMessage | SystemMessage, ...]:
    """A conversation stored before names were made safe: its tool call has the old dotted name."""
    old = ToolCallRequest(id="c1", name="chat-with-feature-dev.code-explorer", arguments='{"prompt": "look"}')
    return (
        SystemMessage(content="You help."),
        UserMessage(content="Explore the login flow."),
        AssistantMessage(tool_calls=(old,)),
        ToolMessage(tool_call_id="c1", content="It starts in auth.py."),
        UserMessage(content="And now the roadmap."),
    )


def openai_names(body: dict[str, Any]) -> list[str]:
    names = [tool["function"]["name"] for tool in body["tools"]]
    for message in body["messages"]:
        names += [call["function"]["name"] for call in message.get("tool_calls") or []]
    return names


def anthropic_names(body: dict[str, Any]) -> list[str]:
    names = [tool["name"] for tool in body["tools"]]
    for message in body["messages"]:
        names += [block["name"] for block in message["content"] if block.get("type") == "tool_use"]
    return names


@pytest.mark.asyncio
async def test_every_name_in_each_dialects_request_is_legal_and_maps_back(tmp_path: Path) -> None:
    host, runtime = await build_host(tmp_path)
    try:
        specs = host.tool_specs()
        request = ChatRequest(model="m", messages=history(), tools=tuple(specs))
        bodies = {
            "openai": openai_names(build_request(request, dialect="openai")[0]),
            "deepseek": openai_names(build_request(request, dialect="deepseek")[0]),
            "anthropic": anthropic_names(build_body(request)),
        }
        for dialect, names in bodies.items():
            bad = [name for name in names if not PROVIDER_RULE.match(name)]
            assert bad == [], f"{dialect} would refuse {bad}"
            assert len(names) == len(specs) + 1  # every tool, and the stored call

        offered = {spec.name for spec in specs}
        assert len(offered) == len(specs)  # collision-free
        assert {"load_skill", "list_skills", "chat-with-feature-dev_code-explorer"} <= offered
        hyphenated = "mcp__context7__resolve-library-id"
        assert hyphenated in offered  # the documented name keeps its hyphens

        # every offered name maps back to its own server and tool, through the host's table
        targets = {name: host.lookup(name) for name in offered}
        assert all(target is not None for target in targets.values())
        assert len({(t.server, t.tool) for t in targets.values() if t is not None}) == len(offered)
        agent = host.lookup("chat-with-feature-dev_code-explorer")
        assert agent is not None and (agent.server, agent.tool) == (AGENT_SERVER, "chat-with-feature-dev.code-explorer")
        stored = host.lookup("chat-with-feature-dev.code-explorer")  # the stored call's old name finds it too
        assert stored is not None and stored.server == AGENT_SERVER
        external = {t.tool: t for t in targets.values() if t is not None and t.server in (LONG_SERVER, "context7")}
        assert set(external) == {"resolve-library-id", LONG_TOOL, "résumé.lookup", "検索"}
        assert external["resolve-library-id"].name == hyphenated
        assert len(external[LONG_TOOL].name) <= 64 and external[LONG_TOOL].name.startswith("mcp__acme-enterprise")

        # the same names after a restart of the host (a new table built from the same servers)
        again, runtime_again = await build_host(tmp_path / "again")
        try:
            assert {spec.name for spec in again.tool_specs()} == offered
        finally:
            await runtime_again.aclose()
            await again.aclose()

        # calling the sent names reaches the right tools
        for tool, expected in [
            (LONG_TOOL, "the long one answered"),
            ("résumé.lookup", "accented answered"),
            ("検索", "search answered"),
            ("resolve-library-id", "resolved react"),
        ]:
            target = host.lookup(external[tool].name)
            assert target is not None
            outcome = await host.call(target.server, target.tool, {"name": "react"} if "resolve" in tool else {})
            assert not outcome.is_error and expected in json.dumps(outcome.model_dump(mode="json"))
    finally:
        await runtime.aclose()
        await host.aclose()
