"""Switching the theme re-styles the application once: Fusion is set the first time only (Qt's style-sheet
style, which ``app.style()`` returns under a stylesheet, has no name, and asking it set Fusion again on every
switch: one more re-polish of every widget)."""

from __future__ import annotations

import pytest
from PySide6.QtWidgets import QApplication

from desktop_app.ui.theme import themes as theme


@pytest.fixture
def restore_app_look(qapp):
    palette, sheet = QApplication.palette(), qapp.styleSheet()
    yield
    qapp.setStyleSheet(sheet)
    QApplication.setPalette(palette)
    theme.uninstall()


def test_a_theme_switch_keeps_the_style_and_sets_only_palette_and_sheet(qapp, restore_app_look):
    theme.apply_theme("light")
    style = qapp.style()
    assert style.metaObject().className() == "QStyleSheetStyle"  # Fusion under the theme's stylesheet
    for name in ("dark", "light", "dark"):
        theme.apply_theme(name)
        assert qapp.style() is style, f"the style was set again for {name}"
        assert qapp.styleSheet() == theme.stylesheet_for(name)
