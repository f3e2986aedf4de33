"""An untrusted project hook never runs across a full `switchboard ask` run; once trusted it runs; once its
file is edited it is "modified" and stops running. Counted by the hooks' own side effect (a real file)."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from tests.integration.test_cli_ask import SWITCHBOARD, events_of
from tests.support.llm_server import ScriptedLLMServer, text_reply, tool_call_reply

pytestmark = pytest.mark.integration
EVENTS = ("SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop")


def switchboard(*args: str, home: Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHON_KEYRING_BACKEND": "keyring.backends.null.Keyring"}
    return subprocess.run(
        [SWITCHBOARD, *args, "--home", str(home)],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=cwd,
        env=env,
        stdin=subprocess.DEVNULL,
    )


def write_project_hooks(project: Path, counter: Path, comment: str = "") -> None:
    hooks = {event: [{"command": f"echo {event} >> {counter}{comment}"}] for event in EVENTS}
    (project / ".switchboard").mkdir(parents=True, exist_ok=True)
    (project / ".switchboard" / "hooks.json").write_text(json.dumps({"hooks": hooks}))


def full_run(llm: ScriptedLLMServer, home: Path, project: Path) -> list[dict[str, object]]:
    llm.enqueue(tool_call_reply([("c1", "current_time", {})]), text_reply("It is now."))
    proc = switchboard(
        "ask",
        "--base-url",
        llm.url,
        "--model",
        "m",
        "--approve",
        "always",
        "--events",
        "jsonl",
        "what time is it?",
        home=home,
        cwd=project,
    )
    assert proc.returncode == 0, proc.stderr
    events = events_of(proc.stdout)
    assert [e["kind"] for e in events if e["kind"] in ("tool_result", "run_finished")] == [
        "tool_result",
        "run_finished",
    ]
    return events


def states(home: Path, project: Path) -> list[str]:
    proc = switchboard("hooks", "list", home=home, cwd=project)
    assert proc.returncode == 0, proc.stderr
    return [line.split()[1] for line in proc.stdout.splitlines() if not line.startswith(" ")]


def counted(counter: Path) -> list[str]:
    return counter.read_text().split() if counter.exists() else []


def test_untrusted_project_hook_never_runs_until_trusted_and_stops_when_edited(
    llm_server: ScriptedLLMServer, tmp_path: Path
) -> None:
    home, project, counter = tmp_path / "home", tmp_path / "project", tmp_path / "count.txt"
    write_project_hooks(project, counter)

    full_run(llm_server, home, project)
    assert counted(counter) == []  # untrusted: 0 executions across a full run with a tool call
    assert states(home, project) == ["untrusted"] * len(EVENTS)

    trusted = switchboard("hooks", "trust", "--all", home=home, cwd=project)
    assert trusted.returncode == 0, trusted.stderr
    full_run(llm_server, home, project)
    assert counted(counter) == list(EVENTS)  # each once, in the order they fire

    write_project_hooks(project, counter, comment=" # edited")
    assert states(home, project) == ["modified"] * len(EVENTS)
    full_run(llm_server, home, project)
    assert counted(counter) == list(EVENTS)  # no new executions
