"""Plugin agents: Claude Code's ``agents/*.md`` and Whale's ``[[agents]]`` read into agent definitions named
``<plugin>.<agent>`` (Claude Code's own tools left out, Claude model aliases on the conversation's model), served
as ``chat-with-<plugin>_<agent>`` through the real Runtime and Host once the plugin is enabled (the default agent
calls it), and gone again after disable and remove."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from desktop_app.runtime.agents import AgentCatalog, AgentRunner, register_agents
from desktop_app.runtime.agents.files import apply_agents
from desktop_app.runtime.host import Host
from desktop_app.runtime.plugins import manage
from desktop_app.runtime.plugins.agents import read_agents
from desktop_app.runtime.plugins.live import sync_records
from desktop_app.runtime.plugins.model import read_plugin
from desktop_app.runtime.run.approvals import ApprovalPolicy
from desktop_app.runtime.service import Runtime
from desktop_app.runtime.settings import AgentSettings, ProviderSettings, load_settings, save_settings
from tests.support.fakes import FakeProvider, answer, calls

EXAMPLE = Path(__file__).resolve().parents[4] / "docs" / "examples" / "plugins" / "notes-plugin"
AGENT = "notes-plugin.note-reviewer"
TOOL = "chat-with-notes-plugin_note-reviewer"
"""What the model is offered: no '.' in a tool name (issue 22)."""
SERVER = f"switchboard.agent.{AGENT}"


def test_claude_agent_files_are_mapped_with_what_is_not_available(tmp_path: Path) -> None:
    (tmp_path / ".claude-plugin").mkdir()
    (tmp_path / ".claude-plugin" / "plugin.json").write_text('{"name": "kit"}')
    (tmp_path / ".mcp.json").write_text('{"mcpServers": {"db": {"command": "db-server"}}}')
    (tmp_path / "agents").mkdir()
    (tmp_path / "agents" / "scout.md").write_text(
        "---\nname: scout\ndescription: Finds things\n"
        "tools: Read, Grep, Bash(git log *), mcp__plugin_kit_db__query, mcp__db__schema, mcp__github__search, ping\n"
        "model: opus\n---\nFind it.\n"
    )
    (tmp_path / "agents" / "plain.md").write_text("No frontmatter: every tool.\n")
    (tmp_path / "agents" / "own.md").write_text("---\nmodel: deepseek-chat\ntools: [Write]\n---\nx\n")
    found = {a.source: a for a in read_agents(read_plugin(tmp_path))}
    scout, own, plain = found["scout"], found["own"], found["plain"]
    assert scout.name == "kit.scout" and scout.definition is not None
    assert scout.definition.name == "kit.scout" and scout.definition.instructions == "Find it."
    assert scout.definition.description == "Finds things"
    assert scout.definition.tools == ["kit.db/query", "kit.db/schema", "github/search", "ping"]
    assert scout.unavailable == ["Read", "Grep", "Bash(git log *)"]
    assert scout.definition.model == "" and any("'opus'" in n and "conversation's model" in n for n in scout.notes)
    assert any("Read, Grep, Bash(git log *): not available here" in n for n in scout.notes)
    assert plain.definition is not None and plain.definition.tools is None and plain.notes == []
    assert own.definition is not None and own.definition.model == "deepseek-chat"
    assert own.definition.tools == [] and own.unavailable == ["Write"]  # only Claude Code tools: none left


def test_whale_agents_from_the_manifest_and_the_folder(tmp_path: Path) -> None:
    (tmp_path / "whale-plugin.toml").write_text(
        'id = "rev"\n'
        '[[agents]]\nname = "checker"\ndescription = "Checks"\ntools = ["lint/*"]\nfile = "checker.md"\n'
        '[[agents]]\nname = "inline"\ninstructions = "Be brief."\nmodel = "inherit"\n'
        '[[agents]]\nname = "escape"\nfile = "../outside.md"\n'
    )
    (tmp_path / "checker.md").write_text("Check the code.\n")
    (tmp_path / "agents").mkdir()
    (tmp_path / "agents" / "reviewer.md").write_text("---\ndescription: Reviews\n---\nReview.\n")
    plugin = read_plugin(tmp_path)
    assert plugin.agents == ["reviewer", "checker", "inline", "escape"]
    found = {a.name: a.definition for a in read_agents(plugin)}
    assert list(found) == ["rev.reviewer", "rev.checker", "rev.inline"]
    checker, inline = found["rev.checker"], found["rev.inline"]
    assert checker is not None and checker.instructions == "Check the code." and checker.tools == ["lint/*"]
    assert inline is not None and inline.instructions == "Be brief." and inline.model == ""
    assert any("outside the plugin" in p for p in plugin.problems)


def _places(tmp_path: Path) -> manage.Places:
    return manage.Places(tmp_path / "data", tmp_path / "config" / "settings.json", tmp_path / "config" / "mcp.json")


def _runtime(places: manage.Places, provider: FakeProvider) -> Runtime:
    settings = load_settings(places.settings_file)
    settings = settings.model_copy(update={"provider": ProviderSettings(base_url="http://127.0.0.1:9/v1", model="m")})
    save_settings(places.settings_file, settings)
    host = Host({})
    runtime = Runtime(
        settings=settings,
        host=host,
        policy=ApprovalPolicy("always"),
        settings_path=places.settings_file,
        provider_factory=lambda _s, _k: provider,
    )
    catalog = AgentCatalog.load(settings, places.settings_file.parent, data_dir=places.data_dir)
    runtime.attach_agents(catalog)
    assert register_agents(host, AgentRunner(runtime, catalog)) == []
    return runtime


async def _change(runtime: Runtime, places: manage.Places) -> list[str]:
    sync_records(runtime, places.settings_file)
    return await apply_agents(runtime, runtime.host, places.settings_file.parent)


@pytest.mark.asyncio
async def test_enabling_serves_the_agent_to_the_default_agent_and_disable_and_remove_withdraw_it(
    tmp_path: Path,
) -> None:
    places = _places(tmp_path)
    manage.install(EXAMPLE, places)
    call = calls(("c1", TOOL, json.dumps({"prompt": "review: one two"})))
    provider = FakeProvider([call, answer("Three bullets."), answer("It reviewed it."), answer("no agent")])
    runtime = _runtime(places, provider)
    host = runtime.host
    try:
        assert SERVER not in host.states() and runtime.agents.get(AGENT) is None  # type: ignore[union-attr]

        manage.enable("notes-plugin", places)
        assert await _change(runtime, places) == []
        assert SERVER in host.states()
        definition = runtime.agents.get(AGENT)  # type: ignore[union-attr]
        assert definition is not None and definition.tools == ["notes-plugin.notes/word_count"]
        outcome = await runtime.run(runtime.new_conversation(), "review my note")
        assert (outcome.status, outcome.content) == ("finished", "It reviewed it.")
        assert TOOL in [t.name for t in provider.requests[0].tools]
        child = provider.requests[1]  # the plugin agent's own run: its instructions, the conversation's model
        assert child.messages[0].content.startswith("You review notes.") and child.model == "m"
        assert child.messages[-1].content == "review: one two"
        assert not [t for t in child.tools if t.name in ("Read", "Grep")]

        manage.disable("notes-plugin", places)
        await _change(runtime, places)
        assert SERVER not in host.states() and runtime.agents.get(AGENT) is None  # type: ignore[union-attr]
        await runtime.run(runtime.new_conversation(), "again")
        assert not [t for t in provider.requests[-1].tools if AGENT in t.name]

        manage.enable("notes-plugin", places)
        await _change(runtime, places)
        assert SERVER in host.states()
        manage.remove("notes-plugin", places)
        await _change(runtime, places)
        assert SERVER not in host.states() and AGENT not in runtime.agents.names()  # type: ignore[union-attr]
        fresh = AgentCatalog.load(load_settings(places.settings_file), tmp_path / "config", data_dir=places.data_dir)
        assert AGENT not in fresh.names()
    finally:
        await runtime.aclose()


def test_an_enabled_plugins_agent_is_in_the_catalog_at_start_and_a_users_agent_of_its_name_wins(
    tmp_path: Path,
) -> None:
    places = _places(tmp_path)
    manage.install(EXAMPLE, places)
    config = tmp_path / "config"
    assert AGENT not in AgentCatalog.load(load_settings(places.settings_file), config, data_dir=places.data_dir).names()
    manage.enable("notes-plugin", places)
    settings = load_settings(places.settings_file)
    catalog = AgentCatalog.load(settings, config, data_dir=places.data_dir)
    assert AGENT in catalog.names() and catalog.problems == []
    assert AGENT not in AgentCatalog.load(settings, config).names()  # only with the data folder
    mine = settings.model_copy(update={"agents": [AgentSettings(name=AGENT, instructions="Mine.")]})
    shadowed = AgentCatalog.load(mine, config, data_dir=places.data_dir)
    assert shadowed.get(AGENT) is not None and shadowed.get(AGENT).instructions == "Mine."  # type: ignore[union-attr]
    assert any("one of your agents has that name" in p for p in shadowed.problems)
