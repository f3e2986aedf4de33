"""The ``QPalette`` of a theme, from the design tokens: Fusion and every widget that draws with palette roles
(``palette(mid)`` in a stylesheet, ``QPalette.ColorRole.Text`` in a painter) get the tokens' colours."""

from __future__ import annotations

from PySide6.QtGui import QColor, QPalette

from desktop_app.ui.theme.tokens import tokens


def _roles(theme: str) -> dict[QPalette.ColorRole, str]:
    """The palette's roles from the tokens: widgets that draw their own colours read the same values."""
    t = tokens(theme)
    r = QPalette.ColorRole
    return {
        r.Window: t.surface,
        r.WindowText: t.text,
        r.Base: t.surface_page,
        r.AlternateBase: t.surface_alt,
        r.Text: t.text,
        r.Button: t.control,
        r.ButtonText: t.text,
        r.Highlight: t.accent,
        r.HighlightedText: t.accent_text,
        r.ToolTipBase: t.surface_raised,
        r.ToolTipText: t.text,
        r.PlaceholderText: t.text_muted,
        r.Link: t.link,
        r.Mid: t.divider,
        r.Midlight: t.divider,
        r.Light: t.surface_raised,
        r.Dark: t.border,
        r.BrightText: t.danger,  # error text in a widget's own sheet: ``color: palette(bright-text)``
    }


def palette_for(theme: str) -> QPalette:
    palette = QPalette()
    for role, colour in _roles(theme).items():
        palette.setColor(role, QColor(colour))
    disabled = tokens(theme).qcolor("text_disabled")
    for role in (
        QPalette.ColorRole.Text,
        QPalette.ColorRole.WindowText,
        QPalette.ColorRole.ButtonText,
        QPalette.ColorRole.PlaceholderText,  # an empty disabled field says so too
    ):
        palette.setColor(QPalette.ColorGroup.Disabled, role, disabled)
    return palette


__all__ = ["palette_for"]
