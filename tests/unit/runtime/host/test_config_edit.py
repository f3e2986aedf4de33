"""Editing one mcp.json entry keeps every other byte of the file as the user wrote it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from desktop_app.runtime.errors import ConfigError
from desktop_app.runtime.host.config import load_mcp_config
from desktop_app.runtime.host.config_edit import put_server, read_servers, remove_server, set_server_fields

USER_FILE = """{
    "mcpServers": {
        "fs":   { "command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "/tmp"] },
        "time": {
            "command": "uvx",
            "args": [ "mcp-server-time" ]
        },
        "web": {"url": "https://example.com/mcp"}
    },
    "note": "kept"
}
"""


@pytest.fixture
def mcp_json(tmp_path: Path) -> Path:
    path = tmp_path / "mcp.json"
    path.write_text(USER_FILE, encoding="utf-8")
    return path


def test_setting_a_field_rewrites_only_that_entry(mcp_json: Path):
    set_server_fields(mcp_json, "time", disabled=True)
    text = mcp_json.read_text(encoding="utf-8")
    assert '"fs":   { "command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "/tmp"] },' in text
    assert '"web": {"url": "https://example.com/mcp"}\n' in text
    assert text.startswith('{\n    "mcpServers": {\n        "fs":   {') and '"note": "kept"' in text
    assert read_servers(mcp_json)["time"] == {"command": "uvx", "args": ["mcp-server-time"], "disabled": True}
    assert load_mcp_config(mcp_json)["time"].disabled is True
    set_server_fields(mcp_json, "time", disabled=None)
    assert "disabled" not in read_servers(mcp_json)["time"]
    assert "excludedTools" not in text
    set_server_fields(mcp_json, "fs", excludedTools=["write_file"], pinned=True)
    assert load_mcp_config(mcp_json)["fs"].excluded_tools == ["write_file"]
    assert '"web": {"url": "https://example.com/mcp"}\n' in mcp_json.read_text(encoding="utf-8")


def test_adding_indents_like_the_neighbours_and_removing_keeps_the_rest(mcp_json: Path):
    put_server(mcp_json, "new", {"command": "echo", "env": {"A": "1"}})
    text = mcp_json.read_text(encoding="utf-8")
    assert text.endswith(
        '"web": {"url": "https://example.com/mcp"},\n        "new": {\n            "command": "echo",\n'
        '            "env": {\n                "A": "1"\n            }\n        }\n    },\n    "note": "kept"\n}\n'
    )
    for name in ("new", "web"):  # the last entry, then the new last one
        remove_server(mcp_json, name)
    remove_server(mcp_json, "fs")  # the first one
    text = mcp_json.read_text(encoding="utf-8")
    assert list(read_servers(mcp_json)) == ["time"]
    assert (
        '        "time": {\n            "command": "uvx",\n            "args": [ "mcp-server-time" ]\n        }\n'
        in text
    )
    remove_server(mcp_json, "time")
    assert read_servers(mcp_json) == {} and '"note": "kept"' in mcp_json.read_text(encoding="utf-8")
    put_server(mcp_json, "again", {"url": "https://a.example/mcp"})
    assert list(load_mcp_config(mcp_json)) == ["again"]


def test_a_missing_file_is_created_and_a_file_without_servers_gains_the_key(tmp_path: Path):
    path = tmp_path / "mcp.json"
    put_server(path, "one", {"command": "echo"})
    assert json.loads(path.read_text(encoding="utf-8")) == {"mcpServers": {"one": {"command": "echo"}}}
    other = tmp_path / "other.json"
    other.write_text('{"theme": 1}\n', encoding="utf-8")
    put_server(other, "two", {"command": "echo"})
    assert json.loads(other.read_text(encoding="utf-8")) == {"theme": 1, "mcpServers": {"two": {"command": "echo"}}}


def test_a_broken_file_is_reported_with_its_position_and_never_written(tmp_path: Path):
    path = tmp_path / "mcp.json"
    broken = '{"mcpServers": {"a": {"command": "x"}\n  "b": 1}}\n'
    path.write_text(broken, encoding="utf-8")
    with pytest.raises(ConfigError) as info:
        put_server(path, "c", {"command": "y"})
    assert info.value.line == 2 and info.value.column == 3
    assert path.read_text(encoding="utf-8") == broken
    with pytest.raises(ConfigError, match="no MCP server named 'zz'"):
        set_server_fields(tmp_path / "none.json", "zz", disabled=True)
