"""What the main window builds right after ``runtime: ready``: the hidden Servers and Tools docks and the room they
take, the find bar, the server-request cards and the Help menu.

None of them is needed to send a first prompt, so the app builds them one loop turn after ``runtime: ready``
(``App._after_ready`` → ``MainWindow.after_ready``: ~50 ms of imports, widgets and style polish off the way to
ready, issue 27). Whatever needs one sooner builds them all first: the window's attributes for them are
``Later`` descriptors that go through ``LaterParts.build`` (a restored layout, ``attach_host``, Ctrl+F, a
test). What came before them is caught up when they are built: the runtime (the Tools dock's list), its
``tool_search`` shortcut from the settings, the tab order (the Servers indicator is no Tab stop), the menu bar's
order (Help last) and the View menu's (Servers and Tools right after Conversations, before what the runtime
added: Workflows…, Tasks…).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Generic, TypeVar, overload

from PySide6.QtGui import QKeySequence

from desktop_app.ui.window.menus import order_menus, view_menu

if TYPE_CHECKING:
    from PySide6.QtGui import QAction

    from desktop_app.ui.chat.find import FindBar
    from desktop_app.ui.servers.dock import ServersDock
    from desktop_app.ui.servers.requests import ServerRequests
    from desktop_app.ui.tools.dock import ToolsDock
    from desktop_app.ui.window.docks import DockRoom
    from desktop_app.ui.window.main_window import MainWindow

T = TypeVar("T")


class LaterParts:
    """The parts of one window (``window.later_parts``) that ``build`` makes, once."""

    def __init__(self, window: MainWindow) -> None:
        self.window = window
        self.view_actions_before = len(view_menu(window).actions())
        """The View menu's actions that come before the docks' (Conversations): later ones move after them."""
        self.servers: ServersDock | None = None
        self.tools: ToolsDock | None = None
        self.room: DockRoom | None = None
        self.find_bar: FindBar | None = None
        self.server_requests: ServerRequests | None = None
        self.about_action: QAction | None = None
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

    def build(self) -> LaterParts:
        """The find bar, the server-request cards, both docks (hidden) with their View menu actions and the
        status-bar indicator, and the Help menu; once."""
        if self.room is not None or self._building:
            return self
        self._building = True
        from desktop_app.ui.chat.find import FindBar
        from desktop_app.ui.dialogs.about import install_help_menu
        from desktop_app.ui.servers.dock import install_servers_dock
        from desktop_app.ui.servers.requests import ServerRequests
        from desktop_app.ui.theme.icons import apply_action_icons
        from desktop_app.ui.tools.dock import install_tools_dock
        from desktop_app.ui.window.docks import DockRoom
        from desktop_app.ui.window.focus import set_tab_order

        w = self.window
        self.find_bar = FindBar(w.view)
        w._column.insertWidget(w._column.indexOf(w.view) + 1, self.find_bar)
        self.server_requests = ServerRequests(w.view, w)  # sampling/elicitation cards, inline in the chat
        self.server_requests.status_message.connect(w.set_status)
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
        self.about_action = install_help_menu(w)  # Help → About Switchboard, the last menu
        order_menus(w)
        apply_action_icons(w)  # the menus' actions get the icon set's icons (``theme.icons``)
        set_tab_order(w)
        return self


class Later(Generic[T]):
    """A window attribute held by ``window.later_parts`` (``LaterParts.<part>``): reading it builds the later
    parts first if they are not yet; before ``build_rest`` it is not there, like the rest."""

    def __init__(self, part: str) -> None:
        self.part = part

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    @overload
    def __get__(self, window: None, owner: type) -> Later[T]: ...

    @overload
    def __get__(self, window: MainWindow, owner: type) -> T: ...

    def __get__(self, window: MainWindow | None, owner: type) -> Later[T] | T:
        if window is None:
            return self
        if not window.rest_built:
            raise AttributeError(self.name)
        value: T | None = getattr(window.later_parts.build(), self.part)
        if value is None:  # while they are being built
            raise AttributeError(self.name)
        return value


__all__ = ["Later", "LaterParts"]
