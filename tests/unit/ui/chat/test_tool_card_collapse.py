"""A finished tool card folds to one summary line (tool, server, status, duration) and expands on click;
the run loop's "the user edited the arguments" note is a note on the card, not part of the tool's output."""

from __future__ import annotations

from PySide6.QtCore import QPoint, Qt

from desktop_app.ui.chat.tool_card import ToolCard

EDITED = "[The user edited the arguments before approving; the tool ran with {'zone': 'UTC'}]\n"


def test_a_finished_card_collapses_to_a_summary_and_expands_on_click(qtbot):
    card = ToolCard("call-1", "time", "get_time", {"zone": "Europe/Paris"})
    qtbot.addWidget(card)
    card.show()
    card.ask()
    card.show_decision(True, None, "user", "once", {"zone": "UTC"})
    card.show_result(EDITED + "12:00 UTC", is_error=False)
    assert not card.expanded and card.args.isHidden() and card.result.isHidden()
    assert "get_time" in card.title.text() and "time" in card.title.text()  # tool · server
    assert card.status.text() == "Approved" and card.duration.text().startswith("· ")
    assert card.duration.text().endswith(("ms", " s"))
    assert card.note is not None and "edited the arguments" in card.note.text()
    assert card.result.text() == "12:00 UTC"  # the note is not in the tool's output
    qtbot.mouseClick(card, Qt.MouseButton.LeftButton, pos=QPoint(card.width() // 2, card.title.geometry().center().y()))
    assert card.expanded and card.args.isVisible() and card.result.isVisible()
    qtbot.mouseClick(card.toggle, Qt.MouseButton.LeftButton)
    assert not card.expanded and card.result.isHidden()


def test_a_denied_card_collapses_too(qtbot):
    card = ToolCard("call-2", "fs", "delete_file", {"path": "/tmp/x"})
    qtbot.addWidget(card)
    card.show()
    card.ask()
    card.show_decision(False, "not now", "user", "once", None)
    card.show_result("Denied by the user. Reason: not now", is_error=True)
    assert not card.expanded and card.status.text().startswith("Denied")
    assert card.note is None


def test_an_image_in_a_tool_result_is_shown_inline(qtbot):
    import base64

    from PySide6.QtCore import QBuffer, QByteArray, QIODevice
    from PySide6.QtGui import QColor, QImage

    image = QImage(40, 30, QImage.Format.Format_RGB32)
    image.fill(QColor("#2f6fde"))
    data = QByteArray()
    buffer = QBuffer(data)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    image.save(buffer, "PNG")
    png = base64.b64encode(bytes(data)).decode()
    card = ToolCard("call-3", "shots", "screenshot", {})
    qtbot.addWidget(card)
    card.show()
    text = f"Here it is.\n[image image/png, {len(bytes(data))} bytes]"
    card.show_result(text, is_error=False, media=[{"type": "image", "mimeType": "image/png", "data": png}])
    [label] = card.images
    assert label.pixmap().width() == 40 and label.isVisible()  # shown, and still shown on the collapsed card
    assert card.result.text() == "Here it is."  # no "[image image/png, … bytes]" line
    card.set_expanded(True)
    assert card.result.isVisible() and label.isVisible()
