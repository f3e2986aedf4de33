"""Issue 21 items 7, 8 and 14 for plugins: a server's own ``hooks`` in a plugin's ``.mcp.json`` stay untrusted
until reviewed; every file a plugin contributes resolves inside it; a FIFO never hangs a read."""

from __future__ import annotations

import io
import json
import os
import sys
from pathlib import Path

import pytest

from desktop_app.cli import main as cli_main
from desktop_app.runtime.hooks.sources import build_runner
from desktop_app.runtime.plugins import manage
from desktop_app.runtime.plugins.agents import read_agents
from desktop_app.runtime.plugins.model import PluginError, read_plugin

posix_only = pytest.mark.skipif(sys.platform == "win32", reason="symlinks and FIFOs")


def claude_plugin(folder: Path, servers: dict[str, object] | None = None) -> Path:
    (folder / ".claude-plugin").mkdir(parents=True)
    (folder / ".claude-plugin" / "plugin.json").write_text('{"name": "p"}')
    if servers is not None:
        (folder / ".mcp.json").write_text(json.dumps({"mcpServers": servers}))
    return folder


def places(tmp_path: Path) -> manage.Places:
    return manage.Places(tmp_path / "data", tmp_path / "settings.json", tmp_path / "mcp.json")


def test_a_plugin_servers_own_hooks_are_untrusted_and_never_in_mcp_json(tmp_path: Path) -> None:
    where = places(tmp_path)
    hooks = {"tools/call?direction=request": ["other/rewrite"]}
    manage.install(claude_plugin(tmp_path / "src", {"s": {"command": "srv", "hooks": hooks}}), where)
    manage.enable("p", where)
    entry = json.loads(where.mcp_file.read_text())["mcpServers"]["p.s"]
    assert "hooks" not in entry  # mcp.json's hooks are the user's own, trusted
    runner = build_runner(settings_hooks={}, settings_path=None, mcp_config=where.mcp_file, data_dir=where.data_dir)
    [item] = runner.review()
    assert (item.entry.scope, item.entry.source.kind, item.state) == ("p.s", "plugin", "untrusted")
    assert runner.problems == []
    manage.remove("p", where)  # its trust record goes with it, and nothing is left
    assert not where.hooks_file("p").exists()


def test_plugins_enable_lists_the_servers_hook_as_untrusted(tmp_path: Path) -> None:
    hooks = {"tools/call": ["other/rewrite"]}
    source = claude_plugin(tmp_path / "src", {"s": {"command": "srv", "hooks": hooks}})
    home = str(tmp_path / "home")
    out, err = io.StringIO(), io.StringIO()
    assert cli_main(["plugins", "install", str(source), "--home", home], out=out, err=err) == 0, err.getvalue()
    assert cli_main(["plugins", "enable", "p", "--home", home], out=out, err=err) == 0, err.getvalue()
    [line] = [line for line in out.getvalue().splitlines() if line.strip().startswith("Hook ")]
    assert "tools/call" in line and "untrusted" in line and "other/rewrite" in line


@posix_only
def test_an_agent_symlinked_to_a_private_file_is_refused(tmp_path: Path) -> None:
    secret = tmp_path / "id_rsa"
    secret.write_text("---\nname: leak\n---\n-----BEGIN OPENSSH PRIVATE KEY-----\n")
    source = claude_plugin(tmp_path / "src")
    (source / "agents").mkdir()
    (source / "agents" / "leak.md").symlink_to(secret)
    with pytest.raises(PluginError, match="outside the plugin's folder"):
        manage.install(source, places(tmp_path))
    plugin = read_plugin(source)  # read in place (an install made before this guard): still refused
    assert read_agents(plugin) == []
    assert any("outside the plugin's folder" in p for p in plugin.problems)
    assert not any("PRIVATE KEY" in p for p in plugin.problems)


@posix_only
def test_a_command_and_a_hooks_file_symlinked_outside_are_refused(tmp_path: Path) -> None:
    outside = tmp_path / "outside.json"
    outside.write_text('{"hooks": {}}')
    source = claude_plugin(tmp_path / "src")
    (source / "hooks").mkdir()
    (source / "hooks" / "hooks.json").symlink_to(outside)
    with pytest.raises(PluginError, match="outside the plugin's folder"):
        read_plugin(source)


@posix_only
def test_a_fifo_in_a_plugin_is_refused_without_hanging(tmp_path: Path) -> None:
    source = claude_plugin(tmp_path / "src")
    (source / "hooks").mkdir()
    os.mkfifo(source / "hooks" / "hooks.json")
    with pytest.raises(PluginError, match="named pipe"):
        read_plugin(source)
    os.unlink(source / "hooks" / "hooks.json")
    (source / "agents").mkdir()
    os.mkfifo(source / "agents" / "a.md")
    plugin = read_plugin(source)
    assert read_agents(plugin) == [] and any("named pipe" in p for p in plugin.problems)
    with pytest.raises(PluginError, match="not a regular file"):
        manage.install(source, places(tmp_path))
