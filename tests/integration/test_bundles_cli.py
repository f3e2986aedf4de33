"""MCP Bundles end to end: packed by the official ``mcpb`` CLI, installed by ``switchboard install``, used by
``switchboard ask`` (the real console scripts) against the loopback LLM.

Each bundle's tool reports the values its server was started with: the directory (and other plain values)
as they are, the sensitive value as its SHA-256. The keyring is a test backend whose file lives outside the
home folder; afterwards no file under the home folder holds the sensitive value. Uninstall removes it all.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import keyring
import pytest

from desktop_app.cli import main as cli_main
from tests.support.file_keyring import FILE_ENV, FileKeyring
from tests.support.llm_server import ScriptedLLMServer, text_reply, tool_call_reply

pytestmark = pytest.mark.integration

REPO = Path(__file__).resolve().parents[2]
SWITCHBOARD = str(Path(sys.executable).parent / "switchboard")


@dataclass
class Done:
    returncode: int
    stdout: str
    stderr: str


@pytest.fixture
def file_keyring(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The test file keyring, in this process and in the ``ask`` child (its file outside the home folder)."""
    path = tmp_path / "keyring.json"
    monkeypatch.setenv(FILE_ENV, str(path))
    keyring.set_keyring(FileKeyring())  # the conftest's memory keyring is put back afterwards
    return path


def switchboard(*args: str) -> Done:
    """``install``/``uninstall`` in this process, through the CLI's real ``main`` (the same code the console
    script runs; ``ask`` below is the real console script)."""
    out, err = io.StringIO(), io.StringIO()
    code = cli_main(list(args), out=out, err=err)
    return Done(code, out.getvalue(), err.getvalue())


def ask(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHON_KEYRING_BACKEND": "tests.support.file_keyring.FileKeyring", "PYTHONPATH": str(REPO)}
    return subprocess.run(
        [SWITCHBOARD, "ask", *args], capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL, env=env
    )


def files_containing(folder: Path, needle: str) -> list[Path]:
    return [p for p in folder.rglob("*") if p.is_file() and needle.encode() in p.read_bytes()]


def tool_results(stdout: str) -> list[dict[str, Any]]:
    events = [json.loads(line) for line in stdout.splitlines() if line.strip()]
    return [e for e in events if e["kind"] == "tool_result"]


@pytest.mark.parametrize(
    ("bundle", "tool", "settings", "secret_key", "expected"),
    [
        (
            "python-probe",
            "mcp__python-probe__probe",
            {"workspace": "ws"},
            "api_key",
            ["runtime=python", "workspace={ws}", "exists=True", "limit=3"],
        ),
        (
            "node-probe",
            "mcp__node-probe__probe",
            {"folders": "ws,ws2", "verbose": "true"},
            "token",
            ["runtime=node", "folders={ws}|{ws2}", "exists=true|true", "verbose=true"],
        ),
    ],
)
def test_install_then_ask_sees_the_configured_values_and_the_secret_stays_in_the_keyring(
    packed_bundles: dict[str, Path],
    llm_server: ScriptedLLMServer,
    tmp_path: Path,
    file_keyring: Path,
    bundle: str,
    tool: str,
    settings: dict[str, str],
    secret_key: str,
    expected: list[str],
) -> None:
    home, keyring_file = tmp_path / "home", file_keyring
    folders = {"ws": tmp_path / "workspace", "ws2": tmp_path / "second"}
    for folder in folders.values():
        folder.mkdir()
    secret = "Sb11-" + hashlib.sha256(bundle.encode()).hexdigest()[:24]
    sets = [f"{key}={','.join(str(folders.get(p, p)) for p in value.split(','))}" for key, value in settings.items()]
    args = ["install", str(packed_bundles[bundle]), "--home", str(home), "--yes", "--set", f"{secret_key}={secret}"]
    for item in sets:
        args += ["--set", item]
    installed = switchboard(*args)
    assert installed.returncode == 0, installed.stderr
    assert f"mcpb:{bundle}:{secret_key}" in installed.stdout

    llm_server.enqueue(tool_call_reply([("call_1", tool, {})]), text_reply("Done."))
    asked = ask("--home", str(home), "--base-url", llm_server.url, "--approve", "always", "--events", "jsonl",
                "Probe it.")  # fmt: skip
    assert asked.returncode == 0, asked.stderr
    [result] = tool_results(asked.stdout)
    text = json.dumps(result)
    assert f"key_sha256={hashlib.sha256(secret.encode()).hexdigest()}" in text
    for piece in expected:
        assert piece.format(**{k: str(v) for k, v in folders.items()}) in text
    assert files_containing(home, secret) == []  # the keyring only
    assert secret in keyring_file.read_text()

    removed = switchboard("uninstall", bundle, "--home", str(home))
    assert removed.returncode == 0, removed.stderr
    assert not (home / "data" / "extensions" / bundle).exists()
    assert bundle not in (home / "config" / "mcp.json").read_text()
    assert bundle not in (home / "config" / "settings.json").read_text()
    assert secret not in keyring_file.read_text()


def test_missing_required_value_under_yes_exits_2_and_installs_nothing(
    packed_bundles: dict[str, Path], tmp_path: Path
) -> None:
    home = tmp_path / "home"
    done = switchboard("install", str(packed_bundles["node-probe"]), "--home", str(home), "--yes")
    assert done.returncode == 2
    assert "needs a value for token (Token), folders (Folders)" in done.stderr
    assert not (home / "data" / "extensions" / "node-probe").exists()
    assert not (home / "config" / "mcp.json").exists()


def test_update_keeps_the_users_values(packed_bundles: dict[str, Path], tmp_path: Path, file_keyring: Path) -> None:
    home, keyring_file = tmp_path / "home", file_keyring
    sets = ["--set", "api_key=Sb11-kept-secret", "--set", f"workspace={tmp_path}", "--set", "limit=7"]
    first = switchboard("install", str(packed_bundles["python-probe"]), "--home", str(home), "--yes", *sets)
    assert first.returncode == 0, first.stderr
    again = switchboard("install", str(packed_bundles["python-probe"]), "--home", str(home), "--yes")
    assert again.returncode == 0, again.stderr
    assert "Updated from 1.0.0 to python-probe 1.0.0" in again.stdout
    record = json.loads((home / "config" / "settings.json").read_text())["extensions"]["python-probe"]
    assert record["user_config"] == {"workspace": str(tmp_path), "limit": 7}
    assert "Sb11-kept-secret" in keyring_file.read_text()
