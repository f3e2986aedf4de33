"""The composer's agent picker: which agent the shown conversation talks to, kept with the conversation.

A button beside the provider/model picker shows the conversation's agent (the icon alone for the default
agent, which a new conversation talks to; the agent's name for another); its menu (also Ctrl+Shift+A) lists
the agents (settings and ``agents/*.md``) with their descriptions, the current one checked, and "Manage
agents…" (Settings → Agents). Picking one applies from the conversation's
next run (its instructions, provider and model, servers, tool allowlist and approval default), is refused
while the conversation runs, and is stored with the conversation (``store.agents``), so a reopened
conversation goes on with it after a restart (:func:`restore_agent`, called by ``replay.reopen``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QActionGroup, QKeySequence, QShortcut
from PySide6.QtWidgets import QBoxLayout, QLayout, QMenu, QToolButton, QWidget

NAME_CHARS = 18
"""Longer agent names are cut in the composer (the whole name is in the tooltip and the menu)."""
SHORTCUT = "Ctrl+Shift+A"
ABOUT_CHARS = 48


def restore_agent(runtime: Any, conversation_id: str, agent: str) -> str | None:
    """Make a reopened conversation talk to its stored ``agent`` again (its next run gets the agent's
    instructions, model, tools and approval default); a notice when the agent is gone."""
    catalog = getattr(runtime, "agents", None)
    if catalog is None or runtime.is_running(conversation_id):  # a running one keeps the agent it runs with
        return None
    if catalog.get(agent) is None:
        return (
            f"This conversation talked to the agent '{agent}', which is no longer defined; it goes on with "
            f"the default agent '{catalog.default}'. Define '{agent}' again (Settings → Agents) to go back to it."
        )
    runtime.set_conversation_agent(conversation_id, agent)
    return None


def remember_agent(store: Any, conversation_id: str, agent: str) -> None:
    """Store a picked agent with a conversation the store already has (a new one gets it with its first run)."""
    if store is None or store.get_conversation(conversation_id) is None:
        return
    from desktop_app.runtime.store.agents import set_agent

    set_agent(store, conversation_id, agent)


def _row_of(widget: QWidget, layout: QLayout | None) -> QBoxLayout | None:
    """The box layout (at any depth under ``layout``) that holds ``widget``."""
    if layout is None:
        return None
    if isinstance(layout, QBoxLayout) and layout.indexOf(widget) >= 0:
        return layout
    for i in range(layout.count()):
        item = layout.itemAt(i)
        inner = item.layout() if item is not None else None
        found = _row_of(widget, inner) if inner is not None else None
        if found is not None:
            return found
    return None


class AgentPicker(QToolButton):
    """The button and its menu; ``changed`` is called after a successful pick (the window shows the provider)."""

    def __init__(
        self,
        runtime: Any,
        conversation: Callable[[], str],
        *,
        store: Callable[[], Any],
        status: Callable[[str], None],
        changed: Callable[[], None] = lambda: None,
        manage: Callable[[], None] | None = None,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.runtime = runtime
        self._conversation = conversation
        self._store = store
        self._status = status
        self._changed = changed
        self._manage = manage
        self.setObjectName("agentPicker")
        self.setAccessibleName("Agent for this conversation")
        self.setToolTip("The agent this conversation talks to: its instructions, model, servers and tools")
        self.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        from desktop_app.ui.theme.icons import icon

        self.setIcon(icon("agent"))
        self.picker_menu = QMenu(self)
        self.picker_menu.setObjectName("agentPickerMenu")
        self.picker_menu.aboutToShow.connect(self._fill)
        self.setMenu(self.picker_menu)
        self.menu_shortcut: QShortcut | None = None
        """Its menu from the keyboard (``SHORTCUT``, set by ``install_agent_picker``); not ``shortcut``, which is
        the button's own ``QAbstractButton.shortcut()``."""
        self.refresh()

    def current(self) -> str:
        return str(self.runtime.conversation_agent(self._conversation()))

    def refresh(self) -> None:
        """Show the shown conversation's agent (after a switch of conversation or of the agents)."""
        catalog = self.runtime.agents
        name = self.current()
        definition = catalog.get(name) if catalog is not None else None
        default = catalog is not None and name == catalog.default
        # The default agent is the icon alone (the composer's row is narrow); another agent is named.
        self.setText("" if default else name if len(name) <= NAME_CHARS else name[: NAME_CHARS - 1] + "…")
        self.setToolButtonStyle(
            Qt.ToolButtonStyle.ToolButtonIconOnly if default else Qt.ToolButtonStyle.ToolButtonTextBesideIcon
        )
        description = definition.description if definition is not None else ""
        kind = " (the default agent)" if default else ""
        self.setToolTip(
            f"Agent: {name}{kind}" + (f" — {description}" if description else "") + f". {SHORTCUT} to change."
        )
        self.setAccessibleDescription(f"Talks to the agent {name}{kind}")

    def _fill(self) -> None:
        menu = self.picker_menu
        menu.clear()
        catalog = self.runtime.agents
        group = QActionGroup(menu)
        group.setExclusive(True)
        current = self.current()
        for name in catalog.names():
            definition = catalog.get(name)
            label = name + (" (default)" if name == catalog.default else "")
            about = definition.description if definition is not None else ""
            if about:  # what it is for, at a glance (the whole description in the tooltip)
                label += "  ·  " + (about if len(about) <= ABOUT_CHARS else about[: ABOUT_CHARS - 1] + "…")
            action = QAction(label, menu, checkable=True)
            action.setObjectName(f"pickAgent-{name}")
            action.setToolTip(definition.description if definition is not None else "")
            action.setChecked(name == current)
            action.triggered.connect(lambda _checked=False, name=name: self.pick(name))
            group.addAction(action)
            menu.addAction(action)
        menu.setToolTipsVisible(True)
        if self._manage is not None:
            menu.addSeparator()
            manage = menu.addAction("Manage agents…", self._manage)
            manage.setObjectName("manageAgents")

    def pick(self, name: str) -> bool:
        """Make the shown conversation talk to ``name``; the status line says what happened."""
        conversation = self._conversation()
        try:
            self.runtime.set_conversation_agent(conversation, name)
        except Exception as exc:  # busy, or the agent went away
            self._status(str(exc))
            return False
        remember_agent(self._store(), conversation, name)
        self.refresh()
        self._changed()
        self._status(f"This conversation now talks to the agent '{name}' (from its next message).")
        return True


