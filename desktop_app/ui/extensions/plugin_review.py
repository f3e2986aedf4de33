"""What a plugin would contribute, shown before it is enabled: its MCP servers (and the program each starts),
skills, hooks (with what they run, untrusted until trusted), prompts, agents (with the tools and model they
get here, and what of them is not available) and the
permissions it declares or implies. :func:`contributions_html` is the text the plugin screen shows for the
selected plugin; :class:`EnablePluginDialog` asks before enabling, with the same text.
"""

from __future__ import annotations

from html import escape
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QLabel, QScrollArea, QVBoxLayout, QWidget

from desktop_app.ui.chat.common import MUTED_COLOR, OK_COLOR, WARN_COLOR
from desktop_app.ui.theme.tokens import css_font_size

MUTED = MUTED_COLOR
WARN = WARN_COLOR


def _command(entry: dict[str, Any]) -> str:
    if entry.get("url"):
        return str(entry["url"])
    return " ".join([str(entry.get("command", "")), *map(str, entry.get("args", []))]).strip()


def server_html(plugin: Any, name: str, raw: dict[str, Any]) -> str:
    """One server: its command as it will run, then every env entry, header and secret reference it gets."""
    from desktop_app.runtime.host.launch_view import command_line, environment_lines
    from desktop_app.runtime.plugins.manage import server_name
    from desktop_app.runtime.plugins.model import substitute_root

    entry = substitute_root(raw, plugin.folder)
    full = server_name(plugin.id, name)
    lines = "".join(f"<br>&nbsp;&nbsp;<code>{escape(line)}</code>" for line in environment_lines(full, entry))
    return f"{escape(full)}: <code>{escape(command_line(entry))}</code>{lines}"


def _section(title: str, items: list[str], empty: str = "none") -> str:
    body = "".join(f"<li>{item}</li>" for item in items) if items else f"<li style='color:{MUTED}'>{empty}</li>"
    return f"<p style='margin:8px 0 2px 0'><b>{escape(title)}</b></p><ul style='margin-top:0'>{body}</ul>"


def hook_lines(plugin: Any) -> list[str]:
    """Each declared hook: its event, matcher and command (the plugin's folder variable left as written)."""
    lines = []
    for event, hooks in sorted(plugin.hooks.items()):
        for hook in hooks if isinstance(hooks, list) else []:
            match = f" on {escape(str(hook['match']))}" if hook.get("match") else ""
            body = hook.get("command") or hook.get("url") or ""
            lines.append(f"{escape(event)}{match}: <code>{escape(str(body))}</code>")
    return lines


def agent_lines(plugin: Any) -> list[str]:
    """Each agent as it is served: its name, what it is for, its tools and model here, and what is not usable."""
    from desktop_app.runtime.plugins.agents import read_agents

    lines = []
    for agent in read_agents(plugin):
        line = f"<code>{escape(agent.name)}</code>"
        line += f": {escape(agent.description)}" if agent.description else ""
        if agent.problem:
            lines.append(f"{line} — <span style='color:{WARN}'>{escape(agent.problem)}</span>")
            continue
        tools = agent.definition.tools if agent.definition is not None else None
        if tools is None:
            line += f" <span style='color:{MUTED}'>(every tool)</span>"
        else:
            shown = ", ".join(escape(t) for t in tools) if tools else "none"
            line += f" <span style='color:{MUTED}'>(tools: {shown})</span>"
        for note in agent.notes:
            line += f"<br><span style='color:{WARN}'>{escape(note)}</span>"
        lines.append(line)
    return lines


def permissions(plugin: Any) -> list[str]:
    """What the plugin declares it needs, and what its contributions imply."""
    from desktop_app.runtime.plugins.manage import server_name

    found = [escape(p) for p in plugin.permissions]
    for name, entry in sorted(plugin.servers.items()):
        kind = "connects to" if entry.get("url") else "starts the program"
        found.append(
            f"{kind} <code>{escape(_command(entry))}</code> (MCP server {escape(server_name(plugin.id, name))})"
        )
    if plugin.hook_count:
        found.append(f"runs {plugin.hook_count} hook command(s) around tool calls, once you trust them")
    return found


