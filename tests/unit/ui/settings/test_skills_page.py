"""Settings → Skills lists each skill with its source and its "requires" status, naming what is missing."""

from __future__ import annotations

import shutil
from pathlib import Path

from PySide6.QtWidgets import QTreeWidget

from desktop_app.paths import app_paths
from desktop_app.runtime.host import Host
from desktop_app.runtime.service import Runtime
from desktop_app.runtime.settings import Settings
from desktop_app.ui.settings.window import SettingsWindow

EXAMPLE = Path(__file__).resolve().parents[4] / "docs" / "examples" / "skills" / "release-notes"


def test_skills_page_shows_source_and_what_is_missing(qtbot, qloop, monkeypatch) -> None:
    skills = app_paths().ensure().config_dir / "skills"
    shutil.copytree(EXAMPLE, skills / "release-notes")
    needy = skills / "deploy"
    needy.mkdir()
    (needy / "SKILL.md").write_text(
        "---\nname: deploy\ndescription: Deploy it.\nrequires:\n  env: [SB_DEPLOY_TOKEN]\n  mcp: [github]\n---\nGo.\n"
    )
    (skills / "broken").mkdir()
    (skills / "broken" / "SKILL.md").write_text("\n")  # empty (one without frontmatter loads, as in Whale)
    monkeypatch.delenv("SB_DEPLOY_TOKEN", raising=False)
    window = SettingsWindow(Runtime(settings=Settings(), host=Host()))
    qtbot.addWidget(window)
    page = window.show_page("skills")
    tree = page.findChild(QTreeWidget, "skillsList")
    rows = {
        tree.topLevelItem(i).text(0): [tree.topLevelItem(i).text(c) for c in range(1, 3)]
        for i in range(tree.topLevelItemCount())
    }
    assert rows["deploy"] == ["your skills folder", "missing: env SB_DEPLOY_TOKEN, mcp github"]
    assert rows["release-notes"][0] == "your skills folder"
    assert rows["release-notes"][1] in ("ready", "missing: command git")
    assert "broken" not in rows
    from PySide6.QtWidgets import QLabel

    assert "broken/SKILL.md: empty" in page.findChild(QLabel, "skillProblems").text()


def test_a_skill_that_breaks_the_specs_rules_is_listed_with_its_warning(qtbot, qloop) -> None:
    from PySide6.QtWidgets import QLabel

    skills = app_paths().ensure().config_dir / "skills"
    (skills / "frontend-design").mkdir(parents=True)
    (skills / "frontend-design" / "SKILL.md").write_text(
        "---\nname: Frontend Design\ndescription: " + "Builds interfaces. " * 60 + "\n---\nGo.\n"
    )
    window = SettingsWindow(Runtime(settings=Settings(), host=Host()))
    qtbot.addWidget(window)
    page = window.show_page("skills")
    tree = page.findChild(QTreeWidget, "skillsList")
    [row] = [tree.topLevelItem(i) for i in range(tree.topLevelItemCount())]
    assert row.text(0) == "⚠ Frontend Design"  # loaded, marked
    assert "differs from the folder name 'frontend-design'" in row.toolTip(0)
    shown = page.findChild(QLabel, "skillProblems").text()
    assert "longer than the spec's 1024; loaded anyway" in shown and "differs from the folder name" in shown
