"""`switchboard import-config` moves an API token into the keyring, and a started server still gets it.

The import runs through the real console script with ``--home``; its keyring is a test backend
(:mod:`tests.support.file_keyring`) whose file lives outside the home folder. Afterwards no file
under the home folder may contain the token, and a stdio server started from the imported
``mcp.json`` receives the token through the ``${keyring:…}`` reference.
"""

from __future__ import annotations

import json
import os
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import anyio
import keyring
import pytest

from desktop_app.runtime.host import Host, load_mcp_config
from desktop_app.runtime.host.environment import set_login_shell_path
from tests.support.file_keyring import FILE_ENV, FileKeyring

pytestmark = pytest.mark.integration

REPO = Path(__file__).resolve().parents[2]
TOKEN = "ghp_" + "Sb7TestTokenK3epOutOfFiles0nDisk9Xy"
VAR = "GITHUB_PERSONAL_ACCESS_TOKEN"
SERVER = textwrap.dedent(
    """
    import os

    from mcp.server.mcpserver import MCPServer

    server = MCPServer("secretive", log_level="WARNING")

    @server.tool()
    def reveal(name: str) -> str:
        return os.environ.get(name, "<unset>")

    server.run()
    """
)


@pytest.fixture
def no_login_shell() -> Iterator[None]:
    set_login_shell_path(lambda: os.environ.get("PATH", os.defpath))
    yield
    set_login_shell_path(None)


def files_containing(folder: Path, needle: str) -> list[Path]:
    return [path for path in folder.rglob("*") if path.is_file() and needle.encode() in path.read_bytes()]


@pytest.mark.asyncio
async def test_imported_token_lives_only_in_the_keyring_and_reaches_the_server(
    tmp_path: Path, no_login_shell: None
) -> None:
    home = tmp_path / "sb-home"
    keyring_file = tmp_path / "keyring-outside-home" / "secrets.json"
    keyring_file.parent.mkdir()
    script = tmp_path / "secretive.py"
    script.write_text(SERVER, encoding="utf-8")
    source = tmp_path / "claude_desktop_config.json"
    source.write_text(
        json.dumps(
            {"mcpServers": {"secretive": {"command": sys.executable, "args": [str(script)], "env": {VAR: TOKEN}}}}
        ),
        encoding="utf-8",
    )
    console_script = Path(sys.executable).parent / "switchboard"
    env = {
        **os.environ,
        "PYTHON_KEYRING_BACKEND": "tests.support.file_keyring.FileKeyring",
        FILE_ENV: str(keyring_file),
        "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")])),
    }
    env.pop("SWITCHBOARD_HOME", None)

    done = await anyio.run_process(
        [str(console_script), "import-config", str(source), "--home", str(home)], env=env, check=False
    )

    stdout, stderr = done.stdout.decode(), done.stderr.decode()
    assert done.returncode == 0, stderr
    assert f"mcp:secretive:{VAR}" in stdout
    assert TOKEN not in stdout + stderr
    assert home.is_dir() and any(path.is_file() for path in home.rglob("*"))
    assert files_containing(home, TOKEN) == []
    mcp_json = home / "config" / "mcp.json"
    servers = json.loads(mcp_json.read_text(encoding="utf-8"))["mcpServers"]
    assert servers["secretive"]["env"] == {VAR: f"${{keyring:mcp:secretive:{VAR}}}"}
    assert TOKEN in keyring_file.read_text(encoding="utf-8")  # the secret went to the (test) keyring

    keyring.set_keyring(FileKeyring(keyring_file))  # the memory_keyring fixture restores the old one
    host = Host(load_mcp_config(mcp_json), call_timeout=30, startup_timeout=30)
    try:
        await host.start()
        assert host.states()["secretive"].state == "ready", host.states()["secretive"].error
        outcome = await host.call("secretive", "reveal", {"name": VAR})
    finally:
        await host.aclose()
    assert not outcome.is_error, outcome.text
    assert outcome.text == TOKEN
    assert files_containing(home, TOKEN) == []


