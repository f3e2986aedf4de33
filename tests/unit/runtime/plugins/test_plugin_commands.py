"""Plugin commands keep their dynamic parts (issue 22 item 6), and Whale's plugin parts are read (item 7).

Fixtures follow the sources' published references field by field. Claude Code's slash-commands reference:
front matter ``allowed-tools`` (``Bash(git add:*), Bash(git status:*)``), ``argument-hint``, ``description``;
``$ARGUMENTS``, positional ``$1`` ``$2`` ``$3`` ("Review PR #$1 with priority $2 and assign to $3"); ``!`…` ``
context lines, run before the command is sent with their output in their place; its plugins reference:
``${CLAUDE_PLUGIN_ROOT}``. Whale's plugins guide (docs/plugins.en.md): ``commands/explain.md`` with
``argument_hint`` and ``{{args}}``; ``commands/review/code.md`` → ``review:code``; ``commands/commands.toml``
``[[commands]]`` ``name``/``description``/``command``/``timeout_ms``; ``hooks.toml`` ``[[hooks.SessionStart]]``
with ``description``/``command``/``timeout``; ``rules/convention.md``; ``skills/greet/SKILL.md`` with no
frontmatter ("# Greet …").
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from desktop_app.runtime.compat import TRANSLATED, UNAVAILABLE, WORKS
from desktop_app.runtime.plugins.context_commands import Verdict, allowed_tools, covered, expand
from desktop_app.runtime.plugins.model import read_plugin
from desktop_app.runtime.plugins.prompts import read_prompts
from desktop_app.runtime.plugins.report import plugin_report
from desktop_app.runtime.skills.discovery import parse_skill
from tests.support import claude_plugins as cp

COMMIT = """---
allowed-tools: Bash(git add:*), Bash(git status:*), Bash(echo:*)
argument-hint: [message]
description: Create a git commit
---

## Context

- Greeting: !`echo hello-from-context`
- Current git status: !`git status`
- Not allowed: !`rm -rf build`

## Your task

