"""Skills: frontmatter rules, first name wins, the external roots only when asked, the capped deterministic
index, and ``load_skill`` (which reads and never runs)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from mcp.server.mcpserver.exceptions import ToolError

from desktop_app.runtime.skills import discover, index_block, skill_roots
from desktop_app.runtime.skills.discovery import Requires
from desktop_app.runtime.skills.index import BLOCK_LIMIT, GUIDANCE
from desktop_app.runtime.skills.server import load_text

EXAMPLE = Path(__file__).resolve().parents[4] / "docs" / "examples" / "skills" / "release-notes"


def skill(root: Path, folder: str, frontmatter: str, body: str = "Do the thing.\n") -> Path:
    path = root / folder
    path.mkdir(parents=True)
    (path / "SKILL.md").write_text(f"---\n{frontmatter}\n---\n{body}", encoding="utf-8")
    return path


def test_frontmatter_is_validated_with_the_file_and_field(tmp_path: Path) -> None:
    skill(tmp_path, "good", "name: good\ndescription: Fine.")
    skill(tmp_path, "nameless", "description: No name.")
    skill(tmp_path, "other", "name: different\ndescription: Wrong folder.")
    skill(tmp_path, "bad_name", "name: bad_name\ndescription: Underscore.")
    skill(tmp_path, "long", "name: long\ndescription: " + "x" * 1025)
    skill(tmp_path, "broken", "name: broken\ndescription: [unclosed")
    skill(tmp_path, "nodesc", "name: nodesc")
    skill(tmp_path, "garbled", "name: garbled\n[unclosed: x")
    found = discover([(tmp_path, "test", False)])
    # the spec's name and length rules, and YAML Claude Code reads, only warn (issue 22): official plugins break them
    assert sorted(found.skills) == ["bad_name", "broken", "different", "good", "long"]
    assert found.skills["good"].warnings == ()
    warnings = "\n".join(found.warnings)
    assert "name: 'different' differs from the folder name 'other'" in warnings
    assert "name: 'bad_name' is not letters and digits" in warnings
    assert "description: 1025 characters, longer than the spec's 1024" in warnings
    assert "broken/SKILL.md: the frontmatter is not strict YAML" in warnings
    problems = "\n".join(found.problems)
    assert f"{tmp_path / 'nameless' / 'SKILL.md'}: name: required" in problems
    assert "frontmatter is not valid YAML" in problems  # garbled: neither YAML nor key: value lines
    assert f"{tmp_path / 'nodesc' / 'SKILL.md'}: description: required" in problems


def test_first_occurrence_wins_and_external_roots_are_off_by_default(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    mine, added = tmp_path / "mine", tmp_path / "added"
    skill(mine, "deploy", "name: deploy\ndescription: Mine.")
    skill(added, "Deploy", "name: Deploy\ndescription: Theirs.")
    skill(added, "review", "name: review\ndescription: Added.")
    skill(tmp_path / "home" / ".claude" / "skills", "claude-only", "name: claude-only\ndescription: From Claude.")
    skill(tmp_path / "home" / ".agents" / "skills", "agents-only", "name: agents-only\ndescription: Agents.")
    off = discover(skill_roots(mine, [str(added)], read_external=False))
    assert sorted(off.skills) == ["deploy", "review"]
    assert off.skills["deploy"].description == "Mine." and "already defined earlier" in off.shadowed[0]
    on = discover(skill_roots(mine, [str(added)], read_external=True))
    assert sorted(on.skills) == ["agents-only", "claude-only", "deploy", "review"]
    assert on.skills["claude-only"].read_only and on.skills["claude-only"].source == "~/.claude/skills"


def test_index_block_is_capped_and_deterministic(tmp_path: Path) -> None:
    for i in range(40):
        skill(tmp_path, f"skill-{i:02d}", f"name: skill-{i:02d}\ndescription: {'word ' * 60}\nwhen: always")
    found = discover([(tmp_path, "t", False)])
    block = index_block(found.skills.values())
    assert block == index_block(reversed(list(found.skills.values())))  # same text whatever the order
    listing, guidance = block.split("\n\n")
    assert guidance == GUIDANCE and len(listing) <= BLOCK_LIMIT
    lines = listing.splitlines()
    assert lines[0] == "Available skills:"
    assert lines[1].startswith("- skill-00: word") and lines[1].endswith("...") and len(lines[1]) == 180
    assert "- skill-39" not in listing and lines[-1].endswith("more skills omitted from this compact index")
    assert any(line in ("- skill-10", "- skill-11", "- skill-12") for line in lines)  # name-only past the cap
    assert index_block([]) == ""


def test_the_example_skill_loads_without_running_anything(tmp_path: Path) -> None:
    shutil.copytree(EXAMPLE, tmp_path / "release-notes")
    marker = tmp_path / "ran"
    (tmp_path / "release-notes" / "run.sh").write_text(f"#!/bin/sh\ntouch {marker}\n")
    (tmp_path / "release-notes" / "run.sh").chmod(0o755)
    found = discover([(tmp_path, "t", False)])
    example = found.skills["release-notes"]
    assert example.requires == Requires(commands=("git",))
    assert example.requires.missing([], which=lambda c: None) == ["command git"]
    text = load_text(found, "release-notes")
    assert "# Writing release notes" in text and "---" not in text.split("\n\n", 1)[1][:5]
    assert "- run.sh" in text and "- template.md" in text
    assert not marker.exists()
    with pytest.raises(ToolError, match=r"no skill named 'nope'\. Skills: release-notes"):
        load_text(found, "nope")


def test_ask_gets_the_index_and_load_skill_reads_the_example(tmp_path: Path, llm_server: object) -> None:
    import io

    from desktop_app import cli
    from tests.support.llm_server import ScriptedLLMServer, text_reply, tool_call_reply

    assert isinstance(llm_server, ScriptedLLMServer)
    home = tmp_path / "sb"
    shutil.copytree(EXAMPLE, home / "config" / "skills" / "release-notes")
    llm_server.enqueue(
        tool_call_reply([("c1", "load_skill", {"name": "release-notes"})]), text_reply("Here are the notes.")
    )
    out, err = io.StringIO(), io.StringIO()
    code = cli.main(
        ["ask", "--home", str(home), "--base-url", llm_server.url, "--approve", "never", "--events", "jsonl", "notes"],
        out=out,
        err=err,
    )
    assert code == 0, err.getvalue()
    first = llm_server.requests[0].json
    system = first["messages"][0]
    assert system["role"] == "system" and "Available skills:\n- release-notes: Write release notes" in system["content"]
    assert "load_skill" in [t["function"]["name"] for t in first["tools"]]
    results = [json.loads(line) for line in out.getvalue().splitlines() if '"tool_result"' in line]
    assert "# Writing release notes" in json.dumps(results[0])
    assert llm_server.requests[1].json["messages"][0] == system  # the same prompt, so the cache holds
