"""Claude Code plugins as they ship, through ``switchboard plugins`` / ``tools`` / ``ask`` (the CLI's real
``main``) against the loopback LLM (issue 22 items 4 and 5).

Fixtures are written from Claude Code's plugin and hooks references (tests/support/claude_plugins.py): a
``hooks.json`` with an event Switchboard does not have (``UserPromptExpansion``), a ``prompt`` hook, a field
it does not read (``statusMessage``) and a matcher that is no regular expression; and a plugin without
``.claude-plugin/plugin.json`` (the manifest is optional: the folder name is the plugin's name).
"""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from desktop_app import cli
from tests.support import claude_plugins as cp
from tests.support.llm_server import ScriptedLLMServer, text_reply

pytestmark = pytest.mark.integration


def sb(*args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = cli.main(list(args), out=out, err=err)
    return code, out.getvalue(), err.getvalue()


def hooky(root: Path) -> Path:
    folder = root / "hooky"
    cp.manifest(folder, "hooky", version="0.2.0", description="Hooks from a newer Claude Code")
    cp.hooks(
        folder,
        {
            "UserPromptExpansion": [{"hooks": [{"type": "command", "command": "echo expanded"}]}],
            "PreToolUse": [
                {
                    "matcher": "mcp__.*",
                    "hooks": [{"type": "command", "command": "echo checked", "timeout": 5, "statusMessage": "Check"}],
                },
                {"matcher": "Edit(", "hooks": [{"type": "command", "command": "echo never"}]},
            ],
            "Stop": [{"hooks": [{"type": "prompt", "prompt": "Is the work finished? $ARGUMENTS"}]}],
        },
    )
    return folder


def guard(root: Path) -> Path:
    folder = root / "guard"
    cp.manifest(folder, "guard", version="1.0.0")
    cp.hooks(folder, {"PostToolUse": [{"matcher": "mcp__.*", "hooks": [{"type": "command", "command": "true"}]}]})
    return folder


def test_an_unknown_hook_event_is_reported_and_skipped_and_stops_nothing(
    tmp_path: Path, llm_server: ScriptedLLMServer
) -> None:
    home = str(tmp_path / "sb")
    for plugin in (hooky(tmp_path / "src"), guard(tmp_path / "src")):
        assert sb("plugins", "install", str(plugin), "--home", home)[0] == 0
    code, out, err = sb("plugins", "enable", "hooky", "--home", home)
    assert code == 0, err
    assert "hooks.UserPromptExpansion: not an event Switchboard has" in out
    assert sb("plugins", "enable", "guard", "--home", home)[0] == 0

    code, out, err = sb("tools", "--home", home)
    assert code == 0, err
    llm_server.enqueue(text_reply("Hello."))
    code, out, err = sb("ask", "--home", home, "--base-url", llm_server.url, "--approve", "always", "hi")
    assert code == 0, err
    assert "Hello." in out

    code, out, err = sb("plugins", "show", "hooky", "--json", "--home", home)
    assert code == 0, err
    shown = json.loads(out)
    assert shown["enabled"] is True
    problems = "\n".join(shown["problems"])
    assert "hooks.UserPromptExpansion: not an event Switchboard has" in problems and "skipped" in problems
    assert "hooks.Stop[0].hooks[0]: a 'prompt' hook does not run here" in problems
    assert "hooks.PreToolUse[0].hooks[0]: statusMessage: not used here; ignored" in problems
    assert "hooks.PreToolUse[1]: the matcher 'Edit(' is not a regular expression" in problems
    [hook] = shown["hooks"]  # only the usable one, untrusted until trusted
    assert " PreToolUse match=mcp__.*  untrusted  echo checked" in hook

    code, out, err = sb("plugins", "show", "hooky", "--home", home)
    assert code == 0, err
    assert "Problem: " in out and "UserPromptExpansion" in out

    code, out, err = sb("hooks", "list", "--home", home)
    assert code == 0, err
    assert "UserPromptExpansion" not in out + err  # never passed on to the runner
    assert "echo checked" in out and "true" in out  # the other plugin's hook is there too


def test_show_refuses_an_unknown_plugin(tmp_path: Path) -> None:
    code, _out, err = sb("plugins", "show", "nope", "--home", str(tmp_path / "sb"))
    assert code == 2 and "no plugin named 'nope'" in err


def test_a_plugin_without_a_manifest_is_named_after_its_folder(tmp_path: Path, llm_server: ScriptedLLMServer) -> None:
    folder = tmp_path / "src" / "scribe"  # no .claude-plugin/plugin.json: the standard layout only
    cp.command(folder, "outline", "Outline a document")
    cp.agent(folder, "drafter", "name: drafter\ndescription: Drafts a first version\nmodel: inherit")
    cp.skill(folder, "tone", "name: tone\ndescription: Keeps the tone of a text consistent")
    cp.hooks(folder, {"PostToolUse": [{"matcher": "mcp__.*", "hooks": [{"type": "command", "command": "true"}]}]})
    home = str(tmp_path / "sb")

    code, out, err = sb("plugins", "install", str(folder), "--home", home)
    assert code == 0, err
    assert "Installed scribe, disabled" in out
    assert sb("plugins", "enable", "scribe", "--home", home)[0] == 0
    code, out, err = sb("plugins", "show", "scribe", "--json", "--home", home)
    assert code == 0, err
    shown = json.loads(out)
    assert (shown["id"], shown["format"], shown["version"]) == ("scribe", "claude", "")
    assert shown["prompts"] == ["outline"] and shown["skills"] == ["tone"]
    assert [a["name"] for a in shown["agents"]] == ["scribe.drafter"] and len(shown["hooks"]) == 1

    llm_server.enqueue(text_reply("Done."))
    code, out, err = sb("ask", "--home", home, "--base-url", llm_server.url, "--approve", "always", "hi")
    assert code == 0, err
    offered = [t["function"]["name"] for t in llm_server.requests[0].json["tools"]]
    assert "chat-with-scribe_drafter" in offered
    assert "- tone: Keeps the tone" in llm_server.requests[0].json["messages"][0]["content"]


def test_a_folder_with_no_plugin_parts_is_still_refused(tmp_path: Path) -> None:
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "README.md").write_text("Just notes.\n")
    code, _out, err = sb("plugins", "install", str(tmp_path / "notes"), "--home", str(tmp_path / "sb"))
    assert code == 2 and "not a plugin" in err and "commands, agents, skills" in err