PG_PASSWORD = "Pg-s3cret-" + "passw0rd"
BEARER_TOKEN = "mR4nd0mT0k3n" + "V4lu3F0rR3m0t3"


@pytest.mark.asyncio
async def test_import_config_moves_arg_secrets_and_reports_every_part_through_the_cli(tmp_path: Path) -> None:
    """Issue 22 items 10 and 11 and the report, through the real console script: --dry-run --json changes
    nothing and shows one line per part; the import moves a Postgres URL's password and mcp-remote's bearer
    header out of mcp.json; a Goose config imports."""
    home = tmp_path / "sb-home"
    keyring_file = tmp_path / "keyring-outside-home" / "secrets.json"
    keyring_file.parent.mkdir()
    source = tmp_path / "claude_desktop_config.json"
    source.write_text(
        json.dumps(
            {
                "mcpServers": {
                    "postgres": {
                        "command": "npx",
                        "args": ["-y", "server-postgres", f"postgresql://app:{PG_PASSWORD}@db/x"],
                    },
                    "remote": {
                        "command": "npx",
                        "args": [
                            "mcp-remote",
                            "https://mcp.example.com/sse",
                            "--header",
                            f"Authorization: Bearer {BEARER_TOKEN}",
                        ],
                    },
                }
            }
        ),
        encoding="utf-8",
    )
    goose = tmp_path / "goose" / "config.yaml"
    goose.parent.mkdir()
    goose.write_text(
        "extensions:\n  developer: {type: builtin, name: developer, enabled: true, bundled: true, timeout: 300}\n"
        "  fetch: {type: stdio, name: fetch, cmd: uvx, args: [mcp-server-fetch], enabled: false, envs: {}, "
        "env_keys: [FETCH_TOKEN], timeout: 60}\n",
        encoding="utf-8",
    )
    console_script = Path(sys.executable).parent / "switchboard"
    env = {
        **os.environ,
        "PYTHON_KEYRING_BACKEND": "tests.support.file_keyring.FileKeyring",
        FILE_ENV: str(keyring_file),
        "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")])),
    }
    env.pop("SWITCHBOARD_HOME", None)

    async def run(*args: str) -> tuple[int, str, str]:
        done = await anyio.run_process(
            [str(console_script), "import-config", *args, "--home", str(home)], env=env, check=False
        )
        return done.returncode, done.stdout.decode(), done.stderr.decode()

    code, stdout, stderr = await run(str(source), "--dry-run", "--json")
    assert code == 0, stderr
    preview = json.loads(stdout)
    assert preview["dry_run"] is True and preview["format"] == "Claude Desktop"
    parts = {(line["server"], line["part"]): line["status"] for line in preview["lines"]}
    assert parts[("postgres", "argument 3 (password)")] == "translated"
    assert parts[("remote", "argument 4")] == "translated"
    assert PG_PASSWORD not in stdout + stderr and BEARER_TOKEN not in stdout + stderr
    assert not (home / "config" / "mcp.json").exists() and not keyring_file.exists()  # --dry-run changed nothing

    code, stdout, stderr = await run(str(source))
    assert code == 0, stderr
    assert "[translated] postgres: argument 3 (password)" in stdout
    assert PG_PASSWORD not in stdout + stderr and BEARER_TOKEN not in stdout + stderr
    assert files_containing(home, PG_PASSWORD) == [] and files_containing(home, BEARER_TOKEN) == []
    assert PG_PASSWORD in keyring_file.read_text(encoding="utf-8")

    code, stdout, stderr = await run(str(goose), "--json")
    assert code == 0, stderr
    report = json.loads(stdout)
    assert (report["format"], report["imported"], report["skipped"]) == ("Goose", ["fetch"], ["developer"])
    assert report["to_enter"] == ["mcp:fetch:FETCH_TOKEN"]
    servers = json.loads((home / "config" / "mcp.json").read_text(encoding="utf-8"))["mcpServers"]
    assert servers["fetch"]["disabled"] is True and servers["fetch"]["env"] == {
        "FETCH_TOKEN": "${keyring:mcp:fetch:FETCH_TOKEN}"
    }
