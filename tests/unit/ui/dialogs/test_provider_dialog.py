"""The provider dialog: shown at first run, saves through the runtime, the key never lands in a file."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDialogButtonBox

from desktop_app.runtime.service import Runtime
from desktop_app.runtime.settings import ProviderSettings, Settings
from desktop_app.ui.dialogs.provider import ProviderDialog
from desktop_app.ui.window.main_window import MainWindow
from tests.support.fake_runtime import FakeRuntime
from tests.support.fakes import FakeHost


def _fill(qtbot, dialog: ProviderDialog, url: str, model: str, key: str) -> None:
    dialog.base_url.clear()
    qtbot.keyClicks(dialog.base_url, url)
    dialog.model.setCurrentText(model)
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
    assert window.provider_dialog.model.currentText() == "fake-model"


# -- presets, fetching models, detecting local servers --------------------------------------------------


def _dialog(qtbot, runtime: FakeRuntime) -> ProviderDialog:
    dialog = ProviderDialog(runtime)
    qtbot.addWidget(dialog)
    dialog.show()
    return dialog


def _models(dialog: ProviderDialog) -> list[str]:
    return [dialog.model.itemText(i) for i in range(dialog.model.count())]


def _choose(dialog: ProviderDialog, key: str) -> None:
    index = dialog.preset.findData(key)
    dialog.preset.setCurrentIndex(index)
    dialog.preset.activated.emit(index)  # what a user's pick in the popup sends


def test_presets_fill_url_dialect_and_models_and_deepseek_options_follow_the_dialect(qtbot, qloop):
    runtime = FakeRuntime(ProviderSettings())
    dialog = _dialog(qtbot, runtime)
    assert dialog.selected_preset.key == "openai" and dialog.deepseek_box.isHidden()  # the first preset

    _choose(dialog, "deepseek")
    assert dialog.base_url.text() == "https://api.deepseek.com"
    assert dialog.dialect.currentText() == "deepseek"
    assert _models(dialog) == ["deepseek-chat", "deepseek-reasoner"] and dialog.model.currentText() == "deepseek-chat"
    assert dialog.deepseek_box.isVisible()
    dialog.thinking.setCurrentIndex(dialog.thinking.findText("On"))
    dialog.effort.setCurrentText("high")

    _choose(dialog, "ollama")
    assert (dialog.base_url.text(), dialog.dialect.currentText()) == ("http://127.0.0.1:11434/v1", "openai")
    assert dialog.deepseek_box.isHidden() and dialog.model.currentText() == ""
    assert "not needed" in dialog.api_key.placeholderText()

    _choose(dialog, "anthropic")
    assert (dialog.base_url.text(), dialog.dialect.currentText()) == ("https://api.anthropic.com", "anthropic")
    assert dialog.model.isEditable() and dialog.model.count() >= 1
    dialog.model.setCurrentText("claude-custom-name")  # the list is editable: any name goes
    assert dialog.model.currentText() == "claude-custom-name"

    _choose(dialog, "deepseek")
    dialog.model.setCurrentText("deepseek-reasoner")
    dialog.effort.setCurrentText("high")
    qtbot.mouseClick(dialog.buttons.button(QDialogButtonBox.StandardButton.Ok), Qt.MouseButton.LeftButton)
    [(saved, key)] = runtime.configured
    assert (saved.base_url, saved.model, saved.dialect) == ("https://api.deepseek.com", "deepseek-reasoner", "deepseek")
    assert (saved.thinking, saved.reasoning_effort, key) == (True, "high", None)


def test_an_existing_setting_selects_its_preset(qtbot, qloop):
    settings = ProviderSettings(base_url="https://api.deepseek.com/", model="deepseek-reasoner", dialect="deepseek")
    dialog = _dialog(qtbot, FakeRuntime(settings))
    assert dialog.selected_preset.key == "deepseek"
    assert dialog.model.currentText() == "deepseek-reasoner" and dialog.deepseek_box.isVisible()


def test_fetch_models_fills_the_list_from_the_loopback_server(qtbot, qloop, llm_server):
    dialog = _dialog(qtbot, FakeRuntime(ProviderSettings()))
    dialog.base_url.setText(llm_server.url)
    dialog.api_key.setText("typed-key")
    qtbot.mouseClick(dialog.fetch_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: _models(dialog) == ["test-model"], timeout=5000)
    assert dialog.model.currentText() == "test-model"
    assert dialog.fetch_status.text() == "1 model available." and dialog.fetch_button.isEnabled()


def test_fetch_errors_are_shown_inline(qtbot, qloop):
    dialog = _dialog(qtbot, FakeRuntime(ProviderSettings()))
    dialog.base_url.setText("http://127.0.0.1:9/v1")  # discard port: nothing listens
    dialog.model.setCurrentText("kept-name")
    qtbot.mouseClick(dialog.fetch_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: "Could not reach" in dialog.fetch_status.text(), timeout=5000)
    assert dialog.fetch_status.isVisible() and dialog.model.currentText() == "kept-name"
    assert dialog.problem.isHidden()

    _choose(dialog, "anthropic")  # no key typed or stored: explained, nothing sent
    qtbot.mouseClick(dialog.fetch_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: "only with an API key" in dialog.fetch_status.text(), timeout=5000)


def test_fetch_uses_the_stored_key_of_the_endpoint(qtbot, qloop, llm_server):
    runtime = Runtime(settings=Settings(provider=ProviderSettings(base_url=llm_server.url, model="m")), host=FakeHost())
    runtime.configure_provider(runtime.provider_settings, "stored-secret")
    dialog = ProviderDialog(runtime)
    qtbot.addWidget(dialog)
    assert dialog._key_for(llm_server.url) == "stored-secret"
    assert dialog._key_for("https://elsewhere.example/v1") is None


def test_detect_local_lists_and_selects_the_running_server(qtbot, qloop, llm_server):
    from desktop_app.runtime.providers.presets import Preset

    dialog = _dialog(qtbot, FakeRuntime(ProviderSettings()))
    running = Preset("loop", "Loopback", llm_server.url, "openai", local=True, needs_key=False)
    dialog.local_candidates = (Preset("gone", "Gone", "http://127.0.0.1:9/v1", "openai", local=True), running)
    qtbot.mouseClick(dialog.detect_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: dialog.detect_status.text().startswith("Found"), timeout=5000)
    assert f"Loopback at {llm_server.url} (1 model)" in dialog.detect_status.text()
    assert [p.key for p in dialog.detected] == ["loop"]
    assert dialog.base_url.text() == llm_server.url and _models(dialog) == ["test-model"]

    dialog.local_candidates = (Preset("gone", "Gone", "http://127.0.0.1:9/v1", "openai", local=True),)
    qtbot.mouseClick(dialog.detect_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: dialog.detect_status.text().startswith("No local"), timeout=5000)


def test_editing_the_url_keeps_the_presets_dialect_and_offers_the_suggested_one(qtbot, qloop, memory_keyring):
    runtime = Runtime(settings=Settings(), host=FakeHost())
    runtime.credentials.set(ProviderSettings(base_url="https://proxy.example.com/v1").key_name, "sk-stored-key-1")
    dialog = ProviderDialog(runtime)
    qtbot.addWidget(dialog)
    dialog.show()
    _choose(dialog, "deepseek")
    assert dialog.dialect.currentText() == "deepseek"
    assert dialog.api_key.placeholderText() == "No key stored for this URL yet — paste the API key"
    assert "deepseek" in dialog.model.lineEdit().placeholderText()

    dialog.base_url.selectAll()
    qtbot.keyClicks(dialog.base_url, "https://proxy.example.com/v1")  # a proxy in front of DeepSeek
    assert dialog.dialect.currentText() == "deepseek"  # kept, not silently switched
    assert dialog.preset.currentData() == "custom"
    assert not dialog.dialect_hint.isHidden() and "stays deepseek" in dialog.dialect_hint.text()
    assert dialog.dialect_switch.text() == "Use openai"
    assert dialog.api_key.placeholderText().startswith("A key is stored in the keyring for this URL")
    assert dialog.note.text().startswith("Any OpenAI-compatible endpoint")  # the hints of the preset in force

    qtbot.mouseClick(dialog.dialect_switch, Qt.MouseButton.LeftButton)  # asked: the user switches
    assert dialog.dialect.currentText() == "openai" and dialog.dialect_hint.isHidden()

    dialog.base_url.selectAll()
    qtbot.keyClicks(dialog.base_url, "http://127.0.0.1:11434/v1")  # Ollama's URL: that preset, visibly
    assert dialog.preset.currentData() == "ollama" and dialog.dialect.currentText() == "openai"
    assert "local server" in dialog.api_key.placeholderText()


# -- first-run copy and layout ----------------------------------------------------------------------------


def _clipped(dialog: ProviderDialog) -> list[str]:
    """The shown parts of the dialog that are cut off: a wrapped label shorter than its text needs, a box
    shorter than its contents, anything that reaches past the dialog's bottom edge."""
    from PySide6.QtWidgets import QGroupBox, QLabel, QWidget

    dialog.layout().activate()
    cut = []
    for widget in dialog.findChildren(QWidget):
        if not widget.isVisibleTo(dialog) or widget.window() is not dialog:
            continue
        bottom = widget.mapTo(dialog, widget.rect().bottomLeft()).y()
        if bottom > dialog.height():
            cut.append(f"{widget.objectName() or type(widget).__name__} below the edge")
        elif isinstance(widget, QLabel) and widget.wordWrap() and widget.text():
            if widget.height() < widget.heightForWidth(widget.width()):
                cut.append(f"{widget.objectName() or widget.text()[:30]} cut")
        elif isinstance(widget, QGroupBox) and widget.height() < widget.minimumSizeHint().height():
            cut.append(f"{widget.objectName()} squeezed")
    return cut


