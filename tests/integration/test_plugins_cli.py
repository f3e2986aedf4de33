"""The example Claude Code plugin (docs/examples/plugins/notes-plugin: one stdio server, one skill, one hook)
through ``switchboard plugins`` and ``switchboard ask`` (the CLI's real ``main``) against the loopback LLM.

It installs disabled; enabling shows its contributions and starts its server; its hook does not run until
trusted, runs once trusted, and is inactive again once its file is edited; removing it leaves nothing in
mcp.json, the settings, the trust store or the data folder.
"""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from desktop_app import cli
from tests.support.llm_server import ScriptedLLMServer, text_reply, tool_call_reply

pytestmark = pytest.mark.integration

EXAMPLE = Path(__file__).resolve().parents[2] / "docs" / "examples" / "plugins" / "notes-plugin"
TOOL = "mcp__notes-plugin_notes__word_count"


def sb(*args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = cli.main(list(args), out=out, err=err)
    return code, out.getvalue(), err.getvalue()


def ask(server: ScriptedLLMServer, home: Path) -> list[dict[str, object]]:
    server.enqueue(tool_call_reply([("c1", TOOL, {"text": "one two three"})]), text_reply("Three."))
    code, out, err = sb(
        "ask", "--home", str(home), "--base-url", server.url, "--approve", "always", "--events", "jsonl", "count"
    )
    assert code == 0, err
    return [json.loads(line) for line in out.splitlines() if line.strip()]


def test_example_plugin_lifecycle(tmp_path: Path, llm_server: ScriptedLLMServer) -> None:
    home = tmp_path / "sb"
    code, out, err = sb("plugins", "install", str(EXAMPLE), "--home", str(home))
    assert code == 0, err
    assert "Installed notes-plugin, disabled" in out
    assert not (home / "config" / "mcp.json").exists()  # nothing contributed while disabled
    assert sb("plugins", "list", "--home", str(home))[1] == "notes-plugin\t1.0.0\tdisabled\n"

    code, out, err = sb("plugins", "enable", "notes-plugin", "--home", str(home))
    assert code == 0, err
    assert "MCP server notes-plugin.notes: python3" in out and "Skill: meeting-notes" in out
    assert "Agent: notes-plugin.note-reviewer: Reviews a note" in out and "Read, Grep: not available here" in out
    [hook_line] = [line for line in out.splitlines() if line.startswith("  Hook ")]
    key = hook_line.split()[1]
    assert " PreToolUse  untrusted  sh " in hook_line
    entry = json.loads((home / "config" / "mcp.json").read_text())["mcpServers"]["notes-plugin.notes"]
    root = home / "data" / "plugin-files" / "notes-plugin"
    assert entry["args"] == [f"{root}/servers/notes_server.py"]  # ${CLAUDE_PLUGIN_ROOT} substituted
    log = root / "tool-calls.log"

    events = ask(llm_server, home)
    [result] = [e for e in events if e["kind"] == "tool_result"]
    assert "3 words" in json.dumps(result)
    assert not log.exists()  # untrusted: the hook never ran
    offered = [t["function"]["name"] for t in llm_server.requests[0].json["tools"]]
    assert "chat-with-notes-plugin_note-reviewer" in offered  # the plugin's agent, served at start-up
    system = llm_server.requests[0].json["messages"][0]["content"]
    assert "- meeting-notes: Turn a meeting transcript" in system  # the plugin's skill is in the index

    assert sb("hooks", "trust", key, "--home", str(home))[0] == 0
    ask(llm_server, home)
    assert TOOL in log.read_text()  # trusted: it ran, with the event on stdin

    hooks_file = home / "data" / "plugins" / "notes-plugin" / "hooks" / "hooks.json"
    hooks_file.write_text(hooks_file.read_text().replace("log-tool.sh", "log-tool.sh #edited"))
    assert " modified " in sb("hooks", "list", "--home", str(home))[1]
    log.unlink()
    ask(llm_server, home)
    assert not log.exists()  # edited: inactive again until trusted again

    code, out, err = sb("plugins", "remove", "notes-plugin", "--home", str(home))
    assert code == 0, err
    assert "notes-plugin" not in (home / "config" / "mcp.json").read_text()
    assert json.loads((home / "config" / "settings.json").read_text())["plugins"] == {}
    assert key not in (home / "data" / "hooks" / "trust.json").read_text()
    assert not root.exists() and not (home / "data" / "plugins" / "notes-plugin").exists()
    assert sb("plugins", "list", "--home", str(home))[1] == "No plugins installed.\n"
    left = {p.relative_to(home) for p in home.rglob("*") if p.is_file() and b"notes" in p.read_bytes()}
    assert left <= {Path("data/switchboard.db"), Path("data/switchboard.db-wal")}  # only your conversations
    assert sb("plugins", "enable", "notes-plugin", "--home", str(home))[0] == 2
    llm_server.enqueue(text_reply("Nothing."))
    assert sb("ask", "--home", str(home), "--base-url", llm_server.url, "--approve", "always", "hi")[0] == 0
    offered = [t["function"]["name"] for t in llm_server.requests[-1].json.get("tools", [])]
    assert not [name for name in offered if "note-reviewer" in name]  # the removed plugin's agent is gone too
