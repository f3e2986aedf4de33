"""Settings → Hooks (pytest-qt): every hook with its source, event, full body and state; Trust, Disable,
Enable and Revoke act on the real trust store, and an edited hook shows as modified."""

from __future__ import annotations

import json
from pathlib import Path

from PySide6.QtCore import Qt

from desktop_app.runtime.hooks.sources import build_runner
from desktop_app.runtime.host import Host
from desktop_app.runtime.service import Runtime
from desktop_app.runtime.settings import Settings
from desktop_app.ui.settings.hooks_page import HooksPage
from desktop_app.ui.settings.window import SettingsWindow

GUARD = "sh /opt/guards/block-rm-rf.sh --strict --log /var/log/guard.log"


def _write(path: Path, hooks: dict[str, object]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"hooks": hooks}))


def _rows(page: HooksPage) -> list[list[str]]:
    tree = page.tree
    return [[tree.topLevelItem(i).text(c) for c in range(5)] for i in range(tree.topLevelItemCount())]


def test_hooks_page_in_the_settings_window_trusts_disables_and_revokes(qtbot, qloop, tmp_path):
    project = tmp_path / "project"
    hooks_file = project / ".switchboard" / "hooks.json"
    _write(hooks_file, {"PreToolUse": [{"command": GUARD, "match": "mcp__shell__.*"}]})
    runner = build_runner(
        settings_hooks={"PostToolUse": [{"type": "http", "url": "http://127.0.0.1:8765/audit"}]},
        settings_path=tmp_path / "settings.json",
        mcp_config=None,
        project_dirs=[project],
        data_dir=tmp_path / "data",
    )
    host = Host()
    host.set_hooks(runner)
    window = SettingsWindow(Runtime(settings=Settings(), host=host), host=host)
    qtbot.addWidget(window)
    view = window.show_page("hooks")
    page = view.findChild(HooksPage, "hooksPage")
    assert page is not None
    assert _rows(page) == [
        ["Trusted", "PostToolUse", "http", "http://127.0.0.1:8765/audit", "your settings · settings.json"],
        ["Untrusted · not run", "PreToolUse", "command · match mcp__shell__.*", GUARD, "project · hooks.json"],
    ]
    page.tree.setCurrentItem(page.tree.topLevelItem(1))
    assert GUARD in page.details.text() and "never runs until you trust it" in page.details.text()
    assert str(hooks_file) in page.details.text()  # the full path of the source
    assert page.trust_button.isEnabled() and not page.revoke_button.isEnabled()

    qtbot.mouseClick(page.trust_button, Qt.LeftButton)
    assert _rows(page)[1][0] == "Trusted" and len(runner.active_hooks("PreToolUse", "mcp__shell__run")) == 1
    qtbot.mouseClick(page.enable_button, Qt.LeftButton)
    assert _rows(page)[1][0] == "Disabled" and page.enable_button.text() == "Enable"
    assert runner.active_hooks("PreToolUse", "mcp__shell__run") == []
    qtbot.mouseClick(page.enable_button, Qt.LeftButton)
    assert _rows(page)[1][0] == "Trusted"

    _write(hooks_file, {"PreToolUse": [{"command": GUARD + " --lenient", "match": "mcp__shell__.*"}]})
    page.refresh()
    assert _rows(page)[1][0] == "Modified · not run" and _rows(page)[1][3] == GUARD + " --lenient"
    assert runner.active_hooks("PreToolUse", "mcp__shell__run") == []
    qtbot.mouseClick(page.revoke_button, Qt.LeftButton)
    assert _rows(page)[1][0] == "Untrusted · not run"

    page.filter.setText("audit")
    tree = page.tree
    assert [tree.topLevelItem(i).isHidden() for i in range(2)] == [False, True]
    page.tree.setCurrentItem(tree.topLevelItem(0))  # the user's own hook: no trust to give or take
    assert not page.trust_button.isEnabled() and not page.revoke_button.isEnabled()
    assert page.enable_button.isEnabled()
