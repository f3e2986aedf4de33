"""Settings window: generated from the settings model, saved atomically through the real Runtime.

Drives the window as a user would (Ctrl+, then edits and Save) with the real ``Runtime`` on a settings
file under the test's SWITCHBOARD_HOME and the in-memory keyring of ``tests/conftest.py``.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pydantic import BaseModel, Field
from PySide6.QtCore import Qt
from PySide6.QtGui import QKeySequence, QPalette
from PySide6.QtWidgets import (
    QApplication,
    QCheckBox,
    QComboBox,
    QKeySequenceEdit,
    QLabel,
    QLineEdit,
    QSpinBox,
    QTableWidget,
)

from desktop_app.assembly import assemble
from desktop_app.paths import app_paths
from desktop_app.runtime.host import Host
from desktop_app.runtime.service import Runtime
from desktop_app.runtime.settings import ProviderSettings, Settings, load_settings
from desktop_app.ui.settings import registry
from desktop_app.ui.settings.form import ModelForm
from desktop_app.ui.settings.registry import FormSection, SettingsPage, registered_pages
from desktop_app.ui.settings.window import SettingsWindow
from desktop_app.ui.theme.appearance import on_appearance_changed
from desktop_app.ui.window.main_window import MainWindow


def _window(qtbot, runtime) -> MainWindow:
    win = MainWindow()
    qtbot.addWidget(win)
    win.attach_runtime(runtime)
    win.show()
    qtbot.waitExposed(win)
    win.activateWindow()  # window shortcuts (Ctrl+,) need the active window
    qtbot.waitUntil(win.isActiveWindow)
    return win


def _runtime(path: Path, settings: Settings | None = None) -> Runtime:
    settings = settings or Settings(provider=ProviderSettings(base_url="https://api.example.com/v1", model="m1"))
    return Runtime(settings=settings, host=Host(), settings_path=path)


def test_ctrl_comma_opens_settings_and_save_stores_the_key_in_the_keyring_and_the_theme_in_the_file(
    qtbot, qloop, switchboard_home, memory_keyring, llm_server
):
    path = switchboard_home / "settings.json"
    runtime = _runtime(path)
    win = _window(qtbot, runtime)
    themes: list[str] = []
    remove = on_appearance_changed(lambda appearance: themes.append(appearance.theme))
    try:
        qtbot.keyClick(win, Qt.Key.Key_Comma, Qt.KeyboardModifier.ControlModifier)
        qtbot.waitUntil(lambda: win.settings_window is not None and win.settings_window.isVisible())
        settings_window = win.settings_window
        assert settings_window is not None

        page = settings_window.show_page("providers")
        key = page.findChild(QLineEdit, "providerApiKey")
        assert key.echoMode() == QLineEdit.EchoMode.Password
        assert key.placeholderText() == "No key stored yet"
        base_url = page.findChild(QLineEdit, "providerBaseUrl")
        base_url.selectAll()
        qtbot.keyClicks(base_url, llm_server.url)
        qtbot.keyClicks(key, "sk-test-123456")
        # Test connection uses the typed key against the loopback endpoint
        qtbot.mouseClick(page.findChild(type(settings_window.save_button), "providerTestConnection"), Qt.LeftButton)
        result = page.findChild(type(settings_window.status), "providerTestResult")
        qtbot.waitUntil(lambda: result.text().startswith("Connected"))
        assert "1 model" in result.text()

        appearance = settings_window.show_page("appearance")
        theme = appearance.findChild(QComboBox, "settingsAppearanceTheme")
        theme.setCurrentIndex(theme.findData("dark"))
        appearance.findChild(QSpinBox, "settingsAppearanceFontSize").setValue(13)
        assert settings_window.save_button.isEnabled()
        qtbot.mouseClick(settings_window.save_button, Qt.LeftButton)

        assert settings_window.status.text() == f"Saved to {path}."
        saved = json.loads(path.read_text(encoding="utf-8"))
        assert saved["appearance"] == {"theme": "dark", "font_size": 13}
        assert saved["provider"]["base_url"] == llm_server.url
        assert "sk-test-123456" not in path.read_text(encoding="utf-8")
        assert memory_keyring.store[("switchboard", f"api-key:{llm_server.url}")] == "sk-test-123456"
        assert runtime.settings.appearance.theme == "dark" and runtime.api_key() == "sk-test-123456"
        # The theme is in force: the hook got it and the application says so
        app = QApplication.instance()
        assert themes[-1] == "dark" and app.property("switchboardTheme") == "dark"
        assert app.font().pointSize() == 13
        assert key.text() == "" and "stored in the keyring" in key.placeholderText()
        # No temp file left beside the settings file (written through a rename)
        assert sorted(p.name for p in path.parent.iterdir() if p.name.startswith(".settings")) == []
    finally:
        remove()
        from desktop_app.ui.theme.appearance import apply_appearance

        apply_appearance(Settings().appearance)
    assert QApplication.instance().palette().color(QPalette.ColorRole.Window).lightness() > 128


def test_reopened_settings_show_what_changed_elsewhere_and_save_does_not_revert_it(qtbot, qloop, switchboard_home):
    path = switchboard_home / "settings.json"
    runtime = _runtime(path)
    win = _window(qtbot, runtime)
    first = win.open_settings_window()
    first.close()
    runtime.configure_provider(runtime.provider_settings.model_copy(update={"model": "m2"}), None)  # the dialog
    again = win.open_settings_window("general")
    assert again is not first
    assert again.pages["providers"].findChild(QLineEdit, "providerModel").text() == "m2"
    again.pages["general"].findChild(QSpinBox, "settingsMaxToolRounds").setValue(9)
    assert again.save() is True
    saved = load_settings(path)
    assert (saved.provider.model, saved.max_tool_rounds) == ("m2", 9)


def test_a_changed_shortcut_is_in_force_after_save(qtbot, qloop, switchboard_home):
    path = switchboard_home / "settings.json"
    win = _window(qtbot, _runtime(path))
    settings_window = win.open_settings_window("shortcuts")
    keys = settings_window.pages["shortcuts"].findChild(QKeySequenceEdit, "settingsShortcutsNewChat")
    assert keys.keySequence().toString() == "Ctrl+N"
    keys.setKeySequence(QKeySequence("Ctrl+Shift+N"))
    assert settings_window.save() is True
    assert win.new_chat_action.shortcut().toString() == "Ctrl+Shift+N"
    assert load_settings(path).shortcuts.new_chat == "Ctrl+Shift+N"


def test_invalid_values_are_shown_at_their_field_and_nothing_is_saved(qtbot, qloop, switchboard_home):
    path = switchboard_home / "settings.json"
    runtime = _runtime(path)
    win = _window(qtbot, runtime)
    settings_window = win.open_settings_window("providers")
    page = settings_window.pages["providers"]
    url = page.findChild(QLineEdit, "providerBaseUrl")
    url.setText("ftp://nope")
    assert settings_window.save() is False
    assert "must start with http://" in settings_window.status.text()
    assert not path.exists()
    url.setText("https://api.example.com/v1")
    general = settings_window.show_page("general")
    assert general.findChild(QSpinBox, "settingsMaxToolRounds").minimum() == 1  # ge=1 from the field
    assert settings_window.save() is True
    assert load_settings(path).provider.base_url == "https://api.example.com/v1"


def test_a_broken_settings_file_is_reported_with_line_and_column_and_never_overwritten(qtbot, qloop, switchboard_home):
    paths = app_paths().ensure()
    broken = '{\n  "max_tool_rounds": 5,\n  "appearance": {"theme": "dark"}\n  oops\n}\n'
    paths.settings_file.write_text(broken, encoding="utf-8")
    assembly = assemble(paths, strict=False, persist=False)
    win = _window(qtbot, assembly.runtime)
    try:
        settings_window = win.open_settings_window("appearance")
        banner = settings_window.file_problem
        assert banner.isVisible()
        assert f"{paths.settings_file}, line 4, column 3" in banner.text()
        assert "will not overwrite it" in banner.text()
        settings_window.pages["appearance"].findChild(QSpinBox, "settingsAppearanceFontSize").setValue(12)
        assert not settings_window.save_button.isEnabled()
        assert settings_window.save() is False
        assert paths.settings_file.read_text(encoding="utf-8") == broken

        fixed = '{"max_tool_rounds": 5, "appearance": {"theme": "light"}}'
        paths.settings_file.write_text(fixed, encoding="utf-8")
        qtbot.mouseClick(settings_window.reload_button, Qt.LeftButton)
        assert not banner.isVisible() and assembly.runtime.settings.max_tool_rounds == 5
        rounds = settings_window.pages["general"].findChild(QSpinBox, "settingsMaxToolRounds")
        assert rounds.value() == 5
        rounds.setValue(7)
        assert settings_window.save() is True
        assert load_settings(paths.settings_file).max_tool_rounds == 7
    finally:
        closing = qloop.create_task(assembly.aclose())
        qtbot.waitUntil(closing.done)


class _Demo(BaseModel):
    enabled: bool = Field(True, title="Use the demo", description="Turns the demo on")
    mode: str = Field("auto", title="Mode")


def test_every_page_is_generated_with_titles_descriptions_and_defaults_and_none_is_empty(qtbot, qloop):
    runtime = Runtime(settings=Settings(), host=Host())
    window = SettingsWindow(runtime)
    qtbot.addWidget(window)
    keys = [page.key for page in registered_pages()]
    assert keys[:2] == ["general", "providers"]
    assert {"approvals", "appearance", "shortcuts"} <= set(keys)
    for key, view in window.pages.items():
        editors = [w for kind in (QCheckBox, QComboBox, QLineEdit, QSpinBox) for w in view.findChildren(kind)]
        assert editors, f"the {key} page has no editor"
    general = window.pages["general"]
    check = general.findChild(QCheckBox, "settingsContextDatetime")
    assert check.text() == "Send the date and time"
    assert check.toolTip() == Settings.model_fields["context_datetime"].description
    hint = general.findChild(type(window.status), "settingsMaxToolRoundsHint")
    assert "Default: 25." in hint.text()
    assert window.pages["approvals"].findChild(QCheckBox, "settingsAutoApproveReadOnly") is not None
    grants = window.pages["approvals"].findChild(QTableWidget, "grantsTable")
    assert grants is not None and window.pages["approvals"].findChild(QLabel, "noGrantsLabel").isHidden() is False


def test_pages_register_through_the_small_api_and_empty_pages_are_refused():
    with pytest.raises(ValueError, match="nothing to show"):
        SettingsPage(key="empty", title="Empty")
    page = registry.register_page(SettingsPage(key="zz-test", title="Demo", sections=(FormSection(),), order=999))
    try:
        assert registered_pages()[-1] is page
    finally:
        registry._PAGES.pop("zz-test")


def test_model_form_reads_types_and_bounds_from_the_fields(qtbot):
    form = ModelForm(_Demo, _Demo(), prefix="demo")
    qtbot.addWidget(form)
    assert form.findChild(QCheckBox, "demoEnabled").text() == "Use the demo"
    form.findChild(QLineEdit, "demoMode").setText("manual")
    assert form.values() == {"enabled": True, "mode": "manual"}
    form.show_errors({"mode": "bad"})
    assert form.errors["mode"].text() == "bad" and not form.errors["mode"].isHidden()


def test_settings_speak_in_units_and_words_and_line_their_fields_up(qtbot, qloop, switchboard_home):
    from desktop_app.ui.settings.form import ModelForm as Form
    from desktop_app.ui.settings.units import ByteSizeEdit

    path = switchboard_home / "settings.json"
    runtime = _runtime(path)
    win = _window(qtbot, runtime)
    window = win.open_settings_window("general")
    general = window.pages["general"]
    image = general.findChild(ByteSizeEdit, "settingsMaxAttachmentImageBytes")
    assert image.text() == "5 MB"  # not 5242880
    hint = general.findChild(QLabel, "settingsMaxAttachmentImageBytesHint")
    assert "Default: 5\u00a0MB." in hint.text() and "5242880" not in hint.text()
    text = general.findChild(ByteSizeEdit, "settingsMaxAttachmentTextBytes")
    assert text.text() == "200 KB"
    image.number.setValue(2)  # 2 MB
    text.unit.setCurrentIndex(text.unit.findText("MB"))
    text.number.setValue(1.5)
    assert window.save() is True
    saved = load_settings(path)
    assert (saved.max_attachment_image_bytes, saved.max_attachment_text_bytes) == (2 * 1024**2, 1536 * 1024)

    providers = window.show_page("providers")
    thinking = providers.findChild(QComboBox, "providerThinking")
    assert thinking.currentText() == "Model's default"
    assert providers.findChild(QLineEdit, "providerReasoningEffort").placeholderText() == "Model's default"
    shown = " ".join(label.text() for label in providers.findChildren(QLabel))
    assert "None:" not in shown and "(None" not in shown

    port = window.show_page("http_host").findChild(QSpinBox, "settingsHttpHostPort")
    assert port.value() == 0 and port.text() == "Automatic"  # not "System default"

    compact = general.findChild(QSpinBox, "settingsCompactThresholdPercent")
    assert compact.text() == "80 %"  # the unit in the box, not in the label
    compact.setValue(0)
    assert compact.text() == "Only when you ask"
    font_size = window.show_page("appearance").findChild(QSpinBox, "settingsAppearanceFontSize")
    assert font_size.value() == 0 and font_size.text() == "System size"
    font_size.setValue(11)
    assert font_size.text() == "11 pt"
    window_tokens = window.show_page("deferral").findChild(QSpinBox, "settingsContextWindowTokens")
    assert window_tokens.text().endswith(" tokens")
    titles = " ".join(label.text() for page in window.pages.values() for label in page.findChildren(QLabel))
    assert "(s)" not in titles and "(tokens)" not in titles and "(% of" not in titles

    for key in ("general", "providers", "http_host"):  # one label column per page, section after section
        page = window.show_page(key)
        qtbot.waitUntil(page.isVisible)
        page.widget().layout().activate()
        lefts = set()
        for form in page.findChildren(Form):
            if not form.isVisibleTo(page):
                continue
            for editor in form.editors.values():
                if editor.kind != "bool":
                    lefts.add(editor.widget.mapTo(page.widget(), editor.widget.rect().topLeft()).x())
        assert len(lefts) == 1, f"the {key} page's fields start at {sorted(lefts)}"


def test_every_titled_section_says_in_one_line_what_it_is_for(qapp):
    sections = [(page.key, s) for page in registered_pages() for s in page.sections if s.title]
    assert sections  # the general page's Context, Attachments, Long conversations…
    missing = [f"{key}: {s.title}" for key, s in sections if not s.description or "\n" in s.description]
    assert missing == []


def test_fields_keep_a_readable_width_in_a_wide_window(qtbot, qloop, switchboard_home):
    """At 1920x1080 the number boxes and text fields stretched to ~1000 px: numbers are as wide as their
    content, text fields at most TEXT_FIELD_CHARS characters."""
    from desktop_app.ui.settings.form import COMPACT_KINDS, TEXT_FIELD_CHARS
    from desktop_app.ui.settings.form import ModelForm as Form

    win = _window(qtbot, _runtime(switchboard_home / "settings.json"))
    window = win.open_settings_window("general")
    window.resize(1920, 1080)
    seen: set[str] = set()
    for key in ("general", "providers"):
        page = window.show_page(key)
        qtbot.waitUntil(page.isVisible)
        page.widget().layout().activate()
        for form in page.findChildren(Form):
            if not form.isVisibleTo(page):
                continue
            for editor in form.editors.values():
                widget = editor.widget
                if editor.kind in COMPACT_KINDS:
                    assert widget.width() <= widget.sizeHint().width(), (widget.objectName(), widget.width())
                    seen.add("compact")
                elif editor.kind in ("text", "multiline", "lines"):
                    assert widget.width() <= widget.fontMetrics().averageCharWidth() * TEXT_FIELD_CHARS, (
                        widget.objectName(),
                        widget.width(),
                    )
                    seen.add("text")
    assert seen == {"compact", "text"}  # both kinds were measured
