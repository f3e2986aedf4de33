"""The window's dialogs open again after Qt deleted the last one: Settings → Provider…, the key banner's
"Enter key" and Tools → Approvals…, walked through the real window and the real runtime."""

from __future__ import annotations

from pathlib import Path

import shiboken6
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDialogButtonBox

from desktop_app.runtime.service import Runtime
from desktop_app.runtime.settings import ProviderSettings, Settings
from desktop_app.ui.dialogs.welcome import WelcomeDialog
from desktop_app.ui.window.main_window import MainWindow
from tests.support.fakes import FakeHost

DEEPSEEK = ProviderSettings(base_url="https://api.deepseek.com", model="deepseek-chat", dialect="deepseek")


def _window(qtbot, runtime: Runtime) -> MainWindow:
    win = MainWindow()
    qtbot.addWidget(win)
    win.attach_runtime(runtime)
    win.show()
    qtbot.waitExposed(win)
    return win


def _close_and_wait_deleted(qtbot, dialog, button=QDialogButtonBox.StandardButton.Cancel) -> None:
    """Close ``dialog`` as a user does (its button) and wait until Qt has deleted it."""
    qtbot.mouseClick(dialog.buttons.button(button), Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not shiboken6.isValid(dialog), timeout=5000)


def test_settings_provider_opens_every_time(qtbot, qloop, tmp_path: Path) -> None:
    runtime = Runtime(settings=Settings(provider=DEEPSEEK), host=FakeHost(), settings_path=tmp_path / "s.json")
    win = _window(qtbot, runtime)
    seen = []
    for _ in range(3):
        win.provider_action.trigger()
        dialog = win.provider_dialog
        assert dialog is not None and dialog.isVisible()
        assert dialog not in seen  # a fresh dialog, built from the settings in force now
        seen.append(dialog)
        _close_and_wait_deleted(qtbot, dialog)
        assert win.provider_dialog is None  # forgotten when Qt deleted it


def test_after_the_welcome_the_menu_and_the_banner_open_the_provider_dialog(
    qtbot, qloop, tmp_path: Path, memory_keyring
) -> None:
    runtime = Runtime(settings=Settings(), host=FakeHost(), settings_path=tmp_path / "s.json")
    win = _window(qtbot, runtime)
    welcome = win.provider_dialog
    assert isinstance(welcome, WelcomeDialog) and welcome.isVisible()
    welcome.apply_preset(next(p for p in welcome_presets() if p.key == "deepseek"))
    welcome.import_check.setChecked(False)
    # no key typed: the provider is saved, the key is missing
    _close_and_wait_deleted(qtbot, welcome, QDialogButtonBox.StandardButton.Ok)
    assert runtime.provider_settings.base_url == "https://api.deepseek.com"

    win.provider_action.trigger()  # Settings → Provider…
    dialog = win.provider_dialog
    assert dialog is not None and dialog.isVisible() and not isinstance(dialog, WelcomeDialog)
    _close_and_wait_deleted(qtbot, dialog)

    win.key_banner.banner.ask("DeepSeek needs an API key and none is set. Enter it to start.")
    qtbot.mouseClick(win.key_banner.banner.enter_button, Qt.MouseButton.LeftButton)
    dialog = win.provider_dialog
    assert dialog is not None and dialog.isVisible()
    dialog.api_key.setText("sk-entered-after-welcome-1234")
    _close_and_wait_deleted(qtbot, dialog, QDialogButtonBox.StandardButton.Ok)
    assert runtime.api_key() == "sk-entered-after-welcome-1234"
    assert not win.key_banner.banner.isVisible()

    qtbot.mouseClick(win.key_banner.banner.enter_button, Qt.MouseButton.LeftButton)  # and again
    assert win.provider_dialog is not None and win.provider_dialog.isVisible()


def test_the_approvals_dialog_opens_every_time(qtbot, qloop, tmp_path: Path) -> None:
    runtime = Runtime(settings=Settings(provider=DEEPSEEK), host=FakeHost(), settings_path=tmp_path / "s.json")
    win = _window(qtbot, runtime)
    for _ in range(2):
        dialog = win.open_approvals_dialog()
        assert dialog is not None and dialog.isVisible()
        dialog.close()
        qtbot.waitUntil(lambda d=dialog: not shiboken6.isValid(d), timeout=5000)
        assert win.approvals_dialog is None


def welcome_presets():
    from desktop_app.runtime.providers.presets import PRESETS

    return PRESETS
