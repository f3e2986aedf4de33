"""The light and dark themes: one stylesheet per theme built from the tokens, a palette to match, the system's
scheme followed unless the settings name a theme; the reading column and the turn labels."""

from __future__ import annotations

import pytest
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import QApplication, QLabel

from desktop_app.runtime.settings import AppearanceSettings
from desktop_app.ui.chat.markdown_theme import is_dark
from desktop_app.ui.chat.measure import reading_width
from desktop_app.ui.chat.view import ChatView
from desktop_app.ui.theme import appearance
from desktop_app.ui.theme import themes as theme
from desktop_app.ui.theme.tokens import DARK, tokens


def test_each_theme_has_its_own_stylesheet_and_palette(qapp, restore_app_look):
    theme.apply_theme("dark")
    assert is_dark(QApplication.palette())
    assert qapp.styleSheet() == theme.stylesheet_for("dark") and "dark theme" in qapp.styleSheet()
    assert tokens().name == "dark" and QApplication.palette().color(QPalette.ColorRole.Base).name() == DARK.surface_page
    theme.apply_theme("light")
    assert not is_dark(QApplication.palette())
    assert "light theme" in qapp.styleSheet()


def test_the_setting_overrides_the_system_and_system_follows_it(qapp, restore_app_look, monkeypatch):
    theme.install()
    scheme = {"now": "light"}
    monkeypatch.setattr(theme, "resolved_theme", lambda name: name if name in ("light", "dark") else scheme["now"])
    appearance.apply_appearance(AppearanceSettings(theme="dark"))
    assert is_dark(QApplication.palette())
    scheme["now"] = "light"
    theme._on_scheme_changed(None)  # the system switched: an explicit "dark" stays dark
    assert is_dark(QApplication.palette())
    appearance.apply_appearance(AppearanceSettings(theme="system"))
    assert not is_dark(QApplication.palette())
    scheme["now"] = "dark"
    try:
        theme._on_scheme_changed(None)  # ... and "system" follows it
        assert is_dark(QApplication.palette())
    finally:
        theme.uninstall()


def test_settings_that_keep_the_theme_do_not_set_the_stylesheet_again(qapp, restore_app_look, monkeypatch):
    """Start-up applies the saved settings once the runtime is in: the same theme must not re-polish every
    widget; a different one is put in force."""
    theme.install()
    applied: list[str] = []
    real = theme.apply_theme
    monkeypatch.setattr(theme, "apply_theme", lambda name, app=None: (applied.append(name), real(name, app)))
    monkeypatch.setattr(theme, "resolved_theme", lambda name: name if name in ("light", "dark") else "light")
    theme.apply_theme("light")
    applied.clear()
    appearance.apply_appearance(AppearanceSettings(theme="system"))  # resolves to light, already in force
    appearance.apply_appearance(AppearanceSettings(theme="light"))
    assert applied == []
    appearance.apply_appearance(AppearanceSettings(theme="dark"))
    assert applied == ["dark"] and is_dark(QApplication.palette())


def test_reading_column_and_turn_labels(qtbot):
    view = ChatView()
    qtbot.addWidget(view)
    assert view.column.maximumWidth() == reading_width()  # a line of prose (test_chat_layout measures it)
    view.add_user_message("hello")
    view.add_answer("Hi **there**")
    names = [w.objectName() for w in view.blocks() if not w.isHidden()]
    assert names[-3:] == ["userTurn", "assistantLabel", "answerView"]


@pytest.mark.parametrize("name", ["light", "dark"])
def test_error_text_in_a_widgets_own_sheet_takes_the_themes_danger_colour(qtbot, qapp, restore_app_look, name):
    """``form.ERROR_STYLE`` is built at import, before any theme: it names a palette role, not a colour."""
    from PySide6.QtGui import QColor

    from desktop_app.ui.settings.form import ERROR_STYLE
    from desktop_app.ui.theme.tokens import THEMES

    theme.apply_theme("light" if name == "dark" else "dark")
    theme.apply_theme(name)
    label = QLabel("█████")
    qtbot.addWidget(label)
    label.setStyleSheet(ERROR_STYLE)
    label.show()
    image = label.grab().toImage()
    want = QColor(THEMES[name].danger)
    colours = {image.pixelColor(x, y).rgb() for x in range(image.width()) for y in range(image.height())}
    assert want.rgb() in colours
