"""The main window's right-hand docks (Servers, Tools) and the room they take, built after ``runtime: ready``.

Both docks start hidden and nothing a first prompt does needs them, so the app builds them one loop turn after
``runtime: ready`` (``App._after_ready``: ~40 ms of widgets and style polish off the way to ready, issue 27).
Whatever needs them sooner builds them first: the window's ``servers_dock``, ``tools_dock`` and ``dock_room``
go through ``SideDocks.build`` (a restored layout, ``attach_host``, a test). What came before them is caught
up when they are built: the runtime (the Tools dock's list), its ``tool_search`` shortcut from the settings,
the tab order (the Servers indicator is no Tab stop) and the View menu's order (Servers and Tools come right
after Conversations, before what the runtime added: Workflows…, Tasks…).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from PySide6.QtGui import QKeySequence

from desktop_app.ui.window.menus import order_menus, view_menu

if TYPE_CHECKING:
    from desktop_app.ui.servers.dock import ServersDock
    from desktop_app.ui.tools.dock import ToolsDock
    from desktop_app.ui.window.docks import DockRoom
    from desktop_app.ui.window.main_window import MainWindow


class SideDocks:
    """The Servers and Tools docks of one window (``window.side_docks``), built once by ``build``."""

    def __init__(self, window: MainWindow) -> None:
        self.window = window
        self.view_actions_before = len(view_menu(window).actions())
        """The View menu's actions that come before the docks' (Conversations): later ones move after them."""
        self.servers: ServersDock | None = None
        self.tools: ToolsDock | None = None
        self.room: DockRoom | None = None
        self._runtime: tuple[Any, Callable[[], str | None]] | None = None
        self._building = False

    @property
    def built(self) -> bool:
        return self.room is not None

    def attach_runtime(self, runtime: Any, conversation: Callable[[], str | None]) -> None:
        """The Tools dock lists ``runtime``'s tools: now if it is built, else once it is."""
        self._runtime = (runtime, conversation)
        if self.tools is not None:
            self.tools.panel.attach_runtime(runtime, conversation)

    def build(self) -> SideDocks:
        """Add both docks (hidden), their View menu actions and status-bar indicator, once."""
        if self.room is not None or self._building:
            return self
        self._building = True
        from desktop_app.ui.servers.dock import install_servers_dock
        from desktop_app.ui.theme.icons import apply_action_icons
        from desktop_app.ui.tools.dock import install_tools_dock
        from desktop_app.ui.window.docks import DockRoom
        from desktop_app.ui.window.focus import set_tab_order

        w = self.window
        menu = view_menu(w)
        later = menu.actions()[self.view_actions_before :]
        self.servers = install_servers_dock(w, w.tasks)
        self.tools = install_tools_dock(w)  # Ctrl+K
        self.room = DockRoom(w, w.conversations_dock, [self.servers, self.tools])
        for action in later:  # Workflows…, Tasks… (added with the runtime) stay after the docks' actions
            menu.removeAction(action)
            menu.addAction(action)
        w.empty_states.install_panels()  # no servers of one's own, no tools
        if self._runtime is not None:
            self.tools.panel.attach_runtime(*self._runtime)
            keys = getattr(getattr(self._runtime[0].settings, "shortcuts", None), "tool_search", None)
            if isinstance(keys, str):  # what ``provider.apply_settings`` did for the actions there were then
                self.tools.search_action.setShortcut(QKeySequence(keys, QKeySequence.SequenceFormat.PortableText))
        order_menus(w)
        apply_action_icons(w)
        set_tab_order(w)
        return self


__all__ = ["SideDocks"]
