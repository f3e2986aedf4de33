"""``switchboard workflows`` as a real process against the loopback model: ``list`` names the broken file by
path:line and field, ``run`` walks the steps (one model request each, the step text filled in), shows each
step's state on stderr, prints the Output, and refuses a broken workflow without a single request."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from desktop_app.runtime import events as ev
from desktop_app.runtime.events import parse_event
from tests.support.llm_server import ScriptedLLMServer, text_reply

SWITCHBOARD = str(Path(sys.executable).parent / "switchboard")
FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "workflows"


def switchboard(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHON_KEYRING_BACKEND": "keyring.backends.null.Keyring"}
    return subprocess.run(
        [SWITCHBOARD, *args], capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL, env=env, cwd=cwd
    )


@pytest.mark.integration
def test_workflows_list_and_run_through_the_cli(llm_server: ScriptedLLMServer, tmp_path: Path) -> None:
    project, home = tmp_path / "project", tmp_path / "home"
    shutil.copytree(FIXTURES / "good" / "safe-fix", project / "workflows" / "safe-fix")
    shutil.copytree(FIXTURES / "broken" / "bad-condition", project / "workflows" / "bad-condition")

    listed = switchboard("workflows", "list", "--json", "--home", str(home), cwd=project)
    assert listed.returncode == 0, listed.stderr
    data = json.loads(listed.stdout)
    assert [w["name"] for w in data["workflows"]] == ["safe-fix"]
    assert data["workflows"][0]["inputs"][0] == {
        "name": "issue",
        "required": True,
        "description": "The bug report to work on.",
        "default": None,
    }
    assert data["broken"] == [
        {
            "name": "bad-condition",
            "file": str(project / "workflows" / "bad-condition" / "SKILL.md"),
            "problems": [
                {
                    "line": 14,
                    "field": "step 2 (Act): Condition",
                    "message": "expected '{{Step}} contains X', 'not empty' or 'equals Y'",
                }
            ],
        }
    ]

    llm_server.enqueue(text_reply("Minor bug."), text_reply("Easy. SAFE"), text_reply("Fixed the save path."))
    common = ["--home", str(home), "--base-url", llm_server.url, "--dialect", "deepseek", "--approve", "never"]
    run = switchboard("workflows", "run", "safe-fix", "--input", "issue=crash on save", *common, cwd=project)
    assert run.returncode == 0, run.stderr
    assert run.stdout == "Fixed the save path.\n"  # no Output section: the last answer
    assert "[3/4] Make Fix: done" in run.stderr
    assert "[4/4] Write Report: skipped (condition not met: {{Judge Safety}} contains UNSAFE)" in run.stderr
    assert "workflow finished: 3 of 4 steps done, 1 skipped" in run.stderr
    sent = [r.json["messages"][-1]["content"] for r in llm_server.requests]
    assert sent[0].startswith("Read this report and say how severe the bug is: crash on save\n\n<context>\n")
    assert f"the workflow's folder, with its supporting files: {project / 'workflows' / 'safe-fix'}" in sent[0]
    assert sent[2].startswith("Fix the bug described here: Minor bug.")

    broken = switchboard("workflows", "run", "bad-condition", *common, cwd=project)
    assert broken.returncode == 2
    assert f"{project / 'workflows' / 'bad-condition' / 'SKILL.md'}:14: step 2 (Act): Condition:" in broken.stderr
    assert len(llm_server.requests) == 3  # nothing of the broken one ran

    llm_server.enqueue(text_reply("Severe."), text_reply("Risky. UNSAFE"), text_reply("Needs a person."))
    jsonl = switchboard(
        "workflows", "run", "safe-fix", "--input", "issue=data loss", "--events", "jsonl", *common, cwd=project
    )
    assert jsonl.returncode == 0, jsonl.stderr
    events = [parse_event(line) for line in jsonl.stdout.splitlines()]  # every line one event of the protocol
    mine = [e for e in events if e.kind.startswith("workflow_")]
    assert mine[0].kind == "workflow_started" and mine[-1].kind == "workflow_finished"
    assert [(e.name, e.status) for e in mine if isinstance(e, ev.WorkflowStep) and e.status != "running"] == [
        ("Assess Issue", "done"),
        ("Judge Safety", "done"),
        ("Make Fix", "skipped"),
        ("Write Report", "done"),
    ]
    assert mine[-1].output == "Needs a person."  # type: ignore[union-attr]
    assert "run_finished" in {e.kind for e in events}  # the steps' own runs are printed too
