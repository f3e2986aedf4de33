"""Claude Code plugin parts as they ship, read as Claude Code reads them (issue 22 items 4, 12, 13).

Fixtures follow Claude Code's published references (tests/support/claude_plugins.py): a subagent's ``tools``
may hold ``Agent(worker, researcher)`` (the subagents it may start), frontmatter values are often unquoted and
hold ``: ``, and official plugins ship skills whose description is longer than the skills spec's 1024
characters or whose name differs from its folder.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from desktop_app.runtime.agents.definitions import load_agent_files
from desktop_app.runtime.plugins.agents import read_agents, split_tools
from desktop_app.runtime.plugins.model import read_plugin
from desktop_app.runtime.plugins.prompts import read_prompts
from desktop_app.runtime.skills.discovery import discover
from tests.support import claude_plugins as cp

LOOSE_DESCRIPTION = "Use this agent when: the user asks for a review, e.g. after a change: it checks the diff"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Agent(worker, researcher), Read, Bash", ["Agent(worker, researcher)", "Read", "Bash"]),
        ("Bash(git log *, git diff *), Grep", ["Bash(git log *, git diff *)", "Grep"]),
        ("[Read, Grep]", ["Read", "Grep"]),
        ("Read", ["Read"]),
    ],
)
def test_tools_are_split_only_outside_parentheses(text: str, expected: list[str]) -> None:
    assert split_tools(text) == expected


def test_agent_rules_become_the_agents_it_may_call_and_loose_yaml_loads(tmp_path: Path) -> None:
    folder = tmp_path / "team"
    cp.manifest(folder, "team", version="1.0.0")
    cp.agent(
        folder,
        "lead",
        f"name: lead\ndescription: {LOOSE_DESCRIPTION}\ntools: Agent(worker, researcher), Read, mcp__docs__search\n"
        "model: inherit",
    )
    cp.agent(folder, "worker", "name: worker\ndescription: Does the work")
    found = {a.source: a for a in read_agents(read_plugin(folder))}
    lead = found["lead"]
    assert lead.problem == "" and lead.definition is not None
    assert lead.description == LOOSE_DESCRIPTION  # the whole value, ": " and all
    assert lead.definition.agents == ["team.worker", "researcher"]  # its own by their served names
    assert lead.definition.tools == ["docs/search"]  # not "Agent(worker" and " researcher)"
    assert lead.unavailable == ["Read"]
    notes = "\n".join(lead.notes)
    assert "not strict YAML (mapping values are not allowed here" in notes
    assert "Agent(worker, researcher): translated: it may call the agents team.worker, researcher" in notes


def test_a_frontmatter_that_is_no_key_value_list_either_is_still_refused(tmp_path: Path) -> None:
    folder = tmp_path / "odd"
    cp.manifest(folder, "odd")
    cp.write(folder / "agents" / "bad.md", "---\nname: bad\n[unclosed: flow\n---\nBody.\n")
    plugin = read_plugin(folder)
    assert read_agents(plugin) == []
    assert any("bad.md: cannot be read as an agent" in p for p in plugin.problems)


def test_a_users_agent_file_with_loose_yaml_loads_with_a_warning(tmp_path: Path) -> None:
    cp.write(tmp_path / "reviewer.md", f"---\nname: reviewer\ndescription: {LOOSE_DESCRIPTION}\n---\nReview.\n")
    agents, problems = load_agent_files(tmp_path)
    assert [(a.name, a.description, a.instructions) for a in agents] == [("reviewer", LOOSE_DESCRIPTION, "Review.")]
    [warning] = problems
    assert "loaded with a warning" in warning and "reviewer.md: the frontmatter is not strict YAML" in warning
    assert "at line 3" in warning  # the file's own line of the description


def test_a_command_with_loose_yaml_is_served_with_a_note(tmp_path: Path) -> None:
    folder = tmp_path / "cmds"
    cp.manifest(folder, "cmds")
    cp.write(folder / "commands" / "check.md", "---\ndescription: Check it: all of it\n---\nCheck $ARGUMENTS\n")
    plugin = read_plugin(folder)
    [prompt] = read_prompts(plugin)
    assert prompt.description == "Check it: all of it"
    assert any("not strict YAML" in p and "the prompt is served" in p for p in plugin.problems)


def test_skills_that_break_the_specs_name_or_length_rules_load_with_warnings(tmp_path: Path) -> None:
    folder = tmp_path / "kit"
    long_description = "Helps with building things. " * 38  # 1,064 characters, as long as official ones
    assert len(long_description.strip()) > 1024
    cp.skill(folder, "long-one", f"name: long-one\ndescription: {long_description.strip()}")
    cp.skill(folder, "frontend-design", "name: Frontend Design\ndescription: Builds distinctive interfaces")
    cp.skill(folder, "nameless", "description: No name at all")
    found = discover([(folder / "skills", "plugin kit", True)])
    assert set(found.skills) == {"long-one", "Frontend Design"}
    long_one, design = found.skills["long-one"], found.skills["Frontend Design"]
    assert [w.split(": ", 1)[1] for w in long_one.warnings] == [
        f"description: {len(long_description.strip())} characters, longer than the spec's 1024; loaded anyway "
        "(the index shows its start)"
    ]
    assert any("is not letters and digits in words joined by '-'" in w for w in design.warnings)
    assert any("differs from the folder name 'frontend-design'" in w for w in design.warnings)
    assert found.warnings == [*design.warnings, *long_one.warnings]
    assert any("nameless/SKILL.md: name: required" in p for p in found.problems)  # still refused


def test_a_whale_plugin_hook_for_an_unknown_event_is_reported_and_left_out(tmp_path: Path) -> None:
    cp.write(tmp_path / "whale-plugin.toml", 'id = "wh"\n')
    cp.write(
        tmp_path / "hooks" / "hooks.json",
        '{"hooks": {"BeforeEverything": [{"command": "true"}], "PreToolUse": [{"command": "true"}],'
        ' "tools/call": ["srv/tool"]}}',
    )
    plugin = read_plugin(tmp_path)
    assert set(plugin.hooks) == {"PreToolUse", "tools/call"}
    assert any("hooks.BeforeEverything: not an event Switchboard has" in p for p in plugin.problems)
