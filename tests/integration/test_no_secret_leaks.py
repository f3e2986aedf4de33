"""Issue 8 acceptance: a full session never writes a secret to the home folder, the log, stdout or stderr.

The session is hostile on purpose: the provider key comes from the environment with a trailing CR (as
when read from a file), the provider answers 401 with a body that echoes the key, and the imported MCP
server's token sits in its ``args`` (``--token=…``); the server prints that token to stderr and returns
it in a tool error. Everything runs through the real ``switchboard`` console script.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tests.support.file_keyring import FILE_ENV
from tests.support.llm_server import ScriptedLLMServer, error_reply, tool_call_reply

pytestmark = pytest.mark.integration

REPO = Path(__file__).resolve().parents[2]
SWITCHBOARD = str(Path(sys.executable).parent / "switchboard")
PROVIDER_KEY = "sk-" + "LeakTestProviderKey7e3Q9zW1xV5"
ARG_TOKEN = "ghp_" + "ArgTokenNeverOnDisk42Kq8Lm3Np6Rs"
SERVER = textwrap.dedent(
    """
    import sys

    from mcp.server.mcpserver import MCPServer
    from mcp.server.mcpserver.exceptions import ToolError

    token = next(a.split("=", 1)[1] for a in sys.argv if a.startswith("--token="))
    print(f"starting with token {token}", file=sys.stderr, flush=True)
    server = MCPServer("leaky", log_level="WARNING")

    @server.tool()
    def whoami() -> str:
        raise ToolError(f"token {token} was refused upstream")

    server.run()
    """
)


def occurrences(text: str) -> list[str]:
    return [secret for secret in (PROVIDER_KEY, ARG_TOKEN) if secret in text]


def files_with_secrets(folder: Path) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for path in folder.rglob("*"):
        if path.is_file():
            hits = occurrences(path.read_bytes().decode("utf-8", errors="replace"))
            if hits:
                found[str(path.relative_to(folder))] = hits
    return found


def test_a_hostile_session_leaves_no_secret_on_disk_in_the_log_or_on_the_terminal(
    llm_server: ScriptedLLMServer, tmp_path: Path
) -> None:
    home = tmp_path / "sb-home"
    keyring_file = tmp_path / "keyring-outside-home" / "secrets.json"
    keyring_file.parent.mkdir()
    script = tmp_path / "leaky.py"
    script.write_text(SERVER, encoding="utf-8")
    source = tmp_path / "claude_desktop_config.json"
    source.write_text(
        json.dumps(
            {"mcpServers": {"leaky": {"command": sys.executable, "args": [str(script), f"--token={ARG_TOKEN}"]}}}
        ),
        encoding="utf-8",
    )
    env = {
        **os.environ,
        "PYTHON_KEYRING_BACKEND": "tests.support.file_keyring.FileKeyring",
        FILE_ENV: str(keyring_file),
        "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")])),
        "LEAK_TEST_KEY": PROVIDER_KEY + "\r",
    }
    env.pop("SWITCHBOARD_HOME", None)

    imported = subprocess.run(
        [SWITCHBOARD, "import-config", str(source), "--home", str(home)],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
    )
    assert imported.returncode == 0, imported.stderr
    assert "mcp:leaky:arg:1" in imported.stdout
    assert ARG_TOKEN in keyring_file.read_text(encoding="utf-8")  # moved to the keyring, not dropped

    llm_server.enqueue(
        tool_call_reply([("call_1", "mcp__leaky__whoami", {})]),
        error_reply(401, {"error": {"message": f"Incorrect API key provided: {PROVIDER_KEY}\r", "type": "auth"}}),
    )
    asked = subprocess.run(
        [
            SWITCHBOARD,
            "ask",
            "--home",
            str(home),
            "--base-url",
            llm_server.url,
            "--model",
            "m",
            "--api-key-env",
            "LEAK_TEST_KEY",
            "--approve",
            "always",
            "who am I?",
        ],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
        stdin=subprocess.DEVNULL,
    )

    assert asked.returncode == 1, asked.stderr
    # The session really did what it claims: the trimmed key was sent, the tool failed with the token in
    # its error (the model saw it), and the 401 was reported.
    assert [r.headers.get("authorization") for r in llm_server.requests] == [f"Bearer {PROVIDER_KEY}"] * 2
    tool_result = llm_server.requests[1].json["messages"][-1]
    assert tool_result["role"] == "tool" and ARG_TOKEN in tool_result["content"]
    assert "HTTP 401" in asked.stderr and "[redacted]" in asked.stderr

    logs = list((home).rglob("*.log"))
    assert logs and any(path.stat().st_size for path in logs)  # the log is among the files grepped below
    assert occurrences(imported.stdout) == [] and occurrences(imported.stderr) == []
    assert occurrences(asked.stdout) == []
    assert occurrences(asked.stderr) == []
    assert files_with_secrets(home) == {}
