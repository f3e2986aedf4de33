"""The light and dark themes: a palette and one stylesheet per theme (``resources/light.qss``,
``resources/dark.qss``), applied to the whole application.

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
from PySide6.QtGui import QColor, QGuiApplication, QPalette
from PySide6.QtWidgets import QApplication

from desktop_app.ui.theme.appearance import on_appearance_changed, resolved_theme

log = logging.getLogger(__name__)

LIGHT = {
    QPalette.ColorRole.Window: "#f6f7f9",
    QPalette.ColorRole.WindowText: "#1f2328",
    QPalette.ColorRole.Base: "#ffffff",
    QPalette.ColorRole.AlternateBase: "#f0f2f5",
    QPalette.ColorRole.Text: "#1f2328",
    QPalette.ColorRole.Button: "#eef0f3",
    QPalette.ColorRole.ButtonText: "#1f2328",
    QPalette.ColorRole.Highlight: "#2f6fde",
    QPalette.ColorRole.HighlightedText: "#ffffff",
    QPalette.ColorRole.ToolTipBase: "#ffffff",
    QPalette.ColorRole.ToolTipText: "#1f2328",
    QPalette.ColorRole.PlaceholderText: "#6e7781",
    QPalette.ColorRole.Link: "#0969da",
    QPalette.ColorRole.Mid: "#d0d7de",
    QPalette.ColorRole.Midlight: "#e4e8ec",
}
DARK = {
    QPalette.ColorRole.Window: "#1b1d21",
    QPalette.ColorRole.WindowText: "#e6e8eb",
    QPalette.ColorRole.Base: "#202226",
    QPalette.ColorRole.AlternateBase: "#25282d",
    QPalette.ColorRole.Text: "#e6e8eb",
    QPalette.ColorRole.Button: "#2a2d33",
    QPalette.ColorRole.ButtonText: "#e6e8eb",
    QPalette.ColorRole.Highlight: "#3d7be0",
    QPalette.ColorRole.HighlightedText: "#ffffff",
    QPalette.ColorRole.ToolTipBase: "#2a2d33",
    QPalette.ColorRole.ToolTipText: "#e6e8eb",
    QPalette.ColorRole.PlaceholderText: "#8b929c",
    QPalette.ColorRole.Link: "#6ea8ff",
    QPalette.ColorRole.Mid: "#3a3e45",
    QPalette.ColorRole.Midlight: "#30343a",
}
_installed: list[Any] = []  # [the last appearance applied] once installed
_removers: list[Any] = []
_in_force: list[str] = []  # [the theme ``apply_theme`` last put in force]


def resources_dir() -> Path:
    """``resources/`` next to the package in a checkout, under ``_MEIPASS`` when frozen."""
    base = getattr(sys, "_MEIPASS", None)
    return (Path(base) if base else Path(__file__).resolve().parents[3]) / "resources"


def stylesheet_path(theme: str) -> Path:
    return resources_dir() / f"{'dark' if theme == 'dark' else 'light'}.qss"


def palette_for(theme: str) -> QPalette:
    palette = QPalette()
    for role, colour in (DARK if theme == "dark" else LIGHT).items():
        palette.setColor(role, QColor(colour))
    disabled = QColor(palette.color(QPalette.ColorRole.PlaceholderText))
    for role in (QPalette.ColorRole.Text, QPalette.ColorRole.WindowText, QPalette.ColorRole.ButtonText):
        palette.setColor(QPalette.ColorGroup.Disabled, role, disabled)
    return palette


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
    app.setPalette(palette_for(theme))
    path = stylesheet_path(theme)
    try:
        app.setStyleSheet(path.read_text(encoding="utf-8"))
    except OSError as exc:
        log.warning("the %s theme's stylesheet %s could not be read: %s", theme, path, exc)
    app.setProperty("switchboardTheme", theme)
    _in_force[:] = [theme]


def _on_appearance(appearance: Any) -> None:
    _installed[:] = [appearance]
    theme = resolved_theme(getattr(appearance, "theme", "system"))
    if _in_force != [theme]:  # setting the same stylesheet again re-polishes every widget (~60 ms at start-up)
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


__all__ = ["apply_theme", "install", "palette_for", "resources_dir", "stylesheet_path", "uninstall"]
