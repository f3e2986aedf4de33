"""Plugin folders: Claude Code's layout and whale-plugin.toml, their contributions, and bad manifests."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from desktop_app.runtime.plugins import manage
from desktop_app.runtime.plugins.model import PluginError, read_plugin


def test_claude_hooks_are_flattened_with_their_matcher(tmp_path: Path) -> None:
    (tmp_path / ".claude-plugin").mkdir()
    (tmp_path / ".claude-plugin" / "plugin.json").write_text('{"name": "fmt", "version": "2"}')
    (tmp_path / "hooks").mkdir()
    hooks = {"hooks": {"PostToolUse": [{"matcher": "Write|Edit", "hooks": [{"type": "command", "command": "x"}]}]}}
    (tmp_path / "hooks" / "hooks.json").write_text(json.dumps(hooks))
    (tmp_path / "agents").mkdir()
    (tmp_path / "agents" / "reviewer.md").write_text("# r")
    plugin = read_plugin(tmp_path)
    flat = {"type": "command", "command": "x", "match": "Write|Edit", "format": "claude", "timeout": 60.0}
    assert plugin.hooks == {"PostToolUse": [flat]}  # Claude Code's dialect and default timeout (60 s)
    assert plugin.notes == [
        "PostToolUse: matcher 'Write|Edit': matches Switchboard's equivalents: Write → write_file; Edit → edit_file"
    ]
    assert plugin.agents == ["reviewer"] and plugin.servers == {}


def test_whale_plugin_toml(tmp_path: Path) -> None:
    (tmp_path / "whale-plugin.toml").write_text('id = "lint"\nversion = "0.1"\ndescription = "Lints"\n')
    (tmp_path / "mcp.json").write_text('{"mcpServers": {"linter": {"command": "lint-mcp"}}}')
    (tmp_path / "skills" / "lint").mkdir(parents=True)
    (tmp_path / "skills" / "lint" / "SKILL.md").write_text("---\nname: lint\ndescription: d\n---\n")
    plugin = read_plugin(tmp_path)
    assert (plugin.id, plugin.format, plugin.skills) == ("lint", "whale", ["lint"])
    assert plugin.servers == {"linter": {"command": "lint-mcp"}}


def test_bad_plugins_are_refused_with_the_file(tmp_path: Path) -> None:
    with pytest.raises(PluginError, match="not a plugin"):
        read_plugin(tmp_path)
    (tmp_path / "whale-plugin.toml").write_text('name = "no id"\n')
    with pytest.raises(PluginError, match=r"whale-plugin.toml: id: required"):
        read_plugin(tmp_path)


def test_a_plugin_server_never_replaces_a_users_server(tmp_path: Path) -> None:
    places = manage.Places(tmp_path / "data", tmp_path / "settings.json", tmp_path / "mcp.json")
    (tmp_path / "mcp.json").write_text('{"mcpServers": {"lint.linter": {"command": "mine"}}}')
    source = tmp_path / "src"
    source.mkdir()
    (source / "whale-plugin.toml").write_text('id = "lint"\n')
    (source / ".mcp.json").write_text('{"linter": {"command": "theirs"}}')
    manage.install(source, places)
    with pytest.raises(PluginError, match=r"already has a server named 'lint\.linter'"):
        manage.enable("lint", places)
    assert "mine" in (tmp_path / "mcp.json").read_text()
