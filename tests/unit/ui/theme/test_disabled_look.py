"""Disabled buttons look disabled in both themes (QSS :disabled): the Servers dock's Edit…, Disable and
Remove for a built-in server are disabled, and rendered they carry no text in the theme's text colour, while
the same buttons enabled (a server from mcp.json) do."""

from __future__ import annotations

import pytest
from PySide6.QtGui import QColor, QImage
from PySide6.QtWidgets import QPushButton

from desktop_app.ui.servers.log_view import ServerInfo
from desktop_app.ui.theme import themes as theme
from desktop_app.ui.window.main_window import MainWindow

TEXT = {"light": "#1f2328", "dark": "#e6e8eb"}


class Host:
    def tools(self, include_excluded: bool = False) -> list[object]:
        return []

    async def list_resources(self, server: str) -> list[object]:
        return []

    async def list_prompts(self, server: str) -> list[object]:
        return []


@pytest.fixture
def themed(restore_app_look):
    """The app's look restored after the test (each test applies its theme)."""


def _text_coloured(image: QImage, hex_colour: str, tolerance: int = 48) -> int:
    """How many pixels are drawn in (about) ``hex_colour``."""
    want = QColor(hex_colour)
    count = 0
    for y in range(image.height()):
        for x in range(image.width()):
            c = image.pixelColor(x, y)
            if max(abs(c.red() - want.red()), abs(c.green() - want.green()), abs(c.blue() - want.blue())) <= tolerance:
                count += 1
    return count


@pytest.mark.parametrize("name", ["light", "dark"])
def test_the_built_in_servers_buttons_are_disabled_and_look_it(qtbot, qloop, themed, name):
    theme.apply_theme(name)
    window = MainWindow()
    qtbot.addWidget(window)
    window.resize(1200, 700)
    window.show()
    window.servers_dock.show()
    inspector = window.servers_dock.panel.inspector
    buttons: list[QPushButton] = [inspector.edit_button, inspector.toggle_button, inspector.remove_button]

    inspector.show_server("notes", ServerInfo("notes", "ready"), Host(), managed=True)
    qtbot.waitUntil(lambda: all(b.isVisible() and b.isEnabled() for b in buttons))
    enabled = {b.objectName(): b.grab().toImage() for b in buttons}

    inspector.show_server("agents", ServerInfo("agents", "ready", builtin=True), Host(), managed=True)
    assert not any(b.isEnabled() for b in buttons)  # built in: cannot be edited, disabled or removed
    for button in buttons:
        disabled = button.grab().toImage()
        assert disabled != enabled[button.objectName()], button.objectName()
        assert _text_coloured(enabled[button.objectName()], TEXT[name]) > 0, button.objectName()
        assert _text_coloured(disabled, TEXT[name]) == 0, f"{button.objectName()} still reads as enabled ({name})"
