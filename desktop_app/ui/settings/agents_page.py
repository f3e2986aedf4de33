"""Settings → Agents: every agent (``agents/*.md`` files, the settings' ``agents`` and the built-in default),
the default agent, and New agent… / Edit… in the agent editor (:mod:`.agent_editor`).

A file agent (and every new agent) is saved to its ``agents/<name>.md`` atomically; an agent defined in the
settings is saved in the settings file. Either way the agents are read again and put in force at once (the
agent picker lists them, their ``chat-with-`` tools are served). A broken agent file is listed with its path,
line and what is wrong; it is never written to, and a new agent cannot take its name.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QPushButton,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
)

from desktop_app.ui.settings.form import ERROR_STYLE
from desktop_app.ui.settings.registry import FormSection, PageContext, PageExtra, SettingsPage, register_page

COLUMNS = ("Agent", "Description", "Defined in")


class AgentsList(PageExtra):
    """The agents with their source, the broken files, and the buttons that open the editor."""

    def __init__(self, context: PageContext) -> None:
        super().__init__(context.parent)
        self.context = context
        self.setObjectName("agentsPage")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.tree = QTreeWidget(self)
        self.tree.setObjectName("agentsList")
        self.tree.setAccessibleName("Agents, with where each is defined")
        self.tree.setHeaderLabels(list(COLUMNS))
        self.tree.setRootIsDecorated(False)
        self.tree.itemDoubleClicked.connect(lambda *_a: self.edit_selected())
        self.tree.currentItemChanged.connect(lambda *_a: self._update_buttons())
        layout.addWidget(self.tree)
        row = QHBoxLayout()
        self.new_button = QPushButton("New agent…")
        self.new_button.setObjectName("newAgentButton")
        self.new_button.clicked.connect(self.new_agent)
        self.edit_button = QPushButton("Edit…")
        self.edit_button.setObjectName("editAgentButton")
        self.edit_button.clicked.connect(self.edit_selected)
        row.addWidget(self.new_button)
        row.addWidget(self.edit_button)
        row.addStretch(1)
        layout.addLayout(row)
        self.problems = QLabel("")
        self.problems.setObjectName("agentProblems")
        self.problems.setWordWrap(True)
        self.problems.setStyleSheet(ERROR_STYLE)
        layout.addWidget(self.problems)
        self.status = QLabel("")
        self.status.setObjectName("agentsStatus")
        self.status.setWordWrap(True)
        layout.addWidget(self.status)
        self.editor: Any = None
        self.refresh()

    # -- where agents come from ----------------------------------------------------------------------------

    @property
    def config_dir(self) -> Path:
        from desktop_app.paths import app_paths

        return app_paths().config_dir

    def _sources(self) -> tuple[Any, dict[str, Path], set[str]]:
        from desktop_app.runtime.agents import AgentCatalog
        from desktop_app.runtime.agents.files import agent_files, agents_folder

        settings = self.context.runtime.settings
        catalog = AgentCatalog.load(settings, self.config_dir)
        return catalog, agent_files(agents_folder(self.config_dir)), {a.name for a in settings.agents}

    def refresh(self) -> None:
        catalog, files, in_settings = self._sources()
        self.tree.clear()
        for name in catalog.names():
            definition = catalog.agents[name]
            if name in in_settings:
                source, where = "settings", "the settings file (agents)"
            elif name in files:
                source, where = f"agents/{files[name].name}", str(files[name])
            else:
                source, where = "built in", "Built in: every server and tool, the General page's system prompt"
            label = name + (" (default)" if name == catalog.default else "")
            item = QTreeWidgetItem([label, definition.description or "—", source])
            item.setData(0, 256, name)
            item.setToolTip(2, where)
            item.setToolTip(1, definition.description)
            self.tree.addTopLevelItem(item)
        self.problems.setText("\n".join(catalog.problems))
        self.problems.setVisible(bool(catalog.problems))
        for column in range(len(COLUMNS) - 1):
            self.tree.resizeColumnToContents(column)
        self._update_buttons()

    def _update_buttons(self) -> None:
        name = self.selected()
        catalog, _files, _settings = self._sources()
        built_in = name is not None and catalog.unrestricted(name)
        self.edit_button.setEnabled(name is not None and not built_in)
        self.edit_button.setToolTip(
            "The built-in default agent has no definition to edit: its instructions are the General page's "
            "system prompt. Create an agent and make it the default to change more."
            if built_in
            else "Edit the selected agent"
        )

    def selected(self) -> str | None:
        item = self.tree.currentItem()
        value = item.data(0, 256) if item is not None else None
        return str(value) if value else None

    # -- editing -------------------------------------------------------------------------------------------

    def new_agent(self) -> Any:
        return self._open(None)

    def edit_selected(self) -> Any:
        name = self.selected()
        catalog, _files, _settings = self._sources()
        if name is None or catalog.unrestricted(name):
            return None
        return self._open(name)

    def _open(self, name: str | None) -> Any:
        from desktop_app.ui.settings.agent_editor import AgentEditor

        catalog, files, in_settings = self._sources()
        agent = catalog.get(name) if name is not None else None
        host = self.context.host
        servers = [
            s
            for s in (host.states() if host is not None and hasattr(host, "states") else {})
            if not s.startswith("switchboard.agent.")
        ]
        if name in in_settings:
            source = "Defined in the settings file; saving writes the settings."
        elif name is not None:
            source = f"Saved to {files.get(name)}"
        else:
            source = f"Saved to {self.config_dir / 'agents'}/<name>.md"
        settings = self.context.runtime.settings
        vision = settings.vision_provider
        editor = AgentEditor(
            agent,
            servers=servers,
            agents=catalog.names(),
            default_provider=settings.provider,
            other_providers=[("The vision provider", vision)] if vision is not None and vision.configured else [],
            source=source,
            parent=self,
        )
        previous = files.get(name) if name is not None and name not in in_settings else None
        editor.save = lambda new: self.save(new, previous=previous, in_settings=name in in_settings, old=name)
        editor.accepted.connect(lambda: self._saved(editor))
        self.editor = editor
        editor.open()
        return editor

    def save(self, agent: Any, *, previous: Path | None, in_settings: bool, old: str | None) -> None:
        """Write ``agent`` (its file, or the settings for one defined there) and put the agents in force."""
        from desktop_app.runtime.agents.files import agents_folder, reload_agents, save_agent_file

        runtime = self.context.runtime
        catalog, files, _settings = self._sources()
        if old is None and (agent.name in catalog.agents or agent.name in files):
            raise ValueError(f"An agent named '{agent.name}' exists already; pick another name or edit it.")
        if in_settings:
            kept = [a for a in runtime.settings.agents if a.name != old]
            runtime.update_settings(agents=[*kept, agent])
        else:
            save_agent_file(agents_folder(self.config_dir), agent, previous=previous)
        problems = reload_agents(runtime, self.context.host, self.config_dir)
        self.status.setText(f"Saved the agent '{agent.name}'." + (" " + " ".join(problems) if problems else ""))

    def _saved(self, editor: Any) -> None:
        self.refresh()

    def apply(self, settings: Any) -> None:
        """The window saved the settings (the default agent may have changed): read the agents again."""
        from desktop_app.runtime.agents.files import reload_agents

        if getattr(self.context.runtime, "agents", None) is not None:
            reload_agents(self.context.runtime, self.context.host, self.config_dir)
        self.refresh()


register_page(
    SettingsPage(
        key="agents",
        title="Agents",
        order=42,
        description=(
            "An agent is instructions, a model and the servers and tools it may use. New conversations talk to "
            "the default agent; pick another per conversation beside the model. Agents call each other with "
            "chat-with-<agent>."
        ),
        sections=(FormSection(fields=("default_agent",)),),
        extra=AgentsList,
    )
)
