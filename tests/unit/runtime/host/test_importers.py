"""Importing Claude Desktop, Cursor, VS Code, nanobot and Whale configs: conversion, secrets, conflicts, errors."""

from __future__ import annotations

import io
import json
import os
import sys
import textwrap
from pathlib import Path
from typing import Any

import keyring.errors
import pytest
from keyring.backend import KeyringBackend

from desktop_app.cli import main as cli_main
from desktop_app.runtime.credentials import Credentials
from desktop_app.runtime.errors import ConfigError, CredentialError, ServerStartError
from desktop_app.runtime.host.config import load_mcp_config
from desktop_app.runtime.host.importers import (
    CLAUDE,
    CURSOR,
    NANOBOT,
    VSCODE,
    WHALE,
    detect_format,
    import_config,
    read_source,
)
from desktop_app.runtime.host.secrets import is_secret, looks_like_token
from tests.conftest import MemoryKeyring

GH_TOKEN = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
SK_KEY = "sk-ant-" + "api03-Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2"


def write(path: Path, document: object) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(document, indent=2), encoding="utf-8")
    return path


def stored(backend: MemoryKeyring) -> dict[str, str]:
    return {name: value for (service, name), value in backend.store.items() if service == "switchboard"}


def target_servers(target: Path) -> dict[str, Any]:
    document = json.loads(target.read_text(encoding="utf-8"))
    servers: dict[str, Any] = document["mcpServers"]
    return servers


# -- formats ------------------------------------------------------------------------------------


def test_claude_desktop_env_token_moves_to_the_keyring(tmp_path: Path, memory_keyring: MemoryKeyring) -> None:
    source = write(
        tmp_path / "claude_desktop_config.json",
        {
            "mcpServers": {
                "github": {
                    "command": "npx",
                    "args": ["-y", "@modelcontextprotocol/server-github"],
                    "env": {"GITHUB_PERSONAL_ACCESS_TOKEN": GH_TOKEN, "LOG_LEVEL": "debug"},
                },
                "time": {"command": "uvx", "args": ["mcp-server-time"]},
            },
            "globalShortcut": "Ctrl+Space",
        },
    )
    before = source.read_bytes()
    target = tmp_path / "home" / "mcp.json"
    report = import_config(source, target, Credentials())

    assert (report.format, report.imported, report.conflicts, report.written) == (CLAUDE, ["github", "time"], [], True)
    assert report.secrets == ["mcp:github:GITHUB_PERSONAL_ACCESS_TOKEN"]
    assert stored(memory_keyring) == {"mcp:github:GITHUB_PERSONAL_ACCESS_TOKEN": GH_TOKEN}
    assert GH_TOKEN not in target.read_text(encoding="utf-8")
    env = target_servers(target)["github"]["env"]
    assert env == {
        "GITHUB_PERSONAL_ACCESS_TOKEN": "${keyring:mcp:github:GITHUB_PERSONAL_ACCESS_TOKEN}",
        "LOG_LEVEL": "debug",
    }
    assert sorted(load_mcp_config(target)) == ["github", "time"]
    assert source.read_bytes() == before


def test_cursor_url_server_headers_move_to_the_keyring(tmp_path: Path, memory_keyring: MemoryKeyring) -> None:
    source = write(
        tmp_path / ".cursor" / "mcp.json",
        {
            "mcpServers": {
                "docs": {
                    "url": "https://docs.example.com/mcp",
                    "headers": {"Authorization": "Bearer short", "X-Api-Key": "k-123", "Accept": "application/json"},
                },
                "local": {"command": "node", "args": ["server.js"], "env": {"OPENAI_API_KEY": SK_KEY}},
            }
        },
    )
    target = tmp_path / "mcp.json"
    report = import_config(source, target, Credentials())
    assert report.format == CURSOR
    assert sorted(report.secrets) == [
        "mcp:docs:header:Authorization",
        "mcp:docs:header:X-Api-Key",
        "mcp:local:OPENAI_API_KEY",
    ]
    headers = target_servers(target)["docs"]["headers"]
    assert headers["Authorization"] == "${keyring:mcp:docs:header:Authorization}"
    assert headers["Accept"] == "application/json"
    assert stored(memory_keyring)["mcp:docs:header:Authorization"] == "Bearer short"
    assert load_mcp_config(target)["docs"].transport == "http"


