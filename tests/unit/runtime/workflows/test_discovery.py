"""Where workflows are found: the project folder, then the config folder, then enabled plugins; a duplicate
name is reported with both files, a broken file is listed with its problems and never loaded."""

from __future__ import annotations

import shutil
from pathlib import Path

from desktop_app.runtime.workflows.discovery import discover, workflow_roots

FIXTURES = Path(__file__).resolve().parents[3] / "fixtures" / "workflows"


def put(root: Path, kind: str, name: str) -> None:
    shutil.copytree(FIXTURES / kind / name, root / "workflows" / name)


def test_precedence_duplicates_broken_and_disabled_plugins(tmp_path: Path) -> None:
    project, config, data = tmp_path / "project", tmp_path / "config", tmp_path / "data"
    put(project, "good", "greet")
    put(config, "good", "greet")
    put(config, "good", "pr-review")
    put(config, "broken", "bad-name")
    plugin_root = data / "plugin-files"
    put(plugin_root / "tools-plugin", "good", "safe-fix")
    put(plugin_root / "off-plugin", "good", "release-with-rollback")
    roots = workflow_roots(
        config_dir=config,
        project_dir=project,
        data_dir=data,
        plugins={"tools-plugin": {"enabled": True}, "off-plugin": {"enabled": False}},
    )
    assert [r.source for r in roots] == ["project", "your workflows folder", "plugin tools-plugin"]

    found = discover(roots)
    assert [(w.name, w.source) for w in found.sorted()] == [
        ("greet", "project"),
        ("pr-review", "your workflows folder"),
        ("safe-fix", "plugin tools-plugin"),
    ]
    assert found.shadowed == [
        f"{config / 'workflows' / 'greet' / 'SKILL.md'}: the workflow 'greet' is also in "
        f"{project / 'workflows' / 'greet' / 'SKILL.md'}, which is used (project, then your workflows folder, then "
        "plugins); this one is skipped"
    ]
    assert [(b.name, b.source, [p.field for p in b.problems]) for b in found.broken] == [
        ("bad-name", "your workflows folder", ["name"])
    ]
    assert found.get("workflow:///pr-review") is found.workflows["pr-review"]
    assert found.get("bad-name") is None and found.broken_named("bad-name") is not None


def test_missing_roots_give_nothing(tmp_path: Path) -> None:
    found = discover(workflow_roots(config_dir=tmp_path / "none", project_dir=None))
    assert (found.workflows, found.broken, found.shadowed) == ({}, [], [])