def test_the_dialog_grows_for_the_deepseek_options_and_every_hint(qtbot, qloop, tmp_path):
    openai = ProviderSettings(base_url="https://api.openai.com/v1", model="gpt-4o-mini")
    runtime = Runtime(settings=Settings(provider=openai), host=FakeHost(), settings_path=tmp_path / "s.json")
    win = MainWindow()
    qtbot.addWidget(win)
    win.attach_runtime(runtime)
    win.show()
    win.provider_action.trigger()
    dialog = win.provider_dialog
    qtbot.waitExposed(dialog)
    assert dialog.deepseek_box.isHidden() and _clipped(dialog) == []
    _choose(dialog, "deepseek")
    assert dialog.deepseek_box.isVisible()
    assert _clipped(dialog) == []
    dialog.base_url.clear()
    qtbot.keyClicks(dialog.base_url, "https://gateway.example.com/anthropic")  # a dialect suggestion appears
    assert dialog.dialect_hint.isVisible() and _clipped(dialog) == []
    dialog.base_url.setText("not a url")
    qtbot.mouseClick(dialog.buttons.button(QDialogButtonBox.StandardButton.Ok), Qt.MouseButton.LeftButton)
    assert dialog.problem.isVisible() and _clipped(dialog) == []


def test_a_new_provider_starts_from_the_first_preset_not_custom(qtbot, qloop):
    from desktop_app.runtime.providers.presets import PRESETS

    dialog = _dialog(qtbot, FakeRuntime(ProviderSettings()))
    first = PRESETS[0]
    assert first.key != "custom"
    assert dialog.selected_preset is first and dialog.preset.currentText() == first.label
    assert (dialog.base_url.text(), dialog.dialect.currentText()) == (first.base_url, first.dialect)
    assert dialog.model.currentText() == first.models[0]