def test_vscode_servers_with_comments_inputs_and_env_references(tmp_path: Path, memory_keyring: MemoryKeyring) -> None:
    source = tmp_path / ".vscode" / "mcp.json"
    source.parent.mkdir()
    source.write_text(
        textwrap.dedent(
            """\
            {
              // VS Code allows comments and trailing commas
              "inputs": [{"type": "promptString", "id": "gh-token", "password": true}],
              "servers": {
                "github": {
                  "type": "stdio",
                  "command": "npx",
                  "env": {"GITHUB_TOKEN": "${input:gh-token}", "HOME_DIR": "${env:HOME}"},
                  "envFile": "${workspaceFolder}/.env",
                },
                "fetch": {"type": "sse", "url": "http://localhost:3000/sse"},
              },
            }
            """
        ),
        encoding="utf-8",
    )
    report = import_config(source, tmp_path / "mcp.json", Credentials())
    assert (report.format, report.imported, report.secrets) == (VSCODE, ["github", "fetch"], [])
    servers = target_servers(tmp_path / "mcp.json")
    assert servers["github"]["env"] == {"GITHUB_TOKEN": "${keyring:mcp:github:GITHUB_TOKEN}", "HOME_DIR": "${HOME}"}
    assert "envFile" not in servers["github"]
    lines = {(line.server, line.part): line for line in report.lines}
    assert "keyring set switchboard mcp:github:GITHUB_TOKEN" in lines[("github", "env GITHUB_TOKEN")].detail
    assert report.to_enter == ["mcp:github:GITHUB_TOKEN"]
    assert lines[("github", "envFile")].status == "not available"  # no .env beside it: said so
    assert load_mcp_config(tmp_path / "mcp.json")["fetch"].transport == "sse"
    assert stored(memory_keyring) == {}


def test_nanobot_yaml_server_map(tmp_path: Path, memory_keyring: MemoryKeyring) -> None:
    source = tmp_path / "mcp-servers.yaml"
    source.write_text(
        textwrap.dedent(
            f"""\
            jsonserver:
              url: https://example.com/json
            shell:
              command: npx
              args: ["-y", "some-server"]
              workdir: /srv
              image: node:22
              env:
                PORT: 8080
                VERBOSE: true
                SLACK_BOT_TOKEN: xoxb-1234567890-abcdefghij
                GITHUB_TOKEN: {GH_TOKEN}
            """
        ),
        encoding="utf-8",
    )
    report = import_config(source, tmp_path / "mcp.json", Credentials())
    assert (report.format, report.imported) == (NANOBOT, ["jsonserver", "shell"])
    assert sorted(report.secrets) == ["mcp:shell:GITHUB_TOKEN", "mcp:shell:SLACK_BOT_TOKEN"]
    shell = target_servers(tmp_path / "mcp.json")["shell"]
    assert shell["env"]["PORT"] == "8080" and shell["env"]["VERBOSE"] == "true"
    assert "cwd" not in shell and "workdir" not in shell and "image" not in shell
    dropped = {(line.server, line.part): line for line in report.lines if line.status == "not available"}
    assert "starts servers in its own folder" in dropped[("shell", "workdir")].detail  # said, not silently kept
    assert "the command runs directly" in dropped[("shell", "image")].detail
    assert stored(memory_keyring)["mcp:shell:SLACK_BOT_TOKEN"] == "xoxb-1234567890-abcdefghij"


