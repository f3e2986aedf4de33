"""The plugin page says how a Claude Code plugin's tool matchers translate (issue 22 item 2: say which)."""

from __future__ import annotations

from pathlib import Path

from desktop_app.runtime.plugins.model import read_plugin
from desktop_app.ui.extensions.plugin_review import contributions_html
from tests.support import claude_plugins as cp


def test_the_plugin_page_lists_what_each_claude_code_tool_matcher_matches_here(tmp_path: Path) -> None:
    folder = tmp_path / "fmt"
    cp.manifest(folder, "fmt")
    hook = {"hooks": [{"type": "command", "command": "true"}]}
    cp.hooks(folder, {"PostToolUse": [{"matcher": "Write", **hook}, {"matcher": "TodoWrite", **hook}]})
    html = contributions_html(read_plugin(folder))
    assert "Translated" in html
    assert "PostToolUse: matcher &#x27;Write&#x27;: matches Switchboard&#x27;s equivalents: Write → write_file" in html
    assert "TodoWrite: no such tool in Switchboard (never fires here)" in html
