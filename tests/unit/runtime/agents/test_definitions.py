"""Agent definitions: ``agents/*.md`` frontmatter + body, the settings winning, broken files named, the
default agent, allowlist patterns and who may call whom."""

from __future__ import annotations

from pathlib import Path

import pytest

from desktop_app.runtime.agents import AgentCatalog, AgentFileError, load_agent_files, parse_agent_file
from desktop_app.runtime.agents.definitions import tool_allowed
from desktop_app.runtime.settings import AgentSettings, Settings


def test_a_file_gives_every_field_and_its_body_is_the_instructions(tmp_path: Path) -> None:
    path = tmp_path / "researcher.md"
    path.write_text(
        "---\ndescription: Finds things\nservers: [switchboard.history, time]\ntools: ['time/*']\n"
        "agents: [writer]\nmodel: small\nprovider: {base_url: 'http://127.0.0.1:1/v1'}\napproval: never\n---\n"
        "Research carefully.\n",
        encoding="utf-8",
    )
    agent = parse_agent_file(path)
    assert agent.name == "researcher" and agent.description == "Finds things"
    assert agent.instructions == "Research carefully."
    assert (agent.servers, agent.tools, agent.agents) == (["switchboard.history", "time"], ["time/*"], ["writer"])
    assert agent.model == "small" and agent.provider is not None and agent.approval == "never"


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("---\nname: [unclosed\n---\nbody", "not valid YAML"),
        ("---\ncolour: blue\n---\nbody", "colour: Extra inputs are not permitted"),
        ("---\nname: ok\nbody without end", "no closing '---'"),
        ("---\n- a list\n---\n", "must be a mapping"),
        ("---\nname: 'bad name!'\n---\n", "name: String should match pattern"),
    ],
)
def test_a_broken_file_is_named_and_skipped(tmp_path: Path, text: str, problem: str) -> None:
    (tmp_path / "bad.md").write_text(text, encoding="utf-8")
    (tmp_path / "good.md").write_text("Be good.", encoding="utf-8")
    with pytest.raises(AgentFileError, match=r"bad\.md"):
        parse_agent_file(tmp_path / "bad.md")
    agents, problems = load_agent_files(tmp_path)
    assert [a.name for a in agents] == ["good"] and agents[0].instructions == "Be good."
    assert len(problems) == 1 and str(tmp_path / "bad.md") in problems[0] and problem in problems[0]


def test_settings_win_over_files_and_the_default_agent_exists(tmp_path: Path) -> None:
    (tmp_path / "agents").mkdir()
    (tmp_path / "agents" / "helper.md").write_text("From the file.", encoding="utf-8")
    settings = Settings(system_prompt="Be kind.", agents=[AgentSettings(name="helper", instructions="From settings.")])
    catalog = AgentCatalog.load(settings, tmp_path)
    assert catalog.names() == ["assistant", "helper"]
    assert catalog.agents["helper"].instructions == "From settings."
    assert catalog.default == "assistant" and catalog.unrestricted("assistant")
    assert catalog.agents["assistant"].instructions == "Be kind."
    assert catalog.may_call("assistant", "helper") and not catalog.may_call("helper", "assistant")
    assert not catalog.may_call("assistant", "assistant")  # never itself
    defined = AgentCatalog.build(Settings(default_agent="helper", agents=[AgentSettings(name="helper")]))
    assert defined.names() == ["helper"] and not defined.unrestricted("helper")


def test_allowlist_patterns() -> None:
    agent = AgentSettings(name="r", servers=["switchboard.history", "time"], tools=["time/get_*", "read_conversation"])
    assert tool_allowed(agent, "time", "get_current_time", "mcp__time__get_current_time")
    assert not tool_allowed(agent, "time", "convert_time", "mcp__time__convert_time")
    assert tool_allowed(agent, "switchboard.history", "read_conversation", "read_conversation")
    assert not tool_allowed(agent, "switchboard.history", "search_conversations", "search_conversations")
    assert not tool_allowed(agent, "fs", "read_conversation", "mcp__fs__read_conversation")  # not its server
    everything = AgentSettings(name="e", servers=["time"])
    assert tool_allowed(everything, "time", "convert_time", "x") and not tool_allowed(everything, "fs", "read", "x")