def test_the_key_is_said_to_go_to_the_keyring_only_when_one_works(qtbot, qloop):
    import keyring
    import keyring.backends.fail

    from desktop_app.ui.dialogs.welcome import WelcomeDialog

    def texts(dialog: ProviderDialog) -> str:
        from PySide6.QtWidgets import QLabel

        return " ".join(label.text() for label in dialog.findChildren(QLabel) if label.isVisibleTo(dialog))

    runtime = Runtime(settings=Settings(), host=FakeHost())
    dialog = _dialog(qtbot, runtime)
    assert "stored in the system keyring, never in a file" in texts(dialog)
    keyring.set_keyring(keyring.backends.fail.Keyring())
    for broken in (
        ProviderDialog(Runtime(settings=Settings(), host=FakeHost())),
        WelcomeDialog(Runtime(settings=Settings(), host=FakeHost()), mcp_config=lambda: None, detect_on_open=False),
    ):
        qtbot.addWidget(broken)
        broken.show()
        shown = texts(broken)
        assert broken.keyring_warning.isVisible()
        assert "keyring" not in shown.replace(broken.keyring_warning.text(), "")  # only the warning speaks of it
        assert "never written to a file" in shown


def test_the_welcome_screen_grows_for_the_deepseek_options(qtbot, qloop, tmp_path):
    runtime = Runtime(settings=Settings(), host=FakeHost(), settings_path=tmp_path / "s.json")
    win = MainWindow()
    qtbot.addWidget(win)
    win.attach_runtime(runtime)  # first run: the welcome screen
    win.show()
    welcome = win.provider_dialog
    qtbot.waitExposed(welcome)
    assert _clipped(welcome) == []
    _choose(welcome, "deepseek")
    welcome._note(welcome.detect_status, "No local model server answered (Ollama, LM Studio): choose a hosted one.")
    assert welcome.deepseek_box.isVisible() and welcome.detect_status.isVisible()
    assert _clipped(welcome) == []
