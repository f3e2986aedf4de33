"""The light and dark themes: a palette and one stylesheet per theme, both built from the design tokens
(``tokens.py``, ``stylesheet.py``), applied to the whole application.

:func:`install` registers an ``appearance`` hook (``desktop_app.ui.theme.appearance``): every time the
appearance settings are applied, the theme they name ("system" follows the platform's colour scheme) gets
its palette and stylesheet. With "system", a change of the platform's scheme while the app runs switches
the theme at once (``QStyleHints.colorSchemeChanged``). Widgets that draw their own colours (rendered
Markdown, code colours) follow the palette change.
"""

from __future__ import annotations

import logging
import sys
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QApplication

from desktop_app.ui.theme.appearance import on_appearance_changed, resolved_theme
from desktop_app.ui.theme.palette import palette_for
from desktop_app.ui.theme.stylesheet import stylesheet
from desktop_app.ui.theme.tokens import base_point_size, tokens

log = logging.getLogger(__name__)


_installed: list[Any] = []  # [the last appearance applied] once installed
_removers: list[Any] = []
_in_force: list[str] = []  # [the theme ``apply_theme`` last put in force]


def resources_dir() -> Path:
    """``resources/`` next to the package in a checkout, under ``_MEIPASS`` when frozen."""
    base = getattr(sys, "_MEIPASS", None)
    return (Path(base) if base else Path(__file__).resolve().parents[3]) / "resources"


def stylesheet_for(theme: str) -> str:
    """The application stylesheet of ``theme`` at the application font's size (built once, then cached)."""
    return stylesheet(theme, base_point_size())


def _is_fusion(app: QApplication) -> bool:
    """Whether Fusion draws already. Under a stylesheet ``app.style()`` is Qt's style-sheet style, whose
    ``name()`` is empty: asking only it set Fusion again on every theme switch, one more re-polish of every
    widget. So the first check is remembered on the application."""
    if app.property("switchboardFusion") is True:
        return True
    fusion = app.style().name().lower() == "fusion"
    if fusion:
        app.setProperty("switchboardFusion", True)
    return fusion


def apply_theme(theme: str, app: QApplication | None = None) -> None:
    """Put ``theme`` ("light" or "dark") in force: Fusion style, the theme's palette and stylesheet."""
    app = app or QApplication.instance()  # type: ignore[assignment]
    if not isinstance(app, QApplication):
        return
    if not _is_fusion(app):
        app.setStyle("Fusion")  # the one style whose drawing follows the palette on every platform
        app.setProperty("switchboardFusion", True)
    before = app.property("switchboardTheme")
    app.setProperty("switchboardTheme", theme)  # first: ``tokens()`` answers for this theme from here on
    app.setPalette(palette_for(theme))
    app.setStyleSheet(stylesheet_for(theme))
    if before in ("light", "dark") and before != theme:
        retint(before, theme)
    _in_force[:] = [_key(theme)]


TONE_ROLES = ("danger", "success", "warning", "text_muted")
"""The roles widgets put in their own stylesheets (``chat.common``'s ``ERROR_COLOR``…): each has a value of
its own in each theme, so a switch can find and swap it."""


def retint(before: str, after: str) -> int:
    """Swap ``before``'s tone colours for ``after``'s in every widget's own stylesheet (a widget styled with
    ``f"color: {ERROR_COLOR}"`` built its sheet in the theme of that moment); returns how many changed. Runs
    on a theme switch only (``widget_lists``: Qt's own list can crash when the collector runs)."""
    from desktop_app.ui.widget_lists import all_widgets  # a theme switch only, never at start-up

    old, new = tokens(before), tokens(after)
    swaps = [(getattr(old, role), getattr(new, role)) for role in TONE_ROLES]
    changed = 0
    for widget in all_widgets():
        sheet = widget.styleSheet()
        if not sheet or not any(colour in sheet for colour, _ in swaps):
            continue
        for colour, replacement in swaps:
            sheet = sheet.replace(colour, replacement)
        widget.setStyleSheet(sheet)
        changed += 1
    return changed


def _key(theme: str) -> str:
    """What the sheet in force depends on: the theme and the application font's size."""
    return f"{theme}@{base_point_size()}"


def _on_appearance(appearance: Any) -> None:
    _installed[:] = [appearance]
    theme = resolved_theme(getattr(appearance, "theme", "system"))
    if _in_force != [_key(theme)]:  # setting the same stylesheet again re-polishes every widget (~60 ms at start-up)
        apply_theme(theme)


def _on_scheme_changed(_scheme: Qt.ColorScheme) -> None:
    appearance = _installed[0] if _installed else None
    if getattr(appearance, "theme", "system") == "system":
        apply_theme(resolved_theme("system"))


def install() -> None:
    """Register the theme with the appearance settings (once per process) and apply the system's now."""
    if _installed:
        return
    _installed.append(None)
    _removers.append(on_appearance_changed(_on_appearance))
    QGuiApplication.styleHints().colorSchemeChanged.connect(_on_scheme_changed)
    apply_theme(resolved_theme("system"))


def uninstall() -> None:
    """Undo :func:`install` (tests)."""
    if not _installed:
        return
    _installed.clear()
    _in_force.clear()
    while _removers:
        _removers.pop()()
    QGuiApplication.styleHints().colorSchemeChanged.disconnect(_on_scheme_changed)


__all__ = ["apply_theme", "install", "palette_for", "resources_dir", "stylesheet_for", "uninstall"]
