"""``switchboard ask`` in a folder whose untrusted ``.switchboard/hooks.json`` is broken: the file is named on
stderr and skipped, and the run goes on (it used to refuse to start, exit 2); a broken mcp.json hook still
stops it."""

from __future__ import annotations

import io
import json
import threading
from pathlib import Path

import pytest

from desktop_app.cli import EXIT_OK, EXIT_USAGE, main
from tests.support.llm_server import ScriptedLLMServer, text_reply

BOUND_S = 20


def _run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    result: list[int] = []
    thread = threading.Thread(target=lambda: result.append(main(list(argv), out=out, err=err)), daemon=True)
    thread.start()
    thread.join(BOUND_S)
    assert result, f"switchboard ask did not end within {BOUND_S} s; stderr so far: {err.getvalue()}"
    return result[0], out.getvalue(), err.getvalue()


def test_ask_in_a_folder_with_a_broken_project_hooks_file_reports_it_and_answers(
    llm_server: ScriptedLLMServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = tmp_path / "repo"
    hooks = project / ".switchboard" / "hooks.json"
    hooks.parent.mkdir(parents=True)
    hooks.write_text('{"hooks": {"PreToolUse": [', encoding="utf-8")  # cut off
    monkeypatch.chdir(project)
    llm_server.enqueue(text_reply("Still here."))
    code, out, err = _run("ask", "--home", str(tmp_path / "h"), "--base-url", llm_server.url, "--model", "m", "Hi.")
    assert code == EXIT_OK, err
    assert out.rstrip("\n") == "Still here."
    assert "A hook was skipped" in err and str(hooks.resolve()) in err


def test_ask_with_a_broken_hook_in_its_own_mcp_json_still_stops(
    llm_server: ScriptedLLMServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    config = tmp_path / "mcp.json"
    config.write_text(json.dumps({"mcpServers": {}, "hooks": {"PreToolUse": 3}}), encoding="utf-8")
    code, _, err = _run(
        "ask", "--home", str(tmp_path / "h"), "--base-url", llm_server.url, "--mcp-config", str(config), "Hi."
    )
    assert code == EXIT_USAGE and "broken hooks" in err and llm_server.requests == []
