"""Settings → Skills: the skills found (name, source, description) with their "requires" status — the
commands, environment variables and MCP servers each needs, and what is missing — and the setting that also
reads ``~/.claude/skills`` and ``~/.agents/skills``. A skill loaded although it breaks a rule of the spec is
marked ⚠, with the rule in its tooltip and in the lines below the list."""

from __future__ import annotations

from typing import Any

from PySide6.QtWidgets import QLabel, QTreeWidget, QTreeWidgetItem, QVBoxLayout

from desktop_app.ui.settings.registry import FormSection, PageContext, PageExtra, SettingsPage, register_page

COLUMNS = ("Skill", "Source", "Requires", "Description")


class SkillsList(PageExtra):
    def __init__(self, context: PageContext) -> None:
        super().__init__(context.parent)
        self.context = context
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.tree = QTreeWidget(self)
        self.tree.setObjectName("skillsList")
        self.tree.setAccessibleName("Skills found, with their source and what they require")
        self.tree.setHeaderLabels(list(COLUMNS))
        self.tree.setRootIsDecorated(False)
        self.problems = QLabel("")
        self.problems.setObjectName("skillProblems")
        self.problems.setWordWrap(True)
        layout.addWidget(self.tree)
        layout.addWidget(self.problems)
        self.refresh()

    def refresh(self, settings: Any = None) -> None:
        from desktop_app.paths import app_paths
        from desktop_app.runtime.plugins.manage import enabled_skill_roots
        from desktop_app.runtime.skills import discover, skill_roots

        settings = settings or self.context.runtime.settings
        paths = app_paths()
        roots = skill_roots(
            paths.config_dir / "skills", settings.skills_folders, read_external=settings.skills_read_external
        )
        found = discover([*roots, *enabled_skill_roots(paths.data_dir, settings.plugins)])
        host = self.context.host
        servers = list(host.states()) if host is not None and hasattr(host, "states") else []
        self.tree.clear()
        for skill in found.sorted():
            missing = skill.requires.missing(servers)
            needs = [*skill.requires.commands, *skill.requires.env, *skill.requires.mcp]
            status = "missing: " + ", ".join(missing) if missing else ("ready" if needs else "needs nothing")
            source = skill.source + (" (read only)" if skill.read_only else "")
            item = QTreeWidgetItem([skill.name, source, status, skill.description])
            item.setToolTip(1, str(skill.folder))
            if skill.warnings:  # loaded although it breaks a rule of the spec: say which
                item.setText(0, f"⚠ {skill.name}")
                item.setToolTip(0, "\n".join(skill.warnings))
            self.tree.addTopLevelItem(item)
        if not found.skills:
            self.tree.addTopLevelItem(QTreeWidgetItem([f"No skills yet: add folders to {paths.config_dir / 'skills'}"]))
        self.problems.setText("\n".join([*found.problems, *found.warnings, *found.shadowed]))
        for column in range(len(COLUMNS) - 1):
            self.tree.resizeColumnToContents(column)

    def apply(self, settings: Any) -> None:
        self.refresh(settings)


register_page(
    SettingsPage(
        key="skills",
        title="Skills",
        order=45,
        description=(
            "Skills are folders with a SKILL.md. The model sees a short index and loads a skill with load_skill; "
            "nothing in a skill runs by itself."
        ),
        sections=(FormSection(fields=("skills_read_external",)),),
        extra=SkillsList,
    )
)
