"""Applying ``Settings.appearance`` (theme and font size) to the running application.

:func:`apply_appearance` sets the application font (the tokens' UI font chain, at the chosen size) and
records the chosen theme as the application property ``switchboardTheme`` ("system", "light" or "dark"),
then calls every hook registered with :func:`on_appearance_changed`: the theme code registers one that loads the theme's
stylesheet. Until a hook is registered, a built-in light/dark palette is applied, so the choice is
visible either way. Settings and start-up both call it; it is cheap and idempotent.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QFont, QGuiApplication, QPalette
from PySide6.QtWidgets import QApplication

from desktop_app.ui.theme.palette import palette_for
from desktop_app.ui.theme.tokens import UI_FONTS

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
    return palette_for("dark") if theme == "dark" else QPalette(_system_palette)


def ui_font(base: QFont) -> QFont:
    """``base`` (the system's UI font, its size) with the UI font chain of the tokens: the first family the OS
    ships wins (Inter, Segoe UI, SF Pro, Cantarell, Noto Sans…), the system's own family last."""
    font = QFont(base)
    font.setFamilies([*UI_FONTS[:-1], base.family(), UI_FONTS[-1]])
    return font


def apply_appearance(appearance: Any, app: QApplication | None = None) -> str:
    """Apply ``appearance`` (an ``AppearanceSettings``); returns the theme in force (``light``/``dark``)."""
    global _system_font, _system_palette
    app = app or QApplication.instance()  # type: ignore[assignment]
    if not isinstance(app, QApplication):
        return "light"
    if _system_font is None:
        _system_font, _system_palette = QFont(app.font()), QPalette(app.palette())
    font = ui_font(_system_font)
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


__all__ = ["apply_appearance", "on_appearance_changed", "resolved_theme", "ui_font"]
