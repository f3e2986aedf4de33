"""Bundles shaped like the mcpb reference examples start and answer (issue 22 item 8), through the real CLI:
packed by the official ``mcpb`` CLI, installed by ``switchboard install``, used by the ``switchboard ask``
console script against the loopback LLM.

* ``hello-node`` (the hello-world-node shape): every user_config type, an optional sensitive ``api_key`` and an
  optional ``config_file`` left unset, installed and run with no keyring at all;
* ``python-lib``: its package lives in ``server/lib``, on ``PYTHONPATH=${__dirname}/server/lib``;
* ``binary-probe``: the relative command ``server/probe-server`` with ``--config server/config.json``.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import keyring
import keyring.backends.fail
import pytest

from tests.integration.test_bundles_cli import REPO, SWITCHBOARD, switchboard, tool_results
from tests.support.llm_server import ScriptedLLMServer, text_reply, tool_call_reply

pytestmark = pytest.mark.integration


def ask_without_keyring(home: Path, url: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHON_KEYRING_BACKEND": "keyring.backends.fail.Keyring", "PYTHONPATH": str(REPO)}
    args = ["ask", "--home", str(home), "--base-url", url, "--approve", "always", "--events", "jsonl", "Go."]
    return subprocess.run(
        [SWITCHBOARD, *args], capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL, env=env
    )


@pytest.mark.parametrize(
    ("bundle", "tool", "expected"),
    [
        (
            "hello-node",
            "mcp__hello-node__hello",
            [
                "hello from node; args=--verbose=false --max-results=10 --workspace={home}/Documents ",
                "api_key=absent debug=info literal_placeholders=0",
            ],
        ),
        ("python-lib", "mcp__python-lib__greet", ["greeting from the bundled package"]),
        ("binary-probe", "mcp__binary-probe__where", ["configured from server/config.json; cwd={folder}"]),
    ],
)
def test_a_reference_shaped_bundle_installs_starts_and_answers_without_a_keyring(
    packed_bundles: dict[str, Path],
    llm_server: ScriptedLLMServer,
    tmp_path: Path,
    bundle: str,
    tool: str,
    expected: list[str],
) -> None:
    keyring.set_keyring(keyring.backends.fail.Keyring())  # no keyring anywhere; the conftest puts its own back
    home = tmp_path / "home"
    installed = switchboard("install", str(packed_bundles[bundle]), "--home", str(home), "--yes")
    assert installed.returncode == 0, installed.stderr
    llm_server.enqueue(tool_call_reply([("call_1", tool, {})]), text_reply("Done."))
    asked = ask_without_keyring(home, llm_server.url)
    assert asked.returncode == 0, asked.stderr
    [result] = tool_results(asked.stdout)
    text = json.dumps(result)
    folder = home / "data" / "extensions" / bundle
    assert '"is_error": true' not in text, text
    for piece in expected:
        assert piece.format(home=Path.home(), folder=folder) in text, text
