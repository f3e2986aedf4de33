"""A plugin command with a ``!`…` `` context line through the real CLI (``cli.main``: ``plugins install``,
``enable``, ``show --json``, then ``ask "/plugin:command args"``) against the loopback LLM (issue 22 item 6 and
the plugin compatibility report).

The command follows Claude Code's slash-commands reference: ``allowed-tools: Bash(touch:*), Bash(echo:*)``,
``argument-hint``, ``description``, ``!`…` `` lines and ``$ARGUMENTS``. Its context command leaves a marker
file, so the test sees whether it ran: under ``--approve always`` it runs after the exact command was printed
and its output reaches the model; under ``never`` and under ``ask`` without a terminal it does not run, and
the model reads why.
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


def status_plugin(root: Path) -> Path:
    folder = root / "ctx"
    cp.manifest(folder, "ctx", version="1.0.0", description="Context commands")
    cp.write(
        folder / "commands" / "status.md",
        "---\nallowed-tools: Bash(touch:*), Bash(echo:*)\nargument-hint: [topic]\ndescription: Status\n---\n\n"
        "- Marker: !`touch ran-marker`\n- Answer: !`echo ctx-$((6*7))`\n\nReport on $ARGUMENTS.\n",
    )
    return folder


def user_text(server: ScriptedLLMServer) -> str:
    return str(server.requests[-1].json["messages"][-1]["content"])


def test_a_context_command_is_shown_then_run_or_denied_by_the_policy(
    tmp_path: Path, llm_server: ScriptedLLMServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = str(tmp_path / "sb")
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    code, out, err = sb("plugins", "install", str(status_plugin(tmp_path / "src")), "--home", home)
    assert code == 0, err
    assert "[translated] command ctx:status — `touch ran-marker`, `echo ctx-$((6*7))` shown for approval" in out
    code, out, err = sb("plugins", "enable", "ctx", "--home", home)
    assert code == 0, err
    code, out, err = sb("plugins", "show", "ctx", "--json", "--home", home)
    shown = json.loads(out)
    parts = {(line["part"], line["status"]) for line in shown["compatibility"]}
    assert {("name", "works"), ("command ctx:status", "translated")} <= parts
    assert ("command ctx:status allowed-tools", "translated") in parts

    ask = ("ask", "--home", home, "--base-url", llm_server.url)
    llm_server.enqueue(text_reply("Denied."))
    code, out, err = sb(*ask, "--approve", "never", "/ctx:status the build")
    assert code == 0, err
    assert "[command] /ctx:status runs `touch ran-marker` before it is sent" in err
    assert not (work / "ran-marker").exists()
    sent = user_text(llm_server)
    assert "[`touch ran-marker` was not run: denied by policy (--approve never)]" in sent
    assert "Report on the build." in sent and "ctx-42" not in sent

    llm_server.enqueue(text_reply("No terminal."))
    code, out, err = sb(*ask, "--approve", "ask", "/ctx:status the build")  # stdin is no terminal here
    assert code == 0, err
    assert not (work / "ran-marker").exists() and "no terminal to ask" in user_text(llm_server)

    llm_server.enqueue(text_reply("Approved."))
    code, out, err = sb(*ask, "--approve", "always", "/ctx:status the build")
    assert code == 0, err
    assert err.index("runs `touch ran-marker`") < err.index("ran `touch ran-marker`")
    assert (work / "ran-marker").exists()
    sent = user_text(llm_server)
    assert "- Answer: ctx-42\n" in sent and "!`" not in sent and "Report on the build." in sent


def test_a_whale_plugin_from_its_guide_through_the_cli(
    tmp_path: Path, llm_server: ScriptedLLMServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Whale's plugins guide: ``commands/commands.toml`` (``ping`` → ``echo pong``), ``commands/explain.md`` with
    ``{{args}}``, ``hooks.toml``, ``rules/convention.md`` (in the system prompt) and ``skills/greet/SKILL.md``
    without frontmatter."""
    monkeypatch.chdir(tmp_path)
    folder = tmp_path / "src" / "my-plugin"
    cp.write(folder / "whale-plugin.toml", 'id = "my-plugin"\nname = "My Plugin"\nversion = "0.1.0"\n')
    cp.write(
        folder / "commands" / "commands.toml",
        '[[commands]]\nname = "ping"\ndescription = "Test if the plugin is online"\ncommand = "echo pong"\n',
    )
    cp.write(
        folder / "commands" / "explain.md",
        '---\ndescription: Explain a concept\nargument_hint: "<concept>"\n---\nExplain {{args}} from my view.\n',
    )
    cp.write(folder / "hooks.toml", '[[hooks.SessionStart]]\ndescription = "marker"\ncommand = "echo started"\n')
    cp.write(folder / "rules" / "convention.md", "This session uses the my-plugin plugin.\n")
    cp.write(folder / "skills" / "greet" / "SKILL.md", '# Greet\n\nWhen the user says "hello", greet them.\n')
    home = str(tmp_path / "sb")
    assert sb("plugins", "install", str(folder), "--home", home)[0] == 0
    code, out, err = sb("plugins", "enable", "my-plugin", "--home", home)
    assert code == 0, err
    assert "[translated] rules/convention.md — in each new conversation's system prompt, once enabled" in out
    assert "Hook " in out and "SessionStart  untrusted  echo started" in out

    ask = ("ask", "--home", home, "--base-url", llm_server.url, "--approve", "always")
    llm_server.enqueue(text_reply("Pong seen."))
    code, out, err = sb(*ask, "/my-plugin:ping")
    assert code == 0, err
    assert "runs `echo pong` before it is sent" in err
    assert "Output of `echo pong`:\n\npong" in user_text(llm_server)
    system = llm_server.requests[-1].json["messages"][0]["content"]
    assert "- greet: Greet" in system
    assert (
        '<plugin-rules plugin="my-plugin" file="rules/convention.md">\nThis session uses the my-plugin plugin.'
        in system
    )

    llm_server.enqueue(text_reply("Explained."))
    code, out, err = sb(*ask, "/my-plugin:explain plugins")
    assert code == 0, err
    assert user_text(llm_server).endswith("Explain plugins from my view.")