def test_nanobot_json_map_folder_and_nanobot_yaml(tmp_path: Path) -> None:
    folder = tmp_path / "agent"
    write(folder / "mcp-servers.json", {"jsonserver": {"url": "https://example.com/json"}})
    report = import_config(folder, tmp_path / "a.json", Credentials())
    assert (report.format, report.imported, report.source) == (NANOBOT, ["jsonserver"], folder / "mcp-servers.json")

    yaml_file = tmp_path / "nanobot.yaml"
    yaml_file.write_text(
        "agents:\n  main:\n    model: gpt-4.1\n    mcpServers: [search]\nmcpServers:\n  search:\n    url: https://s.example/mcp\n",
        encoding="utf-8",
    )
    report = import_config(yaml_file, tmp_path / "b.json", Credentials())
    assert (report.format, report.imported) == (NANOBOT, ["search"])


def test_whale_mcp_servers_win_on_collision(tmp_path: Path) -> None:
    source = write(
        tmp_path / ".whale" / "mcp.json",
        {
            "servers": {
                "shared": {"command": "from-servers"},
                "only-servers": {"url": "https://a.example/mcp", "transport": "streamable_http", "timeout": 20},
            },
            "mcpServers": {
                " shared ": {"command": "from-mcpServers", "disabled_tools": ["rm"]},
                "  ": {"command": "x"},
            },
        },
    )
    report = import_config(source, tmp_path / "mcp.json", Credentials())
    assert (report.format, sorted(report.imported)) == (WHALE, ["only-servers", "shared"])
    servers = target_servers(tmp_path / "mcp.json")
    assert servers["shared"] == {"command": "from-mcpServers", "excludedTools": ["rm"]}
    assert servers["only-servers"]["transport"] == "streamable-http"
    assert (servers["only-servers"]["timeout"], servers["only-servers"]["startupTimeout"]) == (20, 20)
    loaded = load_mcp_config(tmp_path / "mcp.json")
    assert loaded["shared"].excluded_tools == ["rm"]
    assert loaded["only-servers"].transport == "http"


@pytest.mark.parametrize(
    ("name", "document", "expected"),
    [
        ("claude_desktop_config.json", {"mcpServers": {"a": {"command": "x"}}}, CLAUDE),
        ("mcp.json", {"mcpServers": {"a": {"url": "https://x"}}}, CURSOR),
        ("mcp.json", {"servers": {"a": {"type": "stdio", "command": "x"}}}, VSCODE),
        ("mcp.json", {"servers": {"a": {"command": "x"}}, "mcpServers": {}}, WHALE),
        ("mcp.json", {"servers": {"a": {"command": "x", "transport": "stdio"}}}, WHALE),
        ("servers.json", {"a": {"command": "x"}}, NANOBOT),
    ],
)
def test_detect_format(name: str, document: dict[str, Any], expected: str) -> None:
    assert detect_format(Path("/somewhere") / name, document) == expected


def test_not_an_mcp_config(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="not an MCP configuration"):
        read_source(write(tmp_path / "x.json", {"theme": "dark"}))


# -- merging ------------------------------------------------------------------------------------


def test_conflicts_keep_the_existing_server_unless_replace(tmp_path: Path, memory_keyring: MemoryKeyring) -> None:
    target = write(
        tmp_path / "mcp.json",
        {"mcpServers": {"github": {"command": "mine", "trust": True}}, "keepMe": 1},
    )
    source = write(
        tmp_path / "claude.json",
        {"mcpServers": {"github": {"command": "theirs", "env": {"GITHUB_TOKEN": GH_TOKEN}}, "new": {"command": "n"}}},
    )
    report = import_config(source, target, Credentials())
    assert (report.imported, report.conflicts, report.secrets) == (["new"], ["github"], [])
    assert stored(memory_keyring) == {}  # the conflicting server's secret was not taken
    document = json.loads(target.read_text(encoding="utf-8"))
    assert document["keepMe"] == 1
    assert document["mcpServers"]["github"] == {"command": "mine", "trust": True}

    report = import_config(source, target, Credentials(), replace=True)
    assert (report.imported, report.replaced, report.conflicts) == ([], ["github", "new"], [])
    assert target_servers(target)["github"]["command"] == "theirs"
    assert stored(memory_keyring) == {"mcp:github:GITHUB_TOKEN": GH_TOKEN}


