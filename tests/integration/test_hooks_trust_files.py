"""Issue 21 item 6 through the real CLI: a trusted project hook whose script is edited afterwards is "modified"
in `switchboard hooks list` and does not run in `switchboard ask` until trusted again."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.integration.test_hooks_trust import states, switchboard
from tests.support.llm_server import ScriptedLLMServer, text_reply

pytestmark = pytest.mark.integration


def ask(llm: ScriptedLLMServer, home: Path, project: Path) -> None:
    llm.enqueue(text_reply("hi"))
    proc = switchboard(
        "ask", "--base-url", llm.url, "--model", "m", "--approve", "never", "hello", home=home, cwd=project
    )
    assert proc.returncode == 0, proc.stderr


def test_editing_a_trusted_hooks_script_stops_it(llm_server: ScriptedLLMServer, tmp_path: Path) -> None:
    home, project, counter = tmp_path / "home", tmp_path / "project", tmp_path / "ran.txt"
    (project / ".switchboard").mkdir(parents=True)
    (project / "scripts").mkdir()
    script = project / "scripts" / "stop.sh"
    script.write_text(f"echo reviewed >> {counter}\n")
    hooks = {"hooks": {"Stop": [{"command": "sh scripts/stop.sh"}]}}
    (project / ".switchboard" / "hooks.json").write_text(json.dumps(hooks))
    assert switchboard("hooks", "trust", "--all", home=home, cwd=project).returncode == 0
    ask(llm_server, home, project)
    assert counter.read_text().split() == ["reviewed"]

    script.write_text(f"echo unreviewed >> {counter}\n")  # the definition is unchanged; what it runs is not
    assert states(home, project) == ["modified"]
    ask(llm_server, home, project)
    assert counter.read_text().split() == ["reviewed"]  # the edited script never ran
