"""Applying ``Settings.appearance`` (theme and font size) to the running application.

:func:`apply_appearance` sets the application font size and records the chosen theme as the
application property ``switchboardTheme`` ("system", "light" or "dark"), then calls every hook
registered with :func:`on_appearance_changed`: the theme code registers one that loads the theme's
stylesheet. Until a hook is registered, a built-in light/dark palette is applied, so the choice is
visible either way. Settings and start-up both call it; it is cheap and idempotent.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QFont, QGuiApplication, QPalette
from PySide6.QtWidgets import QApplication

log = logging.getLogger(__name__)

AppearanceHook = Callable[[Any], None]
_hooks: list[AppearanceHook] = []
_system_font: QFont | None = None
_system_palette: QPalette | None = None


def on_appearance_changed(hook: AppearanceHook) -> Callable[[], None]:
    """Call ``hook(appearance)`` on every :func:`apply_appearance`; returns a function that removes it."""
    _hooks.append(hook)

    def remove() -> None:
        if hook in _hooks:
            _hooks.remove(hook)

    return remove


def resolved_theme(theme: str) -> str:
    """``light`` or ``dark``: "system" asks the platform's colour scheme (light when it does not say)."""
    if theme in ("light", "dark"):
        return theme
    hints = QGuiApplication.styleHints()
    return "dark" if hints.colorScheme() == Qt.ColorScheme.Dark else "light"


def _palette(theme: str) -> QPalette:
    assert _system_palette is not None
    if theme != "dark":
        return QPalette(_system_palette)
    palette = QPalette()
    colors = {
        QPalette.ColorRole.Window: "#1f2124",
        QPalette.ColorRole.WindowText: "#e6e6e6",
        QPalette.ColorRole.Base: "#17181a",
        QPalette.ColorRole.AlternateBase: "#26282c",
        QPalette.ColorRole.Text: "#e6e6e6",
        QPalette.ColorRole.Button: "#2b2d31",
        QPalette.ColorRole.ButtonText: "#e6e6e6",
        QPalette.ColorRole.Highlight: "#3d6fb6",
        QPalette.ColorRole.HighlightedText: "#ffffff",
        QPalette.ColorRole.ToolTipBase: "#2b2d31",
        QPalette.ColorRole.ToolTipText: "#e6e6e6",
        QPalette.ColorRole.PlaceholderText: "#8a8f98",
        QPalette.ColorRole.Link: "#7aa7ff",
    }
    for role, color in colors.items():
        palette.setColor(role, QColor(color))
    return palette


def apply_appearance(appearance: Any, app: QApplication | None = None) -> str:
    """Apply ``appearance`` (an ``AppearanceSettings``); returns the theme in force (``light``/``dark``)."""
    global _system_font, _system_palette
    app = app or QApplication.instance()  # type: ignore[assignment]
    if not isinstance(app, QApplication):
        return "light"
    if _system_font is None:
        _system_font, _system_palette = QFont(app.font()), QPalette(app.palette())
    font = QFont(_system_font)
    if getattr(appearance, "font_size", 0):
        font.setPointSize(int(appearance.font_size))
    if font != app.font():  # the same font again would still re-lay out every widget
        app.setFont(font)
    theme = resolved_theme(getattr(appearance, "theme", "system"))
    app.setProperty("switchboardTheme", theme)
    if not _hooks:
        app.setPalette(_palette(theme))
    for hook in list(_hooks):
        try:
            hook(appearance)
        except Exception:  # one broken hook must not stop the others or the settings window
            log.exception("an appearance hook failed")
    return theme


__all__ = ["apply_appearance", "on_appearance_changed", "resolved_theme"]
