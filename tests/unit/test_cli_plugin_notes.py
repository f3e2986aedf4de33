"""``switchboard plugins show``: a Claude Code plugin's matchers that name Claude Code's tools are reported with
what they match here, or that they never fire here (issue 22 item 2: say which)."""

from __future__ import annotations

import io
import json
from pathlib import Path

from desktop_app import cli
from tests.support import claude_plugins as cp


def sb(*args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = cli.main(list(args), out=out, err=err)
    return code, out.getvalue(), err.getvalue()


def test_plugins_show_says_what_each_claude_code_tool_matcher_matches_here(tmp_path: Path) -> None:
    folder = tmp_path / "fmt"
    cp.manifest(folder, "fmt", version="1")
    group = {"hooks": [{"type": "command", "command": "true"}]}
    cp.hooks(
        folder,
        {
            "PreToolUse": [{"matcher": "Bash", **group}],
            "PostToolUse": [{"matcher": "Edit|Write|NotebookEdit", **group}, {"matcher": "NotebookEdit", **group}],
        },
    )
    home = str(tmp_path / "home")
    assert sb("plugins", "install", str(folder), "--home", home)[0] == 0
    code, out, err = sb("plugins", "show", "fmt", "--json", "--home", home)
    assert code == 0, err
    assert json.loads(out)["notes"] == [
        "PreToolUse: matcher 'Bash': matches Switchboard's equivalents: "
        "Bash → run_command, execute_command, run_shell_command, shell_execute, bash",
        "PostToolUse: matcher 'Edit|Write|NotebookEdit': matches Switchboard's equivalents: Edit → edit_file; "
        "Write → write_file; NotebookEdit: no such tool in Switchboard (never fires for those)",
        "PostToolUse: matcher 'NotebookEdit': NotebookEdit: no such tool in Switchboard (never fires here)",
    ]
    code, out, _ = sb("plugins", "show", "fmt", "--home", home)
    assert (
        "  Translated: PostToolUse: matcher 'NotebookEdit': NotebookEdit: "
        "no such tool in Switchboard (never fires here)\n" in out
    )
