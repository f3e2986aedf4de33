"""Issue 22 items 9-11 and the import's compatibility report: each source app's variables, secrets in args, URLs
and headers, Goose's extensions, and one line per part of the source. Fixtures follow each app's published
reference: VS Code's MCP configuration reference (servers, inputs, type stdio/http/sse, envFile, dev), Cursor's
MCP docs (${env:NAME}, ${userHome}, ${workspaceFolder}, envFile), Claude Code's .mcp.json (${VAR}, ${VAR:-default}
in command, args, env, url, headers) and Goose's config.yaml extensions (type, cmd, args, envs, env_keys, uri,
headers, enabled, timeout, bundled, display_name)."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path
from typing import Any

import pytest

from desktop_app.runtime.credentials import Credentials
from desktop_app.runtime.host.config import load_mcp_config
from desktop_app.runtime.host.import_compat import FORMAT_SUPPORT, support_markdown
from desktop_app.runtime.host.import_preview import known_locations, preview_import
from desktop_app.runtime.host.importers import CLAUDE_CODE, CURSOR, GOOSE, VSCODE, import_config
from tests.conftest import MemoryKeyring

GH_TOKEN = "ghp_" + "Z9y8X7w6V5u4T3s2R1q0P9o8N7m6L5k4J3i2"
PG_PASSWORD = "s3cr3t-Pg-pass"
BEARER = "Bearer " + "mR4nd0mT0k3nV4lu3F0rR3m0t3"
REPO = Path(__file__).resolve().parents[4]


def stored(backend: MemoryKeyring) -> dict[str, str]:
    return {name: value for (service, name), value in backend.store.items() if service == "switchboard"}


def lines_of(report: Any) -> dict[tuple[str, str], Any]:
    return {(line.server, line.part): line for line in report.lines}


def vscode_workspace(root: Path) -> Path:
    (root / ".vscode").mkdir(parents=True)
    (root / ".env").write_text(
        '# loaded by envFile\nexport DB_HOST=db.internal\nSTRIPE_API_KEY="sk_live_'
        + "4eC39HqLyjWDarjtT1zdp7dc"
        + '"\n',
        encoding="utf-8",
    )
    source = root / ".vscode" / "mcp.json"
    source.write_text(
        textwrap.dedent(
            """\
            {
              // VS Code's reference: "inputs" for sensitive values, predefined variables, envFile, dev
              "inputs": [
                {"type": "promptString", "id": "api-key", "description": "Perplexity API Key", "password": true},
                {"type": "promptString", "id": "region", "description": "Region", "default": "eu-west-1"},
                {"type": "pickString", "id": "unused", "options": ["a", "b"], "default": "a"}
              ],
              "servers": {
                "perplexity": {
                  "type": "stdio",
                  "command": "npx",
                  "args": ["-y", "server-perplexity-ask", "--root", "${workspaceFolder}",
                           "--region", "${input:region}"],
                  "env": {"PERPLEXITY_API_KEY": "${input:api-key}", "HOME_DIR": "${userHome}", "LANG": "${env:LANG}"},
                  "envFile": "${workspaceFolder}/.env",
                  "dev": {"watch": "src/**/*.ts", "debug": {"type": "node"}}
                },
                "github": {
                  "type": "http",
                  "url": "https://api.githubcopilot.com/mcp/",
                  "headers": {"Authorization": "Bearer ${input:api-key}"}
                },
                "legacy": {"type": "sse", "url": "http://localhost:3000/sse"},
                "editor": {"command": "node", "args": ["${command:pickFile}"]}
              }
            }
            """
        ),
        encoding="utf-8",
    )
    return source


def test_vscode_inputs_predefined_variables_envfile_and_dev(tmp_path: Path, memory_keyring: MemoryKeyring) -> None:
    source = vscode_workspace(tmp_path / "project")
    target = tmp_path / "sb" / "mcp.json"
    report = import_config(source, target, Credentials())

    assert report.format == VSCODE
    assert report.imported == ["perplexity", "github", "legacy"] and report.skipped == ["editor"]
    servers = json.loads(target.read_text(encoding="utf-8"))["mcpServers"]
    root = str((tmp_path / "project").resolve())
    perplexity = servers["perplexity"]
    assert perplexity["args"] == ["-y", "server-perplexity-ask", "--root", root, "--region", "eu-west-1"]
    assert perplexity["env"]["PERPLEXITY_API_KEY"] == "${keyring:mcp:perplexity:PERPLEXITY_API_KEY}"
    assert perplexity["env"]["HOME_DIR"] == str(Path.home()) and perplexity["env"]["LANG"] == "${LANG}"
    assert perplexity["env"]["DB_HOST"] == "db.internal"  # from envFile
    assert perplexity["env"]["STRIPE_API_KEY"] == "${keyring:mcp:perplexity:STRIPE_API_KEY}"  # envFile secret moved
    assert "sk_live_" not in target.read_text(encoding="utf-8")
    assert "dev" not in perplexity and "envFile" not in perplexity
    assert servers["github"]["headers"] == {"Authorization": "Bearer ${keyring:mcp:github:input:api-key}"}
    assert report.to_enter == ["mcp:perplexity:PERPLEXITY_API_KEY", "mcp:github:input:api-key"]
    assert stored(memory_keyring) == {"mcp:perplexity:STRIPE_API_KEY": "sk_live_" + "4eC39HqLyjWDarjtT1zdp7dc"}

    lines = lines_of(report)
    assert lines[("perplexity", "env PERPLEXITY_API_KEY")].status == "translated"
    assert "Enter secret…" in lines[("perplexity", "env PERPLEXITY_API_KEY")].detail
    assert "its default 'eu-west-1'" in lines[("perplexity", "argument 6")].detail
    assert lines[("perplexity", "dev")].status == "not available"
    assert lines[("perplexity", "envFile")].status == "translated"
    assert "${command:pickFile}" in lines[("editor", "server")].detail
    assert lines[("", "input unused")].status == "works"
    assert lines[("legacy", "type")].status == "works"
    assert sorted(load_mcp_config(target)) == ["github", "legacy", "perplexity"]


def test_a_user_wide_file_has_no_workspace_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    source = tmp_path / ".cursor" / "mcp.json"
    source.parent.mkdir()
    source.write_text(
        json.dumps(
            {
                "mcpServers": {
                    "files": {"command": "npx", "args": ["-y", "server-filesystem", "${workspaceFolder}"]},
                    "docs": {
                        "url": "https://docs.example.com/mcp",
                        "headers": {"Authorization": "Bearer ${env:DOCS_TOKEN}"},
                    },
                    "home": {"command": "node", "args": ["${userHome}${pathSeparator}srv.js"]},
                }
            }
        ),
        encoding="utf-8",
    )
    preview = preview_import(source, tmp_path / "sb" / "mcp.json")
    assert preview.format == CURSOR
    problems = {server.name: server.problem for server in preview.servers}
    assert problems["files"] is not None and "belongs to no workspace folder" in problems["files"]
    assert problems["docs"] is None and problems["home"] is None
    lines = lines_of(preview)
    assert lines[("docs", "header Authorization")].detail.startswith("${env:DOCS_TOKEN} → ${DOCS_TOKEN}")
    home = next(server for server in preview.servers if server.name == "home")
    assert home.summary == f"node {tmp_path}{'/' if '/' in str(tmp_path) else chr(92)}srv.js"


def test_claude_code_variables_work_and_unknown_fields_are_said(tmp_path: Path) -> None:
    source = tmp_path / ".mcp.json"
    source.write_text(
        json.dumps(
            {
                "mcpServers": {
                    "api": {
                        "type": "http",
                        "url": "${API_BASE_URL:-https://api.example.com}/mcp",
                        "headers": {"Authorization": "Bearer ${API_KEY}"},
                        "headersHelper": "/opt/bin/get-headers.sh",
                    },
                    "db": {"command": "npx", "args": ["-y", "db-server", "--port", "${PORT:-5432}"]},
                }
            }
        ),
        encoding="utf-8",
    )
    report = import_config(source, tmp_path / "mcp.json", Credentials())
    assert report.format == CLAUDE_CODE and report.imported == ["api", "db"]
    servers = json.loads((tmp_path / "mcp.json").read_text(encoding="utf-8"))["mcpServers"]
    assert servers["api"]["url"] == "${API_BASE_URL:-https://api.example.com}/mcp"
    assert "headersHelper" not in servers["api"]
    lines = lines_of(report)
    assert lines[("api", "url")].status == "works" and lines[("db", "argument 4")].status == "works"
    assert lines[("api", "headersHelper")].status == "not available"


def test_secrets_in_args_urls_and_headers_move_to_the_keyring(tmp_path: Path, memory_keyring: MemoryKeyring) -> None:
    source = tmp_path / "claude_desktop_config.json"
    source.write_text(
        json.dumps(
            {
                "mcpServers": {
                    "postgres": {
                        "command": "npx",
                        "args": [
                            "-y",
                            "@modelcontextprotocol/server-postgres",
                            f"postgresql://app:{PG_PASSWORD}@db/shop",
                        ],
                    },
                    "remote": {
                        "command": "npx",
                        "args": ["mcp-remote", "https://mcp.example.com/sse", "--header", f"Authorization: {BEARER}"],
                    },
                    "keyed": {"command": "npx", "args": ["mcp-remote", f"https://h.example.com/mcp?token={GH_TOKEN}"]},
                }
            }
        ),
        encoding="utf-8",
    )
    target = tmp_path / "mcp.json"
    report = import_config(source, target, Credentials())
    text = target.read_text(encoding="utf-8")
    assert PG_PASSWORD not in text and BEARER not in text and GH_TOKEN not in text
    servers = json.loads(text)["mcpServers"]
    assert servers["postgres"]["args"][2] == "postgresql://app:${keyring:mcp:postgres:arg:2:password}@db/shop"
    assert servers["remote"]["args"][3] == "Authorization: ${keyring:mcp:remote:arg:3}"
    assert servers["keyed"]["args"][1] == "https://h.example.com/mcp?token=${keyring:mcp:keyed:arg:1:query:token}"
    assert stored(memory_keyring) == {
        "mcp:postgres:arg:2:password": PG_PASSWORD,
        "mcp:remote:arg:3": BEARER,
        "mcp:keyed:arg:1:query:token": GH_TOKEN,
    }
    lines = lines_of(report)
    assert "keyring entry mcp:postgres:arg:2:password" in lines[("postgres", "argument 3 (password)")].detail
    assert lines[("remote", "argument 4")].status == "translated"


def goose_config(root: Path) -> Path:
    path = root / ".config" / "goose" / "config.yaml"
    path.parent.mkdir(parents=True)
    path.write_text(
        textwrap.dedent(
            """\
            active_provider: anthropic
            GOOSE_MODE: smart_approve
            extensions:
              developer:
                bundled: true
                enabled: true
                name: developer
                timeout: 300
                type: builtin
              computercontroller:
                type: platform
                name: computercontroller
                display_name: Computer Controller
                enabled: true
                bundled: true
              github:
                type: stdio
                name: github
                display_name: GitHub
                enabled: true
                cmd: npx
                args: ["-y", "@modelcontextprotocol/server-github"]
                env_keys: ["GITHUB_PERSONAL_ACCESS_TOKEN"]
                envs: {LOG_LEVEL: debug}
                timeout: 300
                available_tools: [search_repositories]
              remote-tools:
                type: streamable_http
                name: remote-tools
                enabled: false
                uri: "https://example.com/mcp"
                headers: {X-Api-Key: "k-4f9a8b7c6d5e4f3a2b1c"}
                env_keys: []
                envs: {}
                timeout: 120
            """
        ),
        encoding="utf-8",
    )
    return path


def test_goose_extensions_import(tmp_path: Path, memory_keyring: MemoryKeyring) -> None:
    source = goose_config(tmp_path)
    target = tmp_path / "sb" / "mcp.json"
    report = import_config(source, target, Credentials())
    assert report.format == GOOSE
    assert report.imported == ["github", "remote-tools"]
    assert report.skipped == ["developer", "computercontroller"]
    servers = json.loads(target.read_text(encoding="utf-8"))["mcpServers"]
    assert servers["github"] == {
        "command": "npx",
        "args": ["-y", "@modelcontextprotocol/server-github"],
        "env": {
            "LOG_LEVEL": "debug",
            "GITHUB_PERSONAL_ACCESS_TOKEN": "${keyring:mcp:github:GITHUB_PERSONAL_ACCESS_TOKEN}",
        },
        "timeout": 300,
        "startupTimeout": 300,
    }
    assert servers["remote-tools"] == {
        "type": "http",
        "url": "https://example.com/mcp",
        "headers": {"X-Api-Key": "${keyring:mcp:remote-tools:header:X-Api-Key}"},
        "disabled": True,
        "timeout": 120,
        "startupTimeout": 120,
    }
    assert report.to_enter == ["mcp:github:GITHUB_PERSONAL_ACCESS_TOKEN"]
    lines = lines_of(report)
    assert lines[("developer", "type")].status == "not available"
    assert lines[("github", "available_tools")].status == "not available"
    assert lines[("", "settings")].status == "not available"
    config = load_mcp_config(target)
    assert config["remote-tools"].disabled and config["remote-tools"].transport == "http"


def test_goose_is_a_known_location(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / ".config"))
    monkeypatch.setenv("APPDATA", str(tmp_path / "AppData"))
    goose = [source for source in known_locations() if source.app == GOOSE]
    assert len(goose) == 1 and goose[0].path.name == "config.yaml" and "goose" in str(goose[0].path)


def test_every_field_of_every_server_has_a_line(tmp_path: Path) -> None:
    sources = [vscode_workspace(tmp_path / "v"), goose_config(tmp_path / "g")]
    for source in sources:
        preview = preview_import(source, tmp_path / "mcp.json")
        document = (
            json.loads(json.dumps(__import__("yaml").safe_load(source.read_text())))
            if source.suffix == ".yaml"
            else None
        )
        raw = (
            document["extensions"]
            if document
            else {
                "perplexity": {"type": 1, "command": 1, "args": 1, "env": 1, "envFile": 1, "dev": 1},
                "github": {"type": 1, "url": 1, "headers": 1},
                "legacy": {"type": 1, "url": 1},
            }
        )
        reported = {(line.server, line.part.split(" ", 1)[0]) for line in preview.lines}
        for server, entry in raw.items():
            if server in {"developer", "computercontroller"}:
                assert (server, "type") in reported
                continue
            for field in entry:
                assert (server, field) in reported, (source.name, server, field)


def test_the_guide_table_comes_from_the_report_table() -> None:
    readme = (REPO / "docs" / "import.md").read_text(encoding="utf-8")
    assert support_markdown() in readme
    assert set(FORMAT_SUPPORT) >= {"Claude Desktop", "Claude Code (.mcp.json)", "Cursor", "VS Code", "Goose"}
