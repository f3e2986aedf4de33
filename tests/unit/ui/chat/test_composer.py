"""The composer: Enter and Ctrl+Enter send, Shift+Enter is a new line (a setting swaps Enter and Ctrl+Enter),
Send becomes Stop while running."""

from __future__ import annotations

from PySide6.QtCore import Qt

from desktop_app.ui.chat.composer import Composer


def test_enter_sends_and_shift_enter_inserts_a_newline(qtbot):
    composer = Composer()
    qtbot.addWidget(composer)
    sent: list[str] = []
    composer.submitted.connect(sent.append)
    qtbot.keyClicks(composer.edit, "line one")
    qtbot.keyClick(composer.edit, Qt.Key.Key_Return, Qt.KeyboardModifier.ShiftModifier)
    qtbot.keyClicks(composer.edit, "line two")
    assert sent == []
    qtbot.keyClick(composer.edit, Qt.Key.Key_Return)
    assert sent == ["line one\nline two"]
    qtbot.keyClicks(composer.edit, "again")
    qtbot.keyClick(composer.edit, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)  # Ctrl+Enter also sends
    assert sent == ["line one\nline two", "again"]
    assert composer.text == ""


def test_the_ctrl_enter_setting_makes_enter_a_newline(qtbot):
    composer = Composer()
    qtbot.addWidget(composer)
    composer.edit.enter_sends = False  # MainWindow.apply_settings: shortcuts.ctrl_enter_sends
    sent: list[str] = []
    composer.submitted.connect(sent.append)
    qtbot.keyClicks(composer.edit, "line one")
    qtbot.keyClick(composer.edit, Qt.Key.Key_Return)
    qtbot.keyClicks(composer.edit, "line two")
    assert sent == []
    qtbot.keyClick(composer.edit, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
    assert sent == ["line one\nline two"]


def test_blank_prompts_are_not_sent(qtbot):
    composer = Composer()
    qtbot.addWidget(composer)
    sent: list[str] = []
    composer.submitted.connect(sent.append)
    composer.set_text("   \n ")
    qtbot.mouseClick(composer.button, Qt.MouseButton.LeftButton)
    assert sent == []


def test_button_is_stop_while_busy(qtbot):
    composer = Composer()
    qtbot.addWidget(composer)
    sent: list[str] = []
    stops: list[bool] = []
    composer.submitted.connect(sent.append)
    composer.stop_requested.connect(lambda: stops.append(True))
    composer.set_busy(True)
    assert composer.button.text() == "Stop"
    assert composer.button.accessibleName() == "Stop"
    composer.set_text("queued")
    qtbot.keyClick(composer.edit, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
    qtbot.mouseClick(composer.button, Qt.MouseButton.LeftButton)
    assert sent == [] and stops == [True]
    composer.set_busy(False)
    assert composer.button.text() == "Send"
    assert composer.edit.objectName() == "composer" and composer.button.objectName() == "sendButton"


def test_the_date_and_time_chip_is_taken_at_sending(qtbot):
    from desktop_app.runtime.context import ContextItem

    now = {"label": "Mon 09:00"}
    composer = Composer()
    qtbot.addWidget(composer)
    composer.default_context = lambda: [ContextItem("datetime", now["label"], f"It is {now['label']}.")]
    composer.reset_context()  # the window opened at 09:00
    now["label"] = "Mon 17:30"  # ... and the prompt leaves hours later
    sent: list[str] = []
    composer.submitted.connect(sent.append)
    composer.set_text("what time is it?")
    qtbot.keyClick(composer.edit, Qt.Key.Key_Return)
    [(_attachments, context)] = [composer.outgoing()]
    assert [item.text for item in context] == ["It is Mon 17:30."]
    now["label"] = "Mon 17:31"
    composer.refresh_time_chip()  # the chip shows the time too, not the window's opening time
    [chip] = composer.chips.chips()
    assert chip.label.text() == "Mon 17:31"