STATUS_COLOURS = {"works": OK_COLOR, "translated": MUTED, "not available": WARN}


def compatibility_lines(plugin: Any) -> list[str]:
    """The plugin's compatibility report (works / translated / not available, one per part) as HTML lines."""
    from desktop_app.runtime.plugins.report import plugin_report

    return [
        f"<span style='color:{STATUS_COLOURS[line.status]}'>[{escape(line.status)}]</span> "
        f"{escape(line.server + ': ' if line.server else '')}<b>{escape(line.part)}</b> — {escape(line.detail)}"
        for line in plugin_report(plugin)
    ]


def contributions_html(plugin: Any, *, hook_states: list[Any] | None = None) -> str:
    """The plugin's declared contributions and permissions; ``hook_states`` (reviewed hooks) once enabled."""

    head = f"<p><b style='{css_font_size('h3')}'>{escape(plugin.id)}</b> {escape(plugin.version)}"
    kind = {"claude": "Claude Code", "whale": "Whale"}.get(plugin.format, plugin.format)
    head += f" <span style='color:{MUTED}'>({escape(kind)} plugin"
    head += f"{', by ' + escape(plugin.author) if plugin.author else ''})</span></p>"
    if plugin.description:
        head += f"<p>{escape(plugin.description)}</p>"
    servers = [server_html(plugin, name, entry) for name, entry in sorted(plugin.servers.items())]
    if hook_states:
        hooks = [
            f"{escape(item.entry.event)}: <code>{escape(item.entry.body)}</code> — "
            f"<span style='color:{WARN if item.state != 'trusted' else OK_COLOR}'>{escape(item.state)}</span>"
            for item in hook_states
        ]
    else:
        hooks = [
            f"{line} — <span style='color:{WARN}'>untrusted until you trust it</span>" for line in hook_lines(plugin)
        ]
    agents = agent_lines(plugin)
    parts = [
        head,
        _section("MCP servers", servers),
        _section("Skills", [escape(s) for s in plugin.skills]),
        _section("Hooks", hooks),
        _section("Prompts (in the / menu)", [escape(f"{plugin.id}:{p}") for p in plugin.prompts]),
        _section("Agents (chat-with-<name>, callable by the default agent)", agents),
        _section("Permissions", permissions(plugin), "none declared"),
    ]
    parts.append(_section("Compatibility (one line per part)", compatibility_lines(plugin)))
    if getattr(plugin, "notes", None):  # how its parts were translated (Claude Code tool matchers)
        parts.append(_section("Translated", [escape(n) for n in plugin.notes]))
    if plugin.problems:
        parts.append(_section("Problems", [escape(p) for p in plugin.problems]))
    return "".join(parts)


class EnablePluginDialog(QDialog):
    """ "Enable <plugin>?" with everything it contributes; Enable accepts."""

    def __init__(self, plugin: Any, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("enablePluginDialog")
        self.setWindowTitle(f"Enable {plugin.id}")
        self.setMinimumWidth(560)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(20, 20, 20, 16)
        intro = QLabel(
            "Enabling this plugin adds what is listed below. Its servers start and its agents are served at once; "
            "its hooks stay off until you trust them."
        )
        intro.setWordWrap(True)
        layout.addWidget(intro)
        self.contents = QLabel(contributions_html(plugin))
        self.contents.setObjectName("pluginContributions")
        self.contents.setWordWrap(True)
        self.contents.setTextFormat(Qt.TextFormat.RichText)
        scroll = QScrollArea(self)
        scroll.setWidgetResizable(True)
        scroll.setWidget(self.contents)
        scroll.setMinimumHeight(280)
        layout.addWidget(scroll, 1)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Cancel, self)
        self.enable_button = buttons.addButton("Enable", QDialogButtonBox.ButtonRole.AcceptRole)
        self.enable_button.setObjectName("confirmEnablePluginButton")
        self.enable_button.clicked.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout.addWidget(buttons)


__all__ = [
    "EnablePluginDialog",
    "agent_lines",
    "compatibility_lines",
    "contributions_html",
    "hook_lines",
    "permissions",
]
