"""Issue 21 item 2: every env entry, header and secret reference is shown before a server runs (import preview,
``switchboard import-config``, the plugin screens); a secret's value never is."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

from desktop_app.cli import main as cli_main
from desktop_app.runtime.host.import_preview import preview_import
from desktop_app.runtime.host.launch_view import environment_lines

ENTRY = {
    "command": "npx",
    "args": ["srv", "--key=${keyring:api-key:https://api.openai.com/v1}"],
    "env": {
        "GITHUB_TOKEN": "ghp_abcdefghijklmnopqrstuvwxyz0123",
        "REGION": "eu\x1b[2K",
        "MINE": "${keyring:mcp:gh:TOKEN}",
        "HOME_DIR": "${HOME}",
    },
    "headers": {"Authorization": "Bearer ${keyring:serve-token}"},
}


def test_every_entry_is_described_and_no_secret_value_is_shown() -> None:
    lines = environment_lines("gh", ENTRY)
    assert "env GITHUB_TOKEN = a secret value (34 characters)" in lines
    assert "env REGION = 'eu\\x1b[2K'" in lines  # a control character cannot hide what follows
    assert "env MINE = keyring entry mcp:gh:TOKEN" in lines
    assert "env HOME_DIR = ${HOME} from your environment" in lines
    assert (
        "header Authorization = keyring entry serve-token (not this server's: refused when it starts) "
        "with text 'Bearer'" in lines
    )
    assert (
        "argument 2 = keyring entry api-key:https://api.openai.com/v1 (not this server's: refused when it starts) "
        "with text '--key='" in lines
    )
    assert "ghp_abcdef" not in "\n".join(lines)


def test_the_import_preview_lists_the_environment(tmp_path: Path) -> None:
    source = tmp_path / "claude_desktop_config.json"
    source.write_text(json.dumps({"mcpServers": {"gh": ENTRY}}), encoding="utf-8")
    [server] = preview_import(source, tmp_path / "mcp.json").servers
    moved = {**ENTRY, "env": {**ENTRY["env"], "GITHUB_TOKEN": "${keyring:mcp:gh:GITHUB_TOKEN}"}}
    assert server.environment == environment_lines("gh", moved)  # as it will be written: the secret moved


def test_import_config_prints_what_each_server_will_be_handed(tmp_path: Path, memory_keyring: Any) -> None:
    source = tmp_path / "claude_desktop_config.json"
    source.write_text(json.dumps({"mcpServers": {"gh": ENTRY}}), encoding="utf-8")
    out, err = io.StringIO(), io.StringIO()
    assert cli_main(["import-config", str(source), "--home", str(tmp_path / "home")], out=out, err=err) == 0, (
        err.getvalue()
    )
    text = out.getvalue()
    assert "gh will start with:" in text
    assert "  env GITHUB_TOKEN = keyring entry mcp:gh:GITHUB_TOKEN\n" in text  # moved by the import
    assert "env HOME_DIR = ${HOME} from your environment" in text
    assert "keyring entry serve-token (not this server's: refused when it starts)" in text
    assert "ghp_abcdef" not in text
