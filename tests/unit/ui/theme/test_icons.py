"""The icon set: every icon renders in both themes at 1× and 2×, in the theme's colour (so a theme switch
re-tints it), and every window action with an icon role has its icon."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QSize
from PySide6.QtGui import QAction, QColor, QIcon

from desktop_app.ui.theme import themes as theme
from desktop_app.ui.theme.icons import ACTION_ICONS, ICON_NAMES, icon
from desktop_app.ui.theme.tokens import tokens


@pytest.fixture
def themed(restore_app_look):
    """The app's look restored after the test (each test applies its theme)."""


def _ink(qicon: QIcon, scale: float, mode: QIcon.Mode = QIcon.Mode.Normal) -> tuple[int, QColor]:
    """How many pixels the icon draws at 16 px × ``scale``, and its most opaque pixel's colour."""
    pixmap = qicon.pixmap(QSize(16, 16), scale, mode)
    image = pixmap.toImage()
    assert image.width() == round(16 * scale) and pixmap.devicePixelRatio() == scale  # drawn at device pixels
    pixels = [image.pixelColor(x, y) for x in range(image.width()) for y in range(image.height())]
    drawn = [p for p in pixels if p.alpha() > 0]
    return len(drawn), max(pixels, key=lambda p: p.alpha())


def _same(colour: QColor, hex_colour: str) -> bool:
    """The same colour, give or take the rounding of a half-covered pixel."""
    other = QColor(hex_colour)
    return all(abs(a - b) <= 3 for a, b in zip(colour.getRgb()[:3], other.getRgb()[:3], strict=True))


@pytest.mark.parametrize("theme_name", ["light", "dark"])
def test_every_icon_renders_in_the_theme_colour_at_1x_and_2x(qapp, themed, theme_name):
    qapp.setProperty("switchboardTheme", theme_name)  # the tokens in force (what apply_theme sets)
    for name in ICON_NAMES:
        one, colour = _ink(icon(name, "text"), 1.0)
        two, _ = _ink(icon(name, "text"), 2.0)
        assert one > 10 and two > 2 * one  # about four times the pixels at 2× (fewer half-covered edges)
        assert _same(colour, tokens().text), (name, theme_name, colour.name())


def test_an_icon_re_tints_when_the_theme_switches(qapp, themed):
    send = icon("send", "text")  # one QIcon, kept across the switch (as a button keeps it)
    theme.apply_theme("light")
    _, light = _ink(send, 1.0)
    theme.apply_theme("dark")
    _, dark = _ink(send, 1.0)
    assert _same(light, tokens("light").text) and _same(dark, tokens("dark").text)
    _, disabled = _ink(send, 1.0, QIcon.Mode.Disabled)
    assert _same(disabled, tokens("dark").text_disabled)


@pytest.mark.parametrize("theme_name", ["light", "dark"])
def test_every_window_action_with_an_icon_role_has_its_icon(qapp, themed, window, theme_name):
    theme.apply_theme(theme_name)
    actions = {a.objectName(): a for a in window.findChildren(QAction) if a.objectName() in ACTION_ICONS}
    assert set(actions) == set(ACTION_ICONS)  # every role names an action the window has
    for name, action in actions.items():
        drawn, _ = _ink(action.icon(), 1.0)
        assert drawn > 10, name
    composer = window.composer
    for button in (composer.attach_button, composer.button, composer.model_button):
        assert not button.icon().isNull(), button.objectName()