def test_nothing_new_leaves_the_target_untouched(tmp_path: Path) -> None:
    target = write(tmp_path / "mcp.json", {"mcpServers": {"a": {"command": "x"}}})
    before = target.read_bytes()
    report = import_config(write(tmp_path / "s.json", {"mcpServers": {"a": {"command": "y"}}}), target, Credentials())
    assert (report.written, report.conflicts) == (False, ["a"])
    assert target.read_bytes() == before


def test_invalid_entries_are_skipped_with_a_note(tmp_path: Path) -> None:
    source = write(
        tmp_path / "s.json",
        {
            "mcpServers": {
                "empty": {"args": []},
                "list": [1],
                "bad-ref": {"command": "x", "env": {"A": "${"}},
                "ok": {"command": "y"},
            }
        },
    )
    report = import_config(source, tmp_path / "mcp.json", Credentials())
    assert report.imported == ["ok"]
    assert sorted(report.skipped) == ["bad-ref", "empty"]
    assert "empty: skipped, requires either command or url" in report.notes
    assert "list: skipped, the entry is not an object" in report.notes
    assert any(note.startswith("bad-ref: skipped, env.A: unclosed") for note in report.notes)


def test_broken_json_source_has_line_and_column_and_is_not_touched(tmp_path: Path) -> None:
    source = tmp_path / "claude.json"
    source.write_text('{\n  "mcpServers": {\n    "a": {"command": }\n  }\n}\n', encoding="utf-8")
    before = source.read_bytes()
    with pytest.raises(ConfigError) as info:
        import_config(source, tmp_path / "mcp.json", Credentials())
    assert (info.value.path, info.value.line, info.value.column) == (source, 3, 22)
    assert source.read_bytes() == before
    assert not (tmp_path / "mcp.json").exists()


def test_broken_yaml_source_has_line_and_column(tmp_path: Path) -> None:
    source = tmp_path / "mcp-servers.yaml"
    source.write_text("search:\n  url: https://x\n  args: [unclosed\n", encoding="utf-8")
    with pytest.raises(ConfigError) as info:
        import_config(source, tmp_path / "mcp.json", Credentials())
    assert info.value.path == source and info.value.line is not None and info.value.column is not None
    assert str(info.value).startswith(f"{source}:{info.value.line}:{info.value.column}: invalid YAML")


def test_broken_target_is_never_overwritten(tmp_path: Path) -> None:
    target = tmp_path / "mcp.json"
    target.write_text('{"mcpServers": {"a": {"command": 1}}}', encoding="utf-8")
    before = target.read_bytes()
    with pytest.raises(ConfigError, match=r"mcpServers\.a\.command"):
        import_config(write(tmp_path / "s.json", {"mcpServers": {"b": {"command": "x"}}}), target, Credentials())
    assert target.read_bytes() == before


def test_missing_source_file(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="no such file"):
        import_config(tmp_path / "nope.json", tmp_path / "mcp.json", Credentials())


# -- keyring problems ---------------------------------------------------------------------------


class BrokenKeyring(KeyringBackend):
    priority = 1  # type: ignore[assignment]

    def get_password(self, service: str, username: str) -> str | None:
        raise keyring.errors.KeyringError("locked")

    def set_password(self, service: str, username: str, password: str) -> None:
        raise keyring.errors.KeyringError("locked")

    def delete_password(self, service: str, username: str) -> None:
        raise keyring.errors.KeyringError("locked")


class ForgetfulKeyring(BrokenKeyring):
    def get_password(self, service: str, username: str) -> str | None:
        return None

    def set_password(self, service: str, username: str, password: str) -> None:
        return None


