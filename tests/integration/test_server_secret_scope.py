"""Issue 21 items 2 and 3 through the real ``switchboard ask``: a server entry cannot ask for the provider key
(by ``${VAR}`` or ``${keyring:api-key:…}``), and a server that starts sees none of our environment but the
minimal one plus what its entry declares."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tests.support.file_keyring import FILE_ENV
from tests.support.llm_server import ScriptedLLMServer, text_reply, tool_call_reply

pytestmark = pytest.mark.integration

REPO = Path(__file__).resolve().parents[2]
SWITCHBOARD = str(Path(sys.executable).parent / "switchboard")
PROVIDER_KEY = "sk-" + "ScopeTestProviderKey4f8Hq2Xv9"
EXPORTED_SECRET = "exported-" + "UserSecret8Jd2Lq0"
ENV_SERVER = textwrap.dedent(
    """
    import json, os
    from mcp.server.mcpserver import MCPServer

    server = MCPServer("peek", log_level="WARNING")

    @server.tool()
    def environment() -> str:
        return json.dumps(dict(os.environ))

    server.run()
    """
)


def test_servers_get_neither_the_provider_key_nor_our_environment(
    llm_server: ScriptedLLMServer, tmp_path: Path
) -> None:
    home = tmp_path / "home"
    keyring_file = tmp_path / "keyring.json"
    keyring_file.write_text(
        json.dumps({f"switchboard\0api-key:{llm_server.url}": PROVIDER_KEY, "switchboard\0serve-token": "t" * 40}),
        encoding="utf-8",
    )
    script = tmp_path / "peek.py"
    script.write_text(ENV_SERVER, encoding="utf-8")
    mcp = tmp_path / "mcp.json"
    mcp.write_text(
        json.dumps(
            {
                "mcpServers": {
                    "peek": {"command": sys.executable, "args": [str(script)], "env": {"DECLARED": "visible"}},
                    "by-variable": {"command": sys.executable, "args": [str(script)], "env": {"K": "${SCOPE_KEY}"}},
                    "by-keyring": {
                        "command": sys.executable,
                        "args": [str(script)],
                        "env": {"K": "${keyring:api-key:" + llm_server.url + "}"},
                    },
                    "by-token": {
                        "command": sys.executable,
                        "args": [str(script)],
                        "env": {"K": "${keyring:serve-token}"},
                    },
                }
            }
        ),
        encoding="utf-8",
    )
    llm_server.enqueue(tool_call_reply([("c1", "mcp__peek__environment", {})]), text_reply("done"))
    env = {
        **os.environ,
        "PYTHON_KEYRING_BACKEND": "tests.support.file_keyring.FileKeyring",
        FILE_ENV: str(keyring_file),
        "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")])),
        "SCOPE_KEY": PROVIDER_KEY,
        "MY_EXPORTED_TOKEN": EXPORTED_SECRET,
    }
    env.pop("SWITCHBOARD_HOME", None)
    asked = subprocess.run(
        [
            *(SWITCHBOARD, "ask", "--home", str(home), "--base-url", llm_server.url, "--model", "m"),
            *("--api-key-env", "SCOPE_KEY", "--mcp-config", str(mcp), "--approve", "always", "--events", "jsonl", "go"),
        ],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
        stdin=subprocess.DEVNULL,
    )
    assert asked.returncode == 0, asked.stderr
    [result] = [json.loads(line) for line in asked.stdout.splitlines() if '"tool_result"' in line]
    seen = json.loads(result["text"])
    assert seen["DECLARED"] == "visible" and "PATH" in seen and "HOME" in seen
    assert "SCOPE_KEY" not in seen and "MY_EXPORTED_TOKEN" not in seen and FILE_ENV not in seen
    sent = json.dumps([request.json for request in llm_server.requests])
    assert PROVIDER_KEY not in sent and EXPORTED_SECRET not in sent
    # The three thieves never started; each says why, naming what it asked for.
    assert "'SCOPE_KEY' holds Switchboard's own provider key" in asked.stderr
    lines = {line.split("'")[1]: line for line in asked.stderr.splitlines() if "failed to start" in line}
    assert "keyring entry 'api-key:" in lines["by-keyring"] and "does not belong to this server" in lines["by-keyring"]
    assert "keyring entry 'serve-token' does not belong to this server" in lines["by-token"]
    assert "'SCOPE_KEY' holds Switchboard's own provider key" in lines["by-variable"]
    assert PROVIDER_KEY not in asked.stdout + asked.stderr
