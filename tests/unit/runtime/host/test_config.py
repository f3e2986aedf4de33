"""Reading mcp.json: good, missing, broken JSON, bad fields, BOM and ${VAR} expansion."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from desktop_app.runtime.errors import ConfigError
from desktop_app.runtime.host.config import ServerConfig, load_mcp_config


def write(path: Path, document: object) -> Path:
    path.write_text(json.dumps(document, indent=2), encoding="utf-8")
    return path


def test_good_file(tmp_path: Path) -> None:
    path = write(
        tmp_path / "mcp.json",
        {
            "mcpServers": {
                "time": {"command": "uvx", "args": ["mcp-server-time"], "env": {"TZ": "UTC"}},
                "remote": {"url": "https://example.com/mcp", "disabled": True, "timeout": 5},
                "slow": {"command": "node", "startupTimeout": 90, "hooks": {"x": 1}},
            }
        },
    )
    servers = load_mcp_config(path)
    assert sorted(servers) == ["remote", "slow", "time"]
    time = servers["time"]
    assert (time.command, time.args, time.env, time.transport) == ("uvx", ["mcp-server-time"], {"TZ": "UTC"}, "stdio")
    assert servers["remote"].disabled and servers["remote"].timeout == 5 and servers["remote"].transport == "http"
    assert servers["slow"].startup_timeout == 90
    assert servers["slow"].model_extra == {"hooks": {"x": 1}}  # our other optional fields are kept


def test_missing_file_is_empty(tmp_path: Path) -> None:
    assert load_mcp_config(tmp_path / "nope.json") == {}


def test_empty_file_and_no_servers_key_are_empty(tmp_path: Path) -> None:
    (tmp_path / "a.json").write_text("", encoding="utf-8")
    assert load_mcp_config(tmp_path / "a.json") == {}
    assert load_mcp_config(write(tmp_path / "b.json", {"other": 1})) == {}


def test_json_syntax_error_has_path_line_and_column(tmp_path: Path) -> None:
    path = tmp_path / "mcp.json"
    path.write_text('{\n  "mcpServers": {\n    "time": {"command": "x",}\n  }\n}\n', encoding="utf-8")
    before = path.read_bytes()
    with pytest.raises(ConfigError) as info:
        load_mcp_config(path)
    error = info.value
    assert error.path == path
    assert (error.line, error.column) == (3, 29)
    assert str(error).startswith(f"{path}:3:29: invalid JSON")
    assert path.read_bytes() == before  # never rewritten


def test_bad_field_names_the_field_path(tmp_path: Path) -> None:
    path = write(tmp_path / "mcp.json", {"mcpServers": {"time": {"command": "x", "args": "not-a-list"}}})
    with pytest.raises(ConfigError) as info:
        load_mcp_config(path)
    assert info.value.problem == "mcpServers.time.args: Input should be a valid list"
    assert info.value.line is None


def test_server_without_command_or_url(tmp_path: Path) -> None:
    path = write(tmp_path / "mcp.json", {"mcpServers": {"empty": {"args": []}}})
    with pytest.raises(ConfigError, match=r"mcpServers\.empty: requires either command or url"):
        load_mcp_config(path)


def test_top_level_must_be_an_object(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="top level must be a JSON object"):
        load_mcp_config(write(tmp_path / "mcp.json", [1, 2]))


def test_utf8_bom_is_stripped(tmp_path: Path) -> None:
    path = tmp_path / "mcp.json"
    path.write_bytes(b"\xef\xbb\xbf" + json.dumps({"mcpServers": {"t": {"command": "x"}}}).encode())
    assert load_mcp_config(path) == {"t": ServerConfig(command="x")}


def test_blank_names_are_skipped_and_names_trimmed(tmp_path: Path) -> None:
    path = write(tmp_path / "mcp.json", {"mcpServers": {"  ": {"command": "x"}, " t ": {"command": "y"}}})
    assert list(load_mcp_config(path)) == ["t"]


def test_env_references_are_expanded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SB_TEST_TOKEN", "s3cret")
    path = write(
        tmp_path / "mcp.json",
        {
            "mcpServers": {
                "gh": {
                    "command": "x",
                    "env": {"TOKEN": "${SB_TEST_TOKEN}", "AUTH": "Bearer ${SB_TEST_TOKEN}!", "K": "${keyring:gh}"},
                }
            }
        },
    )
    env = load_mcp_config(path)["gh"].env
    assert env == {"TOKEN": "s3cret", "AUTH": "Bearer s3cret!", "K": "${keyring:gh}"}


def test_unset_env_reference_is_a_clear_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SB_TEST_MISSING", raising=False)
    path = write(tmp_path / "mcp.json", {"mcpServers": {"gh": {"command": "x", "env": {"T": "${SB_TEST_MISSING}"}}}})
    with pytest.raises(ConfigError) as info:
        load_mcp_config(path)
    assert "mcpServers.gh.env.T: environment variable 'SB_TEST_MISSING' is not set" in info.value.problem


@pytest.mark.parametrize(("value", "problem"), [("${}", "empty variable reference"), ("${OPEN", "unclosed")])
def test_malformed_env_reference(tmp_path: Path, value: str, problem: str) -> None:
    path = write(tmp_path / "mcp.json", {"mcpServers": {"gh": {"command": "x", "env": {"T": value}}}})
    with pytest.raises(ConfigError, match=problem):
        load_mcp_config(path)