@pytest.fixture
def token_source(tmp_path: Path) -> Path:
    return write(tmp_path / "s.json", {"mcpServers": {"gh": {"command": "x", "env": {"GH_TOKEN": GH_TOKEN}}}})


def test_without_a_keyring_the_cli_mode_imports_nothing(
    tmp_path: Path, token_source: Path, caplog: pytest.LogCaptureFixture
) -> None:
    keyring.set_keyring(BrokenKeyring())
    with pytest.raises(CredentialError, match="Nothing was imported"):
        import_config(token_source, tmp_path / "mcp.json", Credentials(), require_keyring=True)
    assert not (tmp_path / "mcp.json").exists()
    report = import_config(token_source, tmp_path / "mcp.json", Credentials())  # in-app: memory for this session
    assert report.written and any("kept in memory for this session only" in note for note in report.notes)
    assert GH_TOKEN not in (tmp_path / "mcp.json").read_text(encoding="utf-8")


def test_a_keyring_that_forgets_is_an_error(tmp_path: Path, token_source: Path) -> None:
    keyring.set_keyring(ForgetfulKeyring())
    with pytest.raises(CredentialError, match=r"did not keep the secret\(s\) mcp:gh:GH_TOKEN"):
        import_config(token_source, tmp_path / "mcp.json", Credentials())
    assert not (tmp_path / "mcp.json").exists()


# -- secret detection ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("key", "value", "header", "secret"),
    [
        ("GITHUB_PERSONAL_ACCESS_TOKEN", GH_TOKEN, False, True),
        ("API_KEY", "abc", False, True),
        ("DB_PASSWORD", "hunter2", False, True),
        ("MY_PASSWD", "x", False, True),
        ("CLIENT_SECRET", "x", False, True),
        ("AWS_CREDENTIALS", "x", False, True),
        ("GITLAB_PAT", "x", False, True),
        ("BASIC_AUTH", "u:p", False, True),
        ("ANYTHING", SK_KEY, False, True),
        ("ANYTHING", "xoxp-1234567890-abcdef", False, True),
        ("ANYTHING", "AKIAABCDEFGHIJKLMNOP", False, True),
        ("ANYTHING", "Q2hhbmdlTWUhV2l0aEFSZWFsS2V5UGxlYXNlMTIz", False, True),
        ("PATH", "/usr/bin:/bin", False, False),
        ("PYTHONPATH", "/opt/lib", False, False),
        ("TZ", "Europe/Oslo", False, False),
        ("API_KEY", "${API_KEY}", False, False),
        ("API_KEY", "", False, False),
        ("AUTH_ENABLED", "true", False, False),
        ("ENDPOINT", "https://api.example.com/v1/very/long/path/indeed", False, False),
        ("Authorization", "Bearer x", True, True),
        ("authorization", "anything", True, True),
        ("Accept", "application/json", True, False),
        ("X-Api-Key", "k", True, True),
    ],
)
def test_is_secret(key: str, value: str, header: bool, secret: bool) -> None:
    assert is_secret(key, value, header=header) is secret


def test_looks_like_token_ignores_ordinary_words() -> None:
    assert not looks_like_token("production")
    assert not looks_like_token("@modelcontextprotocol/server-filesystem")
    assert looks_like_token("eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.c2lnbmF0dXJl")


