"""Composer chips: context and attachments shown as removable chips, sent with the prompt, refused clearly."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from zoneinfo import ZoneInfo

from PySide6.QtCore import QMimeData, Qt, QUrl
from PySide6.QtGui import QColor, QImage

from desktop_app.runtime.attachments import AttachmentLimits
from desktop_app.runtime.context import datetime_item, default_context, os_item
from desktop_app.ui.chat.composer import Composer
from tests.support.fake_runtime import Content, FakeRuntime
from tests.unit.runtime.test_attachments import tiny_png

NOON = datetime(2025, 3, 4, 12, 5, tzinfo=ZoneInfo("Europe/Berlin"))


def make_composer(qtbot) -> Composer:
    composer = Composer()
    qtbot.addWidget(composer)
    composer.default_context = lambda: [datetime_item(NOON), os_item("Linux", kernel="", machine="")]
    composer.reset_context()
    return composer


def chip_texts(composer: Composer) -> list[str]:
    return [chip.text for chip in composer.chips.chips()]


def files(tmp_path: Path) -> tuple[str, str]:
    image = tmp_path / "chart.png"
    image.write_bytes(tiny_png())
    notes = tmp_path / "notes.md"
    notes.write_text("# hi\n", encoding="utf-8")
    return str(image), str(notes)


def test_default_context_shows_as_chips_and_x_removes_one(qtbot) -> None:
    composer = make_composer(qtbot)
    composer.show()
    assert chip_texts(composer) == ["Tue 04 Mar 12:05 Europe/Berlin", "Linux"]
    assert composer.chips.isVisible()
    os_chip = composer.chips.chips()[1]
    assert os_chip.remove_button.accessibleName() == "Remove Linux"
    qtbot.mouseClick(os_chip.remove_button, Qt.MouseButton.LeftButton)
    assert chip_texts(composer) == ["Tue 04 Mar 12:05 Europe/Berlin"]
    assert [item.kind for item in composer.context_items] == ["datetime"]


def test_attachments_are_chips_with_name_and_size_and_go_with_the_prompt(qtbot, tmp_path: Path) -> None:
    composer = make_composer(qtbot)
    image, notes = files(tmp_path)
    keys = composer.add_files([image, notes])
    assert len(keys) == 2
    assert chip_texts(composer)[2:] == [f"chart.png ({len(tiny_png())} B)", "notes.md (5 B)"]
    image_chip = composer.chips.chip(keys[0])
    assert image_chip.thumbnail is not None  # images get a thumbnail
    composer.remove(keys[1])
    assert [a.name for a in composer.attachments] == ["chart.png"]
    composer.remove(composer.chips.keys()[1])  # the OS chip

    sent: list[str] = []
    composer.submitted.connect(sent.append)
    composer.set_text("What is this?")
    qtbot.keyClick(composer.edit, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
    assert sent == ["What is this?"]
    attachments, context = composer.outgoing()
    assert [a.name for a in attachments] == ["chart.png"]
    assert [c.kind for c in context] == ["datetime"]
    # after the send: no attachments, and the default context is back
    assert composer.attachments == []
    assert chip_texts(composer) == ["Tue 04 Mar 12:05 Europe/Berlin", "Linux"]


def test_binary_files_are_refused_with_the_reason(qtbot, tmp_path: Path) -> None:
    composer = make_composer(qtbot)
    blob = tmp_path / "tool.exe"
    blob.write_bytes(b"MZ\x90\x00\x03\x00\x00\x00" * 64)
    big = tmp_path / "big.png"
    big.write_bytes(tiny_png() + b"\x00" * 5000)
    composer.limits = AttachmentLimits(max_image_bytes=2048)
    refused: list[str] = []
    composer.attachment_refused.connect(refused.append)
    assert composer.add_files([str(blob), str(big)]) == []
    assert "tool.exe is a binary file" in refused[0]
    assert "max_attachment_image_bytes" in refused[1]
    assert composer.attachments == []


def test_dropped_files_and_pasted_images_become_attachments(qtbot, tmp_path: Path) -> None:
    composer = make_composer(qtbot)
    _image, notes = files(tmp_path)
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(notes)])
    assert composer.edit.canInsertFromMimeData(mime)
    composer.edit.insertFromMimeData(mime)
    assert [a.name for a in composer.attachments] == ["notes.md"]
    assert composer.text == ""  # the path did not become text

    pasted = QImage(4, 3, QImage.Format.Format_RGB32)
    pasted.fill(QColor("blue"))
    clip = QMimeData()
    clip.setImageData(pasted)
    composer.edit.insertFromMimeData(clip)
    names = [a.name for a in composer.attachments]
    assert names == ["notes.md", "pasted-image-1.png"]
    assert composer.attachments[1].mime_type == "image/png"


def test_clipboard_text_becomes_a_context_chip(qtbot, qapp) -> None:
    composer = make_composer(qtbot)
    qapp.clipboard().setText("selected words\nsecond line")
    composer.include_clipboard()
    assert chip_texts(composer)[-1] == "Clipboard: selected words…"
    assert composer.context_items[-1].text == "clipboard:\nselected words\nsecond line"


def test_main_window_sends_attachments_and_context_to_the_runtime(
    qtbot, window, fake_runtime: FakeRuntime, tmp_path: Path
) -> None:
    image, _notes = files(tmp_path)
    composer = window.composer
    assert [c.kind for c in composer.context_items] == [i.kind for i in default_context()]
    composer.add_files([image])
    fake_runtime.script(Content("A red square."))
    composer.set_text("Describe")
    composer.submit()
    qtbot.waitUntil(lambda: not window.controller.busy and fake_runtime.prompts == ["Describe"])
    [(attachments, context)] = fake_runtime.run_extras
    assert [a.name for a in attachments] == ["chart.png"]
    assert context is not None and [c.kind for c in context] == ["datetime", "os"]


def test_main_window_shows_a_refused_file_in_the_conversation(qtbot, window, tmp_path: Path) -> None:
    blob = tmp_path / "archive.zip"
    blob.write_bytes(b"PK\x03\x04\x00\x00\x00\x00" * 32)
    window.composer.add_files([str(blob)])
    assert "archive.zip is a binary file" in window.status.text() or "refused" in window.status.text()
