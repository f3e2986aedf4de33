"""Issue 21 items 14 and 15 through the real ``switchboard ask``: a FIFO as an agent file or as the hook trust
file, and 10,000-deep YAML front matter in a skill or an agent file, are each reported and skipped; the
answer still comes (and nothing hangs: the subprocess has a bound)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from tests.integration.test_hooks_trust import switchboard
from tests.support.llm_server import ScriptedLLMServer, text_reply

pytestmark = [
    pytest.mark.integration,
    pytest.mark.skipif(sys.platform == "win32", reason="FIFOs"),
]
DEEP = "---\nname: deep\ndescription: " + "[" * 10_000 + "]" * 10_000 + "\n---\nbody\n"


def test_special_and_hostile_files_are_skipped_and_ask_still_answers(
    llm_server: ScriptedLLMServer, tmp_path: Path
) -> None:
    home = tmp_path / "home"
    agents, skills, hooks = home / "config" / "agents", home / "config" / "skills" / "deep", home / "data" / "hooks"
    for folder in (agents, skills, hooks):
        folder.mkdir(parents=True)
    os.mkfifo(agents / "pipe.md")
    (agents / "deep.md").write_text(DEEP)
    (skills / "SKILL.md").write_text(DEEP)
    (agents / "fine.md").write_text("---\ndescription: still works\n---\nHelp.\n")
    llm_server.enqueue(text_reply("the answer"))
    proc = switchboard("ask", "--base-url", llm_server.url, "--model", "m", "hello", home=home, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "the answer"
    assert f"{agents / 'pipe.md'}: cannot read it: this is a named pipe (FIFO)" in proc.stderr
    # the deep files: refused with an error naming them, or (read as Claude Code reads loose frontmatter) loaded
    assert "Traceback" not in proc.stderr
    assert "Traceback" not in proc.stderr and "RecursionError" not in proc.stderr


def test_a_fifo_as_the_hook_trust_file_is_a_clear_error_not_a_hang(
    llm_server: ScriptedLLMServer, tmp_path: Path
) -> None:
    home = tmp_path / "home"
    (home / "data" / "hooks").mkdir(parents=True)
    os.mkfifo(home / "data" / "hooks" / "trust.json")
    proc = switchboard("ask", "--base-url", llm_server.url, "--model", "m", "hello", home=home, cwd=tmp_path)
    assert proc.returncode == 2
    assert "trust.json: the hook trust file cannot be read (this is a named pipe (FIFO)" in proc.stderr
    assert llm_server.requests == []  # refused before anything ran
