"""Switching the theme re-styles the application once: Fusion is set the first time only (Qt's style-sheet
style, which ``app.style()`` returns under a stylesheet, has no name, and asking it set Fusion again on every
switch: one more re-polish of every widget)."""

from __future__ import annotations

from desktop_app.ui.theme import themes as theme


def test_a_theme_switch_keeps_the_style_and_sets_only_palette_and_sheet(qapp, restore_app_look):
    theme.apply_theme("light")
    style = qapp.style()
    assert style.metaObject().className() == "QStyleSheetStyle"  # Fusion under the theme's stylesheet
    for name in ("dark", "light", "dark"):
        theme.apply_theme(name)
        assert qapp.style() is style, f"the style was set again for {name}"
        assert qapp.styleSheet() == theme.stylesheet_for(name)


def test_a_switch_retints_the_tone_colours_widgets_put_in_their_own_stylesheets(qtbot, qapp, restore_app_look):
    from PySide6.QtWidgets import QLabel

    from desktop_app.ui.chat.common import ERROR_COLOR, OK_COLOR
    from desktop_app.ui.theme.tokens import DARK, LIGHT

    theme.apply_theme("light")
    error, done, plain = QLabel("failed"), QLabel("done"), QLabel("plain")
    for label in (error, done, plain):
        qtbot.addWidget(label)
    error.setStyleSheet(f"QLabel {{ color: {ERROR_COLOR}; }}")
    done.setStyleSheet(f"color: {OK_COLOR};")
    assert LIGHT.danger in error.styleSheet()
    theme.apply_theme("dark")
    assert DARK.danger in error.styleSheet() and LIGHT.danger not in error.styleSheet()
    assert done.styleSheet() == f"color: {DARK.success};" and plain.styleSheet() == ""
    theme.apply_theme("light")
    assert error.styleSheet() == f"QLabel {{ color: {LIGHT.danger}; }}"
