"""``switchboard --help`` lists every headless command with its one-line summary (the window's options too), and
``switchboard COMMAND --help`` works for each of them (exit 0, its own usage)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from desktop_app.__main__ import HEADLESS_COMMANDS
from desktop_app.__main__ import main as entry
from desktop_app.cli.main import commands


def test_the_entry_point_and_the_parser_know_the_same_commands() -> None:
    assert set(commands()) == HEADLESS_COMMANDS
    assert all(summary.strip() for summary in commands().values())


def test_switchboard_help_names_every_command_with_its_summary() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "desktop_app", "--help"], capture_output=True, text=True, timeout=60, check=False
    )
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "--quick" in out and "--home" in out  # the window's options
    listed = out.split("commands:", 1)[1]
    for name, summary in commands().items():
        assert f"  {name} " in listed, name
        assert " ".join(summary.split()[:4]) in " ".join(listed.split()), summary


def test_help_loads_no_qt() -> None:
    code = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys; from desktop_app.__main__ import main; main(['-h']); "
            "sys.exit(1 if 'PySide6' in sys.modules else 0)",
        ],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    ).returncode
    assert code == 0


@pytest.mark.parametrize("command", sorted(HEADLESS_COMMANDS))
def test_each_command_help_exits_0(command: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert entry([command, "--help"]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"usage: switchboard {command}")