def install_agent_picker(window: Any, runtime: Any, conversation: Callable[[], str]) -> AgentPicker | None:
    """Put the picker in ``window``'s composer, before the provider/model picker (``None``: no agents)."""
    if getattr(runtime, "agents", None) is None:
        return None
    composer = window.composer

    def changed() -> None:
        show = getattr(getattr(window, "provider", None), "show", None)  # the window's ``ProviderDisplay``
        if show is not None:
            show()

    def manage() -> None:
        opener = getattr(window, "open_settings_window", None)
        if opener is not None:
            opener("agents")  # Settings → Agents

    picker = AgentPicker(
        runtime,
        conversation,
        store=lambda: getattr(window, "store", None),
        status=window.set_status,
        changed=changed,
        manage=manage,
        parent=composer,
    )
    holder = composer.model_button.parentWidget() or composer
    row = _row_of(composer.model_button, holder.layout())
    if row is None:  # the composer's layout changed: say so rather than float the button
        raise RuntimeError("the composer has no row with its provider/model picker for the agent picker")
    row.insertWidget(row.indexOf(composer.model_button), picker)
    shortcut = QShortcut(QKeySequence(SHORTCUT), window)  # the picker's menu from the keyboard
    shortcut.activated.connect(picker.showMenu)
    picker.menu_shortcut = shortcut
    return picker


__all__ = ["AgentPicker", "install_agent_picker", "remember_agent", "restore_agent"]