Commit with the message: $ARGUMENTS
Review PR #$1 with priority $2 and assign to $3 (tools in ${CLAUDE_PLUGIN_ROOT}/bin).
"""


def claude_plugin(root: Path) -> Path:
    folder = root / "gitflow"
    cp.manifest(folder, "gitflow", version="1.0.0", outputStyles="./styles/")
    cp.write(folder / "commands" / "commit.md", COMMIT)
    return folder


def whale_plugin(root: Path) -> Path:
    folder = root / "my-plugin"
    cp.write(folder / "whale-plugin.toml", 'id = "my-plugin"\nname = "My Plugin"\nversion = "0.1.0"\n')
    cp.write(
        folder / "commands" / "explain.md",
        '---\ndescription: Explain a concept\nargument_hint: "<concept>"\nread_only: true\n---\n'
        "Explain {{args}} from my plugin's perspective.\n",
    )
    cp.write(folder / "commands" / "review" / "code.md", "---\ndescription: Review code\n---\nReview {{args}}.\n")
    cp.write(
        folder / "commands" / "commands.toml",
        '[[commands]]\nname = "ping"\ndescription = "Test if the plugin is online"\ncommand = "echo pong"\n'
        "timeout_ms = 10000\n",
    )
    cp.write(
        folder / "hooks.toml",
        '[[hooks.SessionStart]]\ndescription = "Write a startup marker"\n'
        "command = \"echo 'plugin started' >> plugin.log\"\ntimeout = 5\n",
    )
    cp.write(folder / "rules" / "convention.md", "This session uses the my-plugin plugin.\n")
    cp.write(folder / "mcp.json", '{"mcpServers": {"search": {"command": "node", "args": ["server.js"]}}}')
    cp.write(
        folder / "skills" / "greet" / "SKILL.md",
        '# Greet\n\nWhen the user says "hello", greet them enthusiastically and introduce yourself.\n',
    )
    return folder


def test_a_claude_code_command_fills_every_placeholder_and_keeps_context_lines(tmp_path: Path) -> None:
    plugin = read_plugin(claude_plugin(tmp_path))
    [prompt] = read_prompts(plugin)
    assert prompt.name == "gitflow:commit" and prompt.argument_hint == "[message]"
    assert prompt.allowed_tools == ("Bash(git add:*)", "Bash(git status:*)", "Bash(echo:*)")
    text = prompt.render("123 high alice")
    assert "Commit with the message: 123 high alice" in text
    assert "Review PR #123 with priority high and assign to alice" in text
    assert f"tools in {plugin.folder}/bin" in text and "${CLAUDE_PLUGIN_ROOT}" not in text
    assert "!`echo hello-from-context`" in text  # run by the client, once approved
    assert "[`rm -rf build` was not run: allowed-tools (" in text  # refused when rendered, in every client


def test_positional_arguments_past_nine(tmp_path: Path) -> None:
    folder = tmp_path / "many"
    cp.manifest(folder, "many")
    cp.write(folder / "commands" / "ten.md", "First $1, tenth $10.\n")
    [prompt] = read_prompts(read_plugin(folder))
    assert prompt.render("a b c d e f g h i j") == "First a, tenth j."


def test_allowed_tools_as_claude_code_reads_them() -> None:
    assert allowed_tools("Bash(git add:*), Bash(git status:*), Read") == [
        "Bash(git add:*)",
        "Bash(git status:*)",
        "Read",
    ]
    assert allowed_tools(["Bash(git diff:*)"]) == ["Bash(git diff:*)"]
    tools = ["Bash(git status:*)", "Bash(npm run test)"]
    assert covered("git status", tools) and covered("git status --short", tools)
    assert not covered("git statusx", tools) and not covered("rm -rf build", tools)
    assert covered("npm run test", tools) and not covered("npm run test --watch", tools)
    assert covered("anything", ["Bash"]) and covered("anything", []) and not covered("ls", ["Read"])


def test_context_lines_run_only_once_approved_and_the_refused_never_ask(tmp_path: Path) -> None:
    [prompt] = read_prompts(read_plugin(claude_plugin(tmp_path)))
    asked: list[str] = []

    async def approve_echo_only(command: str) -> Verdict:
        asked.append(command)
        return Verdict(command.startswith("echo"), "denied in the test")

    text, report = asyncio.run(
        expand(prompt.render("msg"), tools=prompt.allowed_tools, decide=approve_echo_only, cwd=tmp_path)
    )
    assert asked == ["echo hello-from-context", "git status"]  # the exact commands, before anything runs
    assert "- Greeting: hello-from-context\n" in text
    assert "[`git status` was not run: denied in the test]" in text
    assert "[`rm -rf build` was not run: allowed-tools (" in text  # not covered: refused without asking
    assert report == ["ran `echo hello-from-context`", "denied `git status`: denied in the test"]

    text, report = asyncio.run(  # expand refuses an uncovered command by itself too
        expand("!`rm -rf build`", tools=prompt.allowed_tools, decide=approve_echo_only, cwd=tmp_path)
    )
    assert asked == ["echo hello-from-context", "git status"]
    assert report == [
        "refused `rm -rf build`: allowed-tools (Bash(git add:*), Bash(git status:*), Bash(echo:*)) does not cover it"
    ]


def test_a_denied_context_command_does_not_run(tmp_path: Path) -> None:
    marker = tmp_path / "ran"

    async def deny(command: str) -> Verdict:
        return Verdict(False, "denied by policy (--approve never)")

    text, _ = asyncio.run(expand(f"!`touch {marker}`", tools=[], decide=deny, cwd=tmp_path))
    assert not marker.exists() and "was not run: denied by policy (--approve never)" in text


def test_context_commands_get_the_plugin_root(tmp_path: Path) -> None:
    async def approve(command: str) -> Verdict:
        return Verdict(True)

    text, _ = asyncio.run(
        expand("!`echo $CLAUDE_PLUGIN_ROOT $WHALE_PLUGIN_ROOT`", tools=[], decide=approve, cwd=tmp_path, root=tmp_path)
    )
    assert text == f"{tmp_path} {tmp_path}"


def test_whale_plugin_parts_are_read_as_whale_reads_them(tmp_path: Path) -> None:
    plugin = read_plugin(whale_plugin(tmp_path))
    prompts = {p.command: p for p in read_prompts(plugin)}
    assert set(prompts) == {"explain", "review:code", "ping"}
    assert sorted(plugin.prompts) == ["explain", "ping", "review:code"]  # as show and the plugin page list them
    assert prompts["explain"].argument_hint == "<concept>"
    assert prompts["explain"].render("plugins") == "Explain plugins from my plugin's perspective."
    assert prompts["review:code"].render("main.py") == "Review main.py."
    assert prompts["ping"].description == "Test if the plugin is online"
    assert "!`echo pong`" in prompts["ping"].render()  # a shell command: run through the approval
    [hook] = plugin.hooks["SessionStart"]
    assert hook["command"] == "echo 'plugin started' >> plugin.log" and hook["timeout"] == 5
    skill = parse_skill(plugin.folder / "skills" / "greet", plugin.id)
    assert (skill.name, skill.description) == ("greet", "Greet")
    assert "no frontmatter (Whale's form)" in skill.warnings[0]


def test_an_empty_skill_file_is_still_refused(tmp_path: Path) -> None:
    cp.write(tmp_path / "empty" / "SKILL.md", "\n\n")
    with pytest.raises(ValueError, match="empty"):
        parse_skill(tmp_path / "empty", "test")


def test_the_report_has_a_line_for_every_part(tmp_path: Path) -> None:
    whale = read_plugin(whale_plugin(tmp_path))
    lines = {(line.part, line.status) for line in plugin_report(whale)}
    assert ("rules/convention.md", TRANSLATED) in lines
    assert ("command my-plugin:ping", TRANSLATED) in lines
    assert ("command my-plugin:explain", WORKS) in lines and ("command my-plugin:review:code", WORKS) in lines
    assert ("skill greet", TRANSLATED) in lines and ("hooks SessionStart", WORKS) in lines
    assert {("id", WORKS), ("name", WORKS), ("version", WORKS)} <= lines
    [server] = [line for line in plugin_report(whale) if line.part == "MCP server search"]
    assert (
        server.status == TRANSLATED
        and "WHALE_PLUGIN_DATA_DIR and WHALE_PLUGIN_PROJECT_DIR are not set" in server.detail
    )

    claude = read_plugin(claude_plugin(tmp_path))
    by_part = {line.part: line for line in plugin_report(claude)}
    assert by_part["outputStyles"].status == UNAVAILABLE
    assert by_part["command gitflow:commit"].status == TRANSLATED
    assert "`echo hello-from-context`" in by_part["command gitflow:commit"].detail
    assert by_part["command gitflow:commit allowed-tools"].status == TRANSLATED


def test_the_guide_table_comes_from_the_plugin_report_table() -> None:
    from desktop_app.runtime.plugins.report import PLUGIN_SUPPORT, support_markdown

    readme = (Path(__file__).resolve().parents[4] / "docs" / "plugins.md").read_text(encoding="utf-8")
    assert support_markdown() in readme
    assert set(PLUGIN_SUPPORT) == {"Claude Code plugin", "Whale plugin"}


def test_claude_code_command_subfolders_and_fields_are_read_or_reported(tmp_path: Path) -> None:
    folder = tmp_path / "front"
    cp.manifest(folder, "front")
    cp.write(
        folder / "commands" / "frontend" / "component.md",
        "---\ndescription: Make a component\nmodel: claude-3-5-haiku-20241022\ndisable-model-invocation: true\n---\n"
        "Compare @src/old-version.js with @src/new-version.js and write $ARGUMENTS (mail me at a@b.c).\n",
    )
    plugin = read_plugin(folder)
    [prompt] = read_prompts(plugin)
    assert prompt.name == "front:component"  # Claude Code: a subfolder organises, the name is the file's
    by_part = {line.part: line for line in plugin_report(plugin)}
    assert by_part["command front:component model"].status == UNAVAILABLE
    assert by_part["command front:component disable-model-invocation"].status == WORKS
    refs = by_part["command front:component @src/new-version.js, @src/old-version.js"]
    assert refs.status == UNAVAILABLE and "sent as written" in refs.detail
    assert plugin.problems == []  # the report reads a copy


async def _approve(_command: str) -> Verdict:
    return Verdict(True)


def test_a_context_command_output_is_read_to_its_end_and_capped(tmp_path: Path) -> None:
    from desktop_app.runtime.plugins.context_commands import MAX_OUTPUT

    text, _ = asyncio.run(
        expand("!`for i in 1 2 3; do echo line$i; sleep 0.05; done`", tools=[], decide=_approve, cwd=tmp_path)
    )
    assert text == "line1\nline2\nline3"  # written in three pieces: all of them, not the first read's
    text, _ = asyncio.run(expand("!`yes | head -c 300000`", tools=[], decide=_approve, cwd=tmp_path))
    assert text.endswith(f"[`yes | head -c 300000`: output cut at {MAX_OUTPUT // 1024} KB]")
    assert len(text) < MAX_OUTPUT + 100


def test_a_whale_command_stops_after_its_timeout_ms(tmp_path: Path) -> None:
    import time

    folder = tmp_path / "slow"
    cp.write(folder / "whale-plugin.toml", 'id = "slow"\n')
    cp.write(
        folder / "commands" / "commands.toml",
        '[[commands]]\nname = "wait"\ncommand = "sleep 5; echo late"\ntimeout_ms = 300\n',
    )
    [prompt] = read_prompts(read_plugin(folder))
    assert prompt.timeout_s == 0.3
    started = time.monotonic()
    text, _ = asyncio.run(expand(prompt.render(), tools=[], decide=_approve, cwd=tmp_path, limit_s=prompt.timeout_s))
    assert "[`sleep 5; echo late` was stopped after 0.3 s]" in text and "late\n" not in text
    assert time.monotonic() - started < 2  # the shell and its sleep are stopped, not waited for


def test_a_whale_agent_from_the_guide_gets_its_plugin_id_and_a_capabilities_note(tmp_path: Path) -> None:
    from desktop_app.runtime.plugins.agents import read_agents

    folder = whale_plugin(tmp_path)
    cp.write(
        folder / "agents" / "reviewer.md",
        "---\ndescription: Review code using plugin conventions\ncapabilities: workspace.read\n---\n"
        "You are an expert on {{plugin_id}}. Review the code against this plugin's conventions.\n",
    )
    plugin = read_plugin(folder)
    [agent] = read_agents(plugin)
    assert agent.definition is not None
    assert agent.definition.instructions.startswith("You are an expert on my-plugin. Review")
    note = "capabilities workspace.read: not enforced here; its tool calls ask for approval like any"
    assert note in agent.notes
    assert any(line.part == "agent my-plugin.reviewer" and note in line.detail for line in plugin_report(plugin))


def test_manifest_command_paths_supplement_the_commands_folder(tmp_path: Path) -> None:
    """Claude Code's plugin reference: ``commands`` (string or array) are additional command files or folders."""
    folder = tmp_path / "paths"
    cp.manifest(folder, "paths", commands=["./extra/deploy.md", "./more", "./gone"])
    cp.write(folder / "commands" / "build.md", "Build $ARGUMENTS.\n")
    cp.write(folder / "extra" / "deploy.md", "---\ndescription: Deploy\n---\nDeploy $ARGUMENTS.\n")
    cp.write(folder / "more" / "ops" / "rollback.md", "Roll back $1.\n")
    plugin = read_plugin(folder)
    assert sorted(plugin.prompts) == ["build", "deploy", "rollback"]
    by_part = {line.part: line for line in plugin_report(plugin)}
    assert by_part["commands"].status == WORKS
    assert any("commands: './gone' is not a file or folder in the plugin" in line.detail for line in by_part.values())
