"""Connecting skills to a host and a runtime, also when the first skill arrives after start-up.

:class:`SkillsWiring` registers the lazy built-in ``switchboard.skills`` (``load_skill``) as soon as any skill
is found, and gives the runtime the index block for the system prompt. Discovery runs again each time a new
conversation's system prompt is built (:meth:`SkillsWiring.block`, one of ``Runtime.system_blocks``), so a
skill folder added later, a folder added in Settings, or a plugin enabled while the app runs shows up in the
next conversation without a restart; a conversation already started keeps its prompt, so its cache holds.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from desktop_app.runtime.skills.discovery import SERVER_NAME, SkillSet
from desktop_app.runtime.skills.index import index_block

log = logging.getLogger(__name__)


class SkillsWiring:
    """The skills ``load()`` finds, wired into ``host`` (``register_builtin``) once there are any."""

    def __init__(self, host: Any, load: Callable[[], SkillSet]) -> None:
        self.host = host
        self.load = load
        self.registered = False
        self.problem: str | None = None
        """Why the skills are off (a user server already has the built-in's name), or ``None``."""

    def refresh(self) -> SkillSet:
        """Discover the skills again; register ``switchboard.skills`` the first time there are some."""
        found = self.load()
        if found.skills and not self.registered and self.problem is None:
            try:
                self.host.register_builtin(SERVER_NAME, self._make_server)
            except ValueError:
                self.problem = f"An MCP server in mcp.json is named '{SERVER_NAME}'; the skills are off."
                log.warning("%s", self.problem)
            else:
                self.registered = True
        return found

    def _make_server(self) -> Any:
        from desktop_app.runtime.skills.server import make_skills_server  # the SDK's MCPServer: on first use

        return make_skills_server(self.load)

    def block(self) -> str:
        """The index block for a new conversation's system prompt ("" while there are no usable skills)."""
        found = self.refresh()
        return index_block(found.skills.values()) if self.registered else ""


__all__ = ["SkillsWiring"]
