"""Settings pages: how a feature brings its page into the Settings window.

A page is data: a key, a title, the settings sections it edits (each a generated :class:`ModelForm` over
one pydantic model inside ``Settings``) and, optionally, a widget of its own (a list of grants, the hooks
review) placed under those sections. Register it once, at import time of a module named in
:data:`PAGE_MODULES`::

    # desktop_app/ui/settings/deferral_page.py  (and add the module to PAGE_MODULES)
    from desktop_app.ui.settings.registry import FormSection, SettingsPage, register_page

    register_page(SettingsPage(
        key="deferral", title="Tool loading", order=40,
        description="When tool definitions are deferred behind tool_search.",
        sections=(FormSection("deferral"),),           # every field of Settings.deferral, generated
    ))

A page's own widget subclasses :class:`PageExtra`: ``contribute(data)`` adds its values to the settings
dict before validation, ``apply(settings)`` runs after a successful save, and ``problem()`` blocks saving
with a sentence. A page with neither a section nor an extra is refused: no page is an empty placeholder.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QWidget

PAGE_MODULES: list[str] = [
    "desktop_app.ui.settings.builtin_pages",
    "desktop_app.ui.settings.hooks_page",
    "desktop_app.ui.settings.desktop_page",
    "desktop_app.ui.settings.deferral_page",
    "desktop_app.ui.settings.skills_page",
    "desktop_app.ui.settings.http_host_page",
    "desktop_app.ui.settings.apps_page",
    "desktop_app.ui.settings.agents_page",
    "desktop_app.ui.settings.plugins_page",
]
"""Modules that register pages when imported (add yours here)."""


@dataclass(frozen=True)
class FormSection:
    """A generated form over the model at ``path`` in ``Settings`` ("" is ``Settings`` itself,
    ``"appearance"`` is ``Settings.appearance``); ``fields`` picks and orders fields (``None``: all)."""

    path: str = ""
    fields: tuple[str, ...] | None = None
    title: str = ""
    description: str = ""


@dataclass
class PageContext:
    """What a page's own widget may use: the runtime, the MCP host (or ``None``), the window's task runner."""

    runtime: Any
    host: Any = None
    tasks: Any = None
    parent: QWidget | None = None


class PageExtra(QWidget):
    """A page's own widget, under its generated sections.

    Signals:
        changed(): the user edited something that Save will write.
    """

    changed = Signal()

    def contribute(self, data: dict[str, Any]) -> None:
        """Put this widget's values into ``data`` (a ``Settings.model_dump()``) before validation."""

    def problem(self) -> str | None:
        """A sentence saying why the page cannot be saved as it is, or ``None``."""
        return None

    def apply(self, settings: Any) -> None:
        """Called after ``settings`` were saved (store secrets, refresh lists)."""

    def show_errors(self, errors: dict[tuple[str | int, ...], str]) -> bool:
        """Show validation errors this widget owns (by ``loc``); return whether it showed any."""
        return False


@dataclass(frozen=True)
class SettingsPage:
    """One page of the Settings window (sidebar entry ``title``)."""

    key: str
    title: str
    description: str = ""
    sections: tuple[FormSection, ...] = ()
    extra: Callable[[PageContext], PageExtra] | None = None
    order: int = 100

    def __post_init__(self) -> None:
        if not self.sections and self.extra is None:
            raise ValueError(f"settings page '{self.key}' has nothing to show: give it a section or an extra")


_PAGES: dict[str, SettingsPage] = {}


def register_page(page: SettingsPage) -> SettingsPage:
    """Add ``page`` (a second registration under the same key replaces the first, for reloads)."""
    _PAGES[page.key] = page
    return page


def registered_pages() -> list[SettingsPage]:
    """Every page, imported from :data:`PAGE_MODULES` first, by ``order`` then title."""
    for module in PAGE_MODULES:
        importlib.import_module(module)
    return sorted(_PAGES.values(), key=lambda p: (p.order, p.title))


__all__ = ["PAGE_MODULES", "FormSection", "PageContext", "PageExtra", "SettingsPage", "register_page"]
