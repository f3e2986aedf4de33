"""A broken hooks file that is not the user's own (a project's, a plugin's, an imported one) is skipped and
reported; only the user's own files (settings.json, mcp.json, trust.json) are problems worth refusing to start."""

from __future__ import annotations

from pathlib import Path

from desktop_app.runtime.hooks.config import PLUGIN_HOOKS_FILE, PROJECT_HOOKS_FILE
from desktop_app.runtime.hooks.sources import build_runner


def test_a_broken_project_or_plugin_hooks_file_is_reported_but_not_an_own_problem(tmp_path: Path) -> None:
    project, data = tmp_path / "project", tmp_path / "data"
    (project / PROJECT_HOOKS_FILE).parent.mkdir(parents=True)
    (project / PROJECT_HOOKS_FILE).write_text('{"hooks": {', encoding="utf-8")
    plugin = data / "plugins" / "p" / PLUGIN_HOOKS_FILE
    plugin.parent.mkdir(parents=True)
    plugin.write_text('{"hooks": {"PreToolUse": 3}}', encoding="utf-8")
    mcp = tmp_path / "mcp.json"
    mcp.write_text('{"mcpServers": {}, "hooks": {}}', encoding="utf-8")
    runner = build_runner(
        settings_hooks={}, settings_path=None, mcp_config=mcp, project_dirs=[project], data_dir=data, cwd=project
    )
    assert runner.own_problems == []
    problems = runner.problems
    assert any(str(project / PROJECT_HOOKS_FILE) in p for p in problems)
    assert any(str(plugin) in p for p in problems)


def test_a_broken_own_hooks_file_stays_an_own_problem(tmp_path: Path) -> None:
    mcp = tmp_path / "mcp.json"
    mcp.write_text('{"mcpServers": {}, "hooks": {"PreToolUse": 3}}', encoding="utf-8")
    runner = build_runner(settings_hooks={"Stop": "x"}, settings_path=None, mcp_config=mcp, cwd=tmp_path)
    own = runner.own_problems
    assert len(own) == 2 and any(str(mcp) in p for p in own)