def test_tokens_in_args_move_to_the_keyring_like_env_values(tmp_path: Path) -> None:
    args = ["-y", "server", "--token", GH_TOKEN, f"--api-key={SK_KEY}", "--password=hunter22x", GH_TOKEN, "--verbose"]
    source = write(tmp_path / "s.json", {"mcpServers": {"a": {"command": "x", "args": args}}})
    credentials = Credentials()
    report = import_config(source, tmp_path / "mcp.json", credentials)
    written = (tmp_path / "mcp.json").read_text(encoding="utf-8")
    assert GH_TOKEN not in written and SK_KEY not in written and "hunter22x" not in written
    saved = json.loads(written)["mcpServers"]["a"]["args"]
    assert saved == [
        "-y",
        "server",
        "--token",
        "${keyring:mcp:a:arg:3}",
        "--api-key=${keyring:mcp:a:arg:4}",
        "--password=${keyring:mcp:a:arg:5}",
        "${keyring:mcp:a:arg:6}",
        "--verbose",
    ]
    assert report.secrets == ["mcp:a:arg:3", "mcp:a:arg:4", "mcp:a:arg:5", "mcp:a:arg:6"]
    assert credentials.get("mcp:a:arg:4") == SK_KEY and credentials.get("mcp:a:arg:5") == "hunter22x"
    assert not any("'args' seem to contain a token" in note for note in report.notes)


def test_docker_style_env_assignments_in_args_keep_their_name(tmp_path: Path) -> None:
    args = ["run", "-e", "API_PASSWORD=hunter22x", "-e", "LOG_LEVEL=debug", "image"]
    source = write(tmp_path / "s.json", {"mcpServers": {"d": {"command": "docker", "args": args}}})
    credentials = Credentials()
    import_config(source, tmp_path / "mcp.json", credentials)
    saved = json.loads((tmp_path / "mcp.json").read_text(encoding="utf-8"))["mcpServers"]["d"]["args"]
    assert saved == ["run", "-e", "API_PASSWORD=${keyring:mcp:d:arg:2}", "-e", "LOG_LEVEL=debug", "image"]
    assert credentials.get("mcp:d:arg:2") == "hunter22x"


def test_args_keyring_references_are_expanded_at_launch(tmp_path: Path) -> None:
    from desktop_app.runtime.host import ServerConfig
    from desktop_app.runtime.host.host import stdio_parameters

    credentials = Credentials()
    credentials.set("mcp:a:arg:1", GH_TOKEN)
    config = ServerConfig(command=sys.executable, args=["-m", "--token=${keyring:mcp:a:arg:1}", "${HOME}"])
    params = stdio_parameters(
        config, name="a", credentials=credentials, search_path=os.defpath, environ={"HOME": "/home/someone"}
    )
    assert params.args == ["-m", f"--token={GH_TOKEN}", "/home/someone"]  # ${VAR} in args expands too (#22)
    missing = ServerConfig(command=sys.executable, args=["${keyring:mcp:a:arg:9}"])
    with pytest.raises(ServerStartError, match=r"args\[0\]: keyring entry 'mcp:a:arg:9'"):
        stdio_parameters(missing, name="a", credentials=credentials, search_path=os.defpath)


# -- the CLI ------------------------------------------------------------------------------------


def test_cli_prints_servers_secret_names_and_conflicts(tmp_path: Path, token_source: Path) -> None:
    home = tmp_path / "cli-home"
    out, err = io.StringIO(), io.StringIO()
    assert cli_main(["import-config", str(token_source), "--home", str(home)], out=out, err=err) == 0
    text = out.getvalue()
    assert "(Claude Desktop)" in text and "  gh\n" in text and "  mcp:gh:GH_TOKEN\n" in text
    assert GH_TOKEN not in text + err.getvalue()
    out = io.StringIO()
    assert cli_main(["import-config", str(token_source), "--home", str(home)], out=out, err=err) == 0
    assert "Conflicts: kept the existing server (use --replace to overwrite):\n  gh\n" in out.getvalue()
    out = io.StringIO()
    assert cli_main(["import-config", str(token_source), "--home", str(home), "--replace"], out=out, err=err) == 0
    assert "Replaced:\n  gh\n" in out.getvalue()


def test_cli_bad_file_exits_2(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('{"mcpServers": ', encoding="utf-8")
    err = io.StringIO()
    assert cli_main(["import-config", str(bad), "--home", str(tmp_path / "h")], out=io.StringIO(), err=err) == 2
    assert f"{bad}:1:16: invalid JSON" in err.getvalue()
