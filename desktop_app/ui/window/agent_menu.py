"""The Agent menu: which agent the current conversation talks to (the default agent unless picked here).

The list comes from the runtime's agents (settings and ``agents/*.md``) each time the menu opens, with the
current conversation's agent checked. Picking one applies from the conversation's next run; a running
conversation refuses the change and the status bar says why.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtGui import QAction, QActionGroup
from PySide6.QtWidgets import QMainWindow, QMenu


def add_agent_menu(
    window: QMainWindow,
    runtime: Any,
    conversation: Callable[[], str],
    status: Callable[[str], None],
    *,
    pick: Callable[[str], bool] | None = None,
) -> QMenu | None:
    """Add the Agent menu (``None`` when the runtime has no agents); ``pick``: the composer's agent picker's
    (which also stores the choice with the conversation)."""
    if getattr(runtime, "agents", None) is None:
        return None
    menu = window.menuBar().addMenu("&Agent")
    menu.setObjectName("agentMenu")
    group = QActionGroup(menu)
    group.setExclusive(True)

    def choose(name: str) -> None:
        if pick is not None:
            pick(name)
            return
        try:
            runtime.set_conversation_agent(conversation(), name)
        except Exception as exc:  # busy, or the agent went away
            status(str(exc))
            return
        status(f"This conversation now talks to the agent '{name}'.")

    def refresh() -> None:
        menu.clear()
        for action in group.actions():
            group.removeAction(action)
        catalog = runtime.agents
        current = runtime.conversation_agent(conversation())
        for name in catalog.names():
            definition = catalog.get(name)
            label = name + (" (default)" if name == catalog.default else "")
            action = QAction(label, menu, checkable=True)
            action.setObjectName(f"agentAction-{name}")
            action.setToolTip(definition.description if definition is not None else "")
            action.setStatusTip(definition.description if definition is not None else "")
            action.setChecked(name == current)
            action.triggered.connect(lambda _checked=False, name=name: choose(name))
            group.addAction(action)
            menu.addAction(action)

    menu.aboutToShow.connect(refresh)
    refresh()
    return menu
