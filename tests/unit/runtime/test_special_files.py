"""Issue 21 items 14 and 15: one safe reader for the hook trust file, agent files and skills (a FIFO or a
device is refused without blocking), and 10,000-deep YAML front matter is one file's error, not a crash."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from desktop_app.runtime.agents.definitions import AgentFileError, load_agent_files, parse_agent_file
from desktop_app.runtime.hooks.trust import TrustStore
from desktop_app.runtime.skills import discover

posix_only = pytest.mark.skipif(sys.platform == "win32", reason="FIFOs and /dev/zero")
DEEP = "---\nname: deep\ndescription: " + "[" * 10_000 + "]" * 10_000 + "\n---\nbody\n"


@posix_only
def test_a_fifo_trust_file_is_a_problem_not_a_hang(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "trust.json")
    store = TrustStore(tmp_path / "trust.json")
    assert store.problem is not None and "named pipe" in store.problem


@posix_only
def test_an_agent_file_that_is_a_fifo_or_a_device_is_refused(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "pipe.md")
    with pytest.raises(AgentFileError, match="named pipe"):
        parse_agent_file(tmp_path / "pipe.md")
    (tmp_path / "zero.md").symlink_to("/dev/zero")
    with pytest.raises(AgentFileError, match="a device"):
        parse_agent_file(tmp_path / "zero.md")


def test_deep_yaml_in_one_agent_file_leaves_the_others_working(tmp_path: Path) -> None:
    (tmp_path / "deep.md").write_text(DEEP)
    (tmp_path / "fine.md").write_text("---\ndescription: ok\n---\nHelp.\n")
    agents, problems = load_agent_files(tmp_path)  # no RecursionError
    assert "fine" in [a.name for a in agents]
    if "deep" not in [a.name for a in agents]:  # refused: with a clear error naming the file
        [problem] = problems
        assert str(tmp_path / "deep.md") in problem and "nested too deeply" in problem


def test_deep_yaml_in_one_skill_leaves_the_others_working(tmp_path: Path) -> None:
    (tmp_path / "deep").mkdir()
    (tmp_path / "deep" / "SKILL.md").write_text(DEEP)
    (tmp_path / "fine").mkdir()
    (tmp_path / "fine" / "SKILL.md").write_text("---\nname: fine\ndescription: works\n---\nDo it.\n")
    found = discover([(tmp_path, "test", False)])  # no RecursionError
    assert "fine" in found.skills
    if "deep" not in found.skills:  # refused: with a clear error naming the file
        [problem] = found.problems
        assert "nested too deeply" in problem and str(tmp_path / "deep" / "SKILL.md") in problem
