"""The provider dialog: shown at first run, saves through the runtime, the key never lands in a file."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDialogButtonBox

from desktop_app.runtime.service import Runtime
from desktop_app.runtime.settings import ProviderSettings, Settings
from desktop_app.ui.main_window import MainWindow
from desktop_app.ui.provider_dialog import ProviderDialog
from tests.support.fake_runtime import FakeRuntime
from tests.support.fakes import FakeHost


def _fill(qtbot, dialog: ProviderDialog, url: str, model: str, key: str) -> None:
    dialog.base_url.clear()
    qtbot.keyClicks(dialog.base_url, url)
    dialog.model.setText(model)
    dialog.api_key.setText(key)
    qtbot.mouseClick(dialog.buttons.button(QDialogButtonBox.StandardButton.Ok), Qt.MouseButton.LeftButton)


def test_first_run_opens_the_dialog_and_saves_through_the_real_runtime(qtbot, qloop, switchboard_home, memory_keyring):
    settings_path = Path(switchboard_home) / "config" / "settings.json"
    runtime = Runtime(settings=Settings(), host=FakeHost(), settings_path=settings_path)
    win = MainWindow()
    qtbot.addWidget(win)
    win.attach_runtime(runtime)
    win.show()
    dialog = win.provider_dialog
    assert dialog is not None and dialog.isVisible()
    assert dialog.api_key.echoMode() == dialog.api_key.EchoMode.Password

    _fill(qtbot, dialog, "https://api.deepseek.com", "deepseek-chat", "sk-secret-123456789")
    assert runtime.provider_settings.base_url == "https://api.deepseek.com"
    assert runtime.provider_settings.model == "deepseek-chat"
    assert runtime.provider_settings.dialect == "deepseek"  # inferred from the URL as it was typed
    assert ("switchboard", "api-key:https://api.deepseek.com") in memory_keyring.store
    assert "sk-secret" not in settings_path.read_text()
    for path in Path(switchboard_home).rglob("*"):
        assert not path.is_file() or "sk-secret" not in path.read_text(errors="replace")
    assert win.model_label.text() == "deepseek-chat · deepseek"


def test_invalid_input_is_explained_and_nothing_is_saved(qtbot, qloop):
    runtime = FakeRuntime(ProviderSettings())
    dialog = ProviderDialog(runtime)
    qtbot.addWidget(dialog)
    dialog.show()
    _fill(qtbot, dialog, "api.example.com", "m", "")
    assert "http://" in dialog.problem.text() and not dialog.problem.isHidden()
    assert runtime.configured == []
    _fill(qtbot, dialog, "http://127.0.0.1:1234/v1", "local-model", "")
    assert runtime.configured == [
        (ProviderSettings(base_url="http://127.0.0.1:1234/v1", model="local-model", dialect="openai"), None)
    ]


def test_configured_runtime_does_not_prompt_and_the_menu_opens_the_dialog(qtbot, window):
    assert window.provider_dialog is None
    window.provider_action.trigger()
    assert window.provider_dialog is not None and window.provider_dialog.isVisible()
    assert window.provider_dialog.model.text() == "fake-model"
