"""The agent editor (Settings → Agents → New agent… / Edit…): every field of one agent definition.

Name, description, instructions and model are a generated :class:`ModelForm` over ``AgentSettings``; the
fields whose "not set" means something of its own get editors that say so: the provider ("the default
provider"), the MCP servers it may use (every server, or the ones checked), its tool allowlist (every tool,
or the patterns listed), the agents it may call (none, every agent, or the ones checked) and its approval
default (the app's, or a stricter one). :meth:`AgentEditor.definition` validates what was typed with the
model (messages under their fields); the page saves it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pydantic import ValidationError
from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPlainTextEdit,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from desktop_app.runtime.settings import AgentSettings, ProviderSettings
from desktop_app.ui.settings.form import ERROR_STYLE, MUTED_STYLE, ModelForm

FORM_FIELDS = ("name", "description", "instructions", "model")
APPROVALS = (
    ("The app's policy", None),
    ("Ask before every tool call", "ask"),
    ("Deny every tool call", "never"),
    ("Approve without asking (only if the app's policy does too)", "always"),
)


class CheckList(QWidget):
    """ "Every …" (``None``) or the items checked; items not offered (e.g. glob patterns) are kept as given."""

    def __init__(self, every: str, items: list[str], chosen: list[str] | None, *, name: str) -> None:
        super().__init__()
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.every = QCheckBox(every)
        self.every.setObjectName(f"{name}Every")
        self.list = QListWidget()
        self.list.setObjectName(f"{name}List")
        self.list.setAccessibleName(every)
        self.list.setMaximumHeight(110)
        for item in sorted({*items, *(chosen or [])}):
            row = QListWidgetItem(item)
            row.setFlags(row.flags() | Qt.ItemFlag.ItemIsUserCheckable)
            row.setCheckState(Qt.CheckState.Checked if chosen and item in chosen else Qt.CheckState.Unchecked)
            self.list.addItem(row)
        self.every.toggled.connect(lambda on: self.list.setEnabled(not on))
        self.every.setChecked(chosen is None)
        self.list.setEnabled(chosen is not None)
        layout.addWidget(self.every)
        layout.addWidget(self.list)

    def value(self) -> list[str] | None:
        if self.every.isChecked():
            return None
        rows = (self.list.item(i) for i in range(self.list.count()))
        return [row.text() for row in rows if row.checkState() == Qt.CheckState.Checked]

    def check(self, item: str, on: bool = True) -> None:
        for i in range(self.list.count()):
            if self.list.item(i).text() == item:
                self.list.item(i).setCheckState(Qt.CheckState.Checked if on else Qt.CheckState.Unchecked)


class AgentEditor(QDialog):
    """Edit one agent (``agent``: ``None`` for a new one); ``servers``/``agents``: what it can choose from."""

    def __init__(
        self,
        agent: AgentSettings | None,
        *,
        servers: list[str],
        agents: list[str],
        default_provider: ProviderSettings,
        other_providers: list[tuple[str, ProviderSettings]] | None = None,
        source: str = "",
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("agentEditor")
        self.setWindowTitle(f"Agent {agent.name}" if agent is not None else "New agent")
        self.resize(620, 720)
        start = agent or AgentSettings(name="new-agent", agents=[])
        outer = QVBoxLayout(self)
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        page = QWidget()
        layout = QVBoxLayout(page)
        if source:
            where = QLabel(source)
            where.setObjectName("agentSource")
            where.setWordWrap(True)
            where.setStyleSheet(MUTED_STYLE)
            layout.addWidget(where)
        self.form = ModelForm(AgentSettings, start, fields=FORM_FIELDS, prefix="agent")
        layout.addWidget(self.form)
        extra = QFormLayout()
        self.provider = QComboBox()
        self.provider.setObjectName("agentProvider")
        self.provider.setAccessibleName("Provider")
        self.provider.addItem(f"The default provider ({default_provider.model or 'not set up'})", None)
        for label, provider in other_providers or []:  # e.g. the vision provider, set up in Settings → Providers
            if provider != start.provider:
                self.provider.addItem(f"{label}: {provider.model} at {provider.base_url}", provider)
        if start.provider is not None:
            self.provider.addItem(f"Its own: {start.provider.model} at {start.provider.base_url}", start.provider)
            self.provider.setCurrentIndex(self.provider.count() - 1)
        extra.addRow("Provider:", self.provider)
        self.servers = CheckList("Every MCP server", servers, start.servers, name="agentServers")
        extra.addRow("MCP servers:", self.servers)
        self.every_tool = QCheckBox("Every tool of those servers")
        self.every_tool.setObjectName("agentToolsEvery")
        self.tools = QPlainTextEdit("\n".join(start.tools or []))
        self.tools.setObjectName("agentTools")
        self.tools.setAccessibleName("Tool allowlist")
        self.tools.setPlaceholderText("One per line: server/tool, server/* or a tool name (globs allowed)")
        self.tools.setFixedHeight(72)
        self.every_tool.toggled.connect(lambda on: self.tools.setEnabled(not on))
        self.every_tool.setChecked(start.tools is None)
        self.tools.setEnabled(start.tools is not None)
        tools_box = QWidget()
        tools_layout = QVBoxLayout(tools_box)
        tools_layout.setContentsMargins(0, 0, 0, 0)
        tools_layout.addWidget(self.every_tool)
        tools_layout.addWidget(self.tools)
        self.tools_error = self._error("agentToolsError", tools_layout)
        extra.addRow("Tool allowlist:", tools_box)
        callable_agents = [a for a in agents if a != start.name]
        chosen_agents = None if "*" in start.agents else list(start.agents)
        self.agents = CheckList("Every other agent", callable_agents, chosen_agents, name="agentAgents")
        extra.addRow("Agents it may call:", self.agents)
        self.approval = QComboBox()
        self.approval.setObjectName("agentApproval")
        self.approval.setAccessibleName("Approval default")
        for text, value in APPROVALS:
            self.approval.addItem(text, value)
        self.approval.setCurrentIndex(max(self.approval.findData(start.approval), 0))
        extra.addRow("Approvals:", self.approval)
        layout.addLayout(extra)
        self.problem = QLabel("")
        self.problem.setObjectName("agentEditorProblem")
        self.problem.setWordWrap(True)
        self.problem.setStyleSheet(ERROR_STYLE)
        self.problem.hide()
        layout.addWidget(self.problem)
        layout.addStretch(1)
        scroll.setWidget(page)
        outer.addWidget(scroll)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel)
        self.buttons.setObjectName("agentEditorButtons")
        self.buttons.accepted.connect(self._on_save)
        self.buttons.rejected.connect(self.reject)
        outer.addWidget(self.buttons)
        self.result_agent: AgentSettings | None = None
        # set by the page: writes the definition, raises with a sentence
        self.save: Callable[[AgentSettings], None] = lambda agent: None

    @staticmethod
    def _error(name: str, layout: QVBoxLayout) -> QLabel:
        label = QLabel("")
        label.setObjectName(name)
        label.setStyleSheet(ERROR_STYLE)
        label.setWordWrap(True)
        label.hide()
        layout.addWidget(label)
        return label

    def values(self) -> dict[str, Any]:
        data = self.form.values()
        provider = self.provider.currentData()
        data["provider"] = provider.model_dump() if isinstance(provider, ProviderSettings) else None
        data["servers"] = self.servers.value()
        lines = [line.strip() for line in self.tools.toPlainText().splitlines() if line.strip()]
        data["tools"] = None if self.every_tool.isChecked() else lines
        chosen = self.agents.value()
        data["agents"] = ["*"] if chosen is None else chosen
        data["approval"] = self.approval.currentData()
        return data

    def definition(self) -> AgentSettings | None:
        """The typed definition, or ``None`` with the problems shown under their fields."""
        try:
            agent = AgentSettings.model_validate(self.values())
        except ValidationError as exc:
            errors: dict[str, str] = {}
            for err in exc.errors():
                key = str(err["loc"][0]) if err["loc"] else ""
                errors.setdefault(key, err["msg"])
            self.form.show_errors({k: v for k, v in errors.items() if k in FORM_FIELDS})
            other = [f"{k}: {v}" for k, v in errors.items() if k not in FORM_FIELDS]
            self._show_problem("; ".join(other))
            return None
        self.form.show_errors({})
        self._show_problem("")
        return agent

    def _show_problem(self, text: str) -> None:
        self.problem.setText(text)
        self.problem.setVisible(bool(text))

    def _on_save(self) -> None:
        agent = self.definition()
        if agent is None:
            return
        try:
            self.save(agent)
        except Exception as exc:  # the file could not be written, or would overwrite another: say so
            self._show_problem(str(exc))
            return
        self.result_agent = agent
        self.accept()


__all__ = ["AgentEditor", "CheckList"]
