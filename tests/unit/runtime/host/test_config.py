"""Reading mcp.json: good, missing, broken JSON, bad fields, BOM, transports, our fields and references."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from desktop_app.runtime.errors import ConfigError
from desktop_app.runtime.host.config import (
    ServerConfig,
    expand_env_value,
    expand_value,
    load_mcp_config,
    normalize_transport,
)


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
                "slow": {"command": "node", "startupTimeout": 90, "hooks": {"x": 1}, "future": [1]},
            }
        },
    )
    servers = load_mcp_config(path)
    assert sorted(servers) == ["remote", "slow", "time"]
    time = servers["time"]
    assert (time.command, time.args, time.env, time.transport) == ("uvx", ["mcp-server-time"], {"TZ": "UTC"}, "stdio")
    assert servers["remote"].disabled and servers["remote"].timeout == 5 and servers["remote"].transport == "http"
    assert servers["slow"].startup_timeout == 90
    assert servers["slow"].hooks == {"x": 1}
    assert servers["slow"].model_extra == {"future": [1]}  # unknown fields are kept harmlessly


def test_missing_file_is_empty(tmp_path: Path) -> None:
    assert load_mcp_config(tmp_path / "nope.json") == {}


def test_empty_file_and_no_servers_key_are_empty(tmp_path: Path) -> None:
    (tmp_path / "a.json").write_text("", encoding="utf-8")
    assert load_mcp_config(tmp_path / "a.json") == {}
    assert load_mcp_config(write(tmp_path / "b.json", {"other": 1})) == {}


def test_json_syntax_error_has_path_line_and_column(tmp_path: Path) -> None:
    path = tmp_path / "mcp.json"
    path.write_text('{\n  "mcpServers": {\n    "time": {"command": "x" "args": []}\n  }\n}\n', encoding="utf-8")
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


def test_references_are_not_expanded_when_the_file_is_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SB_TEST_MISSING", raising=False)
    monkeypatch.setenv("SB_TEST_TOKEN", "s3cret")
    env = {"TOKEN": "${SB_TEST_TOKEN}", "GONE": "${SB_TEST_MISSING}", "K": "${keyring:gh}"}
    path = write(tmp_path / "mcp.json", {"mcpServers": {"gh": {"command": "x", "env": env}}})
    assert load_mcp_config(path)["gh"].env == env  # expansion happens when the server starts


def test_expand_value_reads_the_environment_and_the_keyring() -> None:
    environ = {"SB_TEST_TOKEN": "s3cret"}
    secrets = {"gh": "from-keyring"}.get
    assert expand_value("Bearer ${SB_TEST_TOKEN}!", environ, where="env.A") == "Bearer s3cret!"
    assert expand_value("${keyring:gh}", environ, where="env.K") == "${keyring:gh}"  # no lookup given
    assert (
        expand_value("${keyring:gh}/${SB_TEST_TOKEN}", environ, where="env.K", secrets=secrets) == "from-keyring/s3cret"
    )
    assert expand_env_value("${SB_TEST_TOKEN}", environ, where="env.T") == "s3cret"


def test_unset_variable_and_missing_secret_are_clear_errors() -> None:
    with pytest.raises(ValueError, match=r"env\.T: environment variable 'SB_TEST_MISSING' is not set"):
        expand_value("${SB_TEST_MISSING}", {}, where="env.T")
    with pytest.raises(ValueError, match=r"keyring entry 'mcp:gh:T' \(service 'switchboard'\) is not set") as info:
        expand_value("${keyring:mcp:gh:T}", {}, where="env.T", secrets={}.get)
    assert "keyring set switchboard mcp:gh:T" in str(info.value)
    with pytest.raises(ValueError, match="empty keyring reference"):
        expand_value("${keyring: }", {}, where="env.T", secrets={}.get)


@pytest.mark.parametrize(("value", "problem"), [("${}", "empty variable reference"), ("${OPEN", "unclosed")])
def test_malformed_reference_is_reported_when_read(tmp_path: Path, value: str, problem: str) -> None:
    path = write(tmp_path / "mcp.json", {"mcpServers": {"gh": {"command": "x", "env": {"T": value}}}})
    with pytest.raises(ConfigError, match=rf"mcpServers\.gh\.env\.T: {problem}"):
        load_mcp_config(path)
    path = write(tmp_path / "mcp.json", {"mcpServers": {"gh": {"url": "https://x", "headers": {"H": value}}}})
    with pytest.raises(ConfigError, match=rf"mcpServers\.gh\.headers\.H: {problem}"):
        load_mcp_config(path)


@pytest.mark.parametrize(
    ("entry", "transport"),
    [
        ({"command": "x"}, "stdio"),
        ({"url": "https://x"}, "http"),
        ({"type": "stdio", "command": "x"}, "stdio"),
        ({"type": "HTTP", "url": "https://x"}, "http"),
        ({"type": "streamable-http", "url": "https://x"}, "http"),
        ({"transport": "Streamable_HTTP", "url": "https://x"}, "http"),
        ({"type": "sse", "transport": "sse", "url": "https://x"}, "sse"),
        ({"type": "http", "transport": "streamablehttp", "url": "https://x"}, "http"),
    ],
)
def test_transport_comes_from_type_transport_or_the_fields(entry: dict[str, object], transport: str) -> None:
    assert ServerConfig.model_validate(entry).transport == transport


@pytest.mark.parametrize(
    ("entry", "problem"),
    [
        ({"type": "websocket", "url": "https://x"}, "mcpServers.s.type: unknown transport 'websocket'; use one of"),
        (
            {"type": "stdio", "transport": "http", "command": "x"},
            "mcpServers.s: type 'stdio' and transport 'http' disagree",
        ),
        ({"type": "stdio", "url": "https://x"}, "mcpServers.s: a stdio server requires a command"),
        ({"type": "sse", "command": "x"}, "mcpServers.s: a sse server requires a url"),
        (
            {"url": "https://x", "headers": {"Bad Name": "v"}},
            "mcpServers.s.headers: header name 'Bad Name' is not a valid",
        ),
        (
            {"url": "https://x", "headers": {"X-A": "a\r\nb"}},
            "mcpServers.s.headers: header 'X-A' may not contain a line",
        ),
        ({"url": "https://x", "headers": {"X-A": 1}}, "mcpServers.s.headers.X-A: Input should be a valid string"),
        ({"command": "x", "excludedTools": "rm"}, "mcpServers.s.excludedTools: Input should be a valid list"),
        ({"command": "x", "allowUnsafeEnv": "maybe"}, "mcpServers.s.allowUnsafeEnv: Input should be a valid boolean"),
        ({"command": "x", "trust": []}, "mcpServers.s.trust: Input should be a valid boolean"),
        ({"command": "x", "hooks": [1]}, "mcpServers.s.hooks: Input should be a valid dictionary"),
        ({"command": "x", "startupTimeout": 0}, "mcpServers.s.startupTimeout: Input should be greater than 0"),
    ],
)
def test_invalid_fields_name_their_path(tmp_path: Path, entry: dict[str, object], problem: str) -> None:
    with pytest.raises(ConfigError) as info:
        load_mcp_config(write(tmp_path / "mcp.json", {"mcpServers": {"s": entry}}))
    assert info.value.problem.startswith(problem), info.value.problem


def test_our_optional_fields_are_read(tmp_path: Path) -> None:
    entry = {
        "type": "streamable-http",
        "url": "https://example.com/mcp",
        "headers": {"Authorization": "${keyring:mcp:docs:header:Authorization}"},
        "trust": True,
        "pinned": ["search"],
        "excludedTools": ["delete"],
        "allowUnsafeEnv": True,
        "hooks": {"tools/call": ["guard/check"]},
        "someday": {"nested": True},
    }
    config = load_mcp_config(write(tmp_path / "mcp.json", {"mcpServers": {"docs": entry}}))["docs"]
    assert (config.transport, config.trust, config.pinned, config.excluded_tools) == (
        "http",
        True,
        ["search"],
        ["delete"],
    )
    assert config.allow_unsafe_env and config.hooks == {"tools/call": ["guard/check"]}
    assert config.headers == {"Authorization": "${keyring:mcp:docs:header:Authorization}"}
    assert config.model_extra == {"someday": {"nested": True}}
    defaults = ServerConfig(command="x")
    assert (defaults.trust, defaults.pinned, defaults.excluded_tools, defaults.allow_unsafe_env) == (
        False,
        False,
        [],
        False,
    )


def test_normalize_transport() -> None:
    assert [normalize_transport(v) for v in ("stdio", " SSE ", "streamable_http")] == ["stdio", "sse", "http"]
    with pytest.raises(ValueError, match="unknown transport"):
        normalize_transport("ws")


def test_a_server_with_both_command_and_url_is_an_error(tmp_path: Path) -> None:
    path = tmp_path / "mcp.json"
    path.write_text(json.dumps({"mcpServers": {"both": {"command": "x", "url": "https://x"}}}), encoding="utf-8")
    with pytest.raises(ConfigError, match=r"mcpServers\.both: has both command and url"):
        load_mcp_config(path)


def test_unknown_fields_are_warned_about_with_their_path(tmp_path: Path) -> None:
    from desktop_app.runtime.host.config import unknown_field_warnings

    path = tmp_path / "mcp.json"
    path.write_text(json.dumps({"mcpServers": {"fs": {"command": "x", "arg": ["-v"], "enviroment": {}}}}))
    servers = load_mcp_config(path)
    assert unknown_field_warnings(servers, path) == [
        f"{path}: mcpServers.fs.arg: unknown field, ignored; check its spelling",
        f"{path}: mcpServers.fs.enviroment: unknown field, ignored; check its spelling",
    ]


def test_mcp_json_is_read_as_import_config_reads_files(tmp_path: Path) -> None:
    """Comments and trailing commas (VS Code's style): ``ask`` and the app accept what ``import-config`` does."""
    from desktop_app.runtime.host.importers import read_source

    path = tmp_path / "mcp.json"
    path.write_text('{\n  // my servers\n  "mcpServers": {"time": {"command": "x", "args": ["a",],},},\n}\n')
    assert load_mcp_config(path)["time"].args == ["a"]
    _format, servers, _notes, _read = read_source(path)
    assert servers["time"]["args"] == ["a"]
