"""Images and embedded resources in a tool result show inline on the card live and again after a restart
(replayed from the store), with the real Runtime and Store."""

from __future__ import annotations

import base64
from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import Qt

from desktop_app.ui.chat.tool_card import ToolCard
from tests.support.fakes import FakeHost, answer, calls
from tests.unit.ui.chat.test_edit_resend import _click, _Session
from tests.unit.ui.test_full_conversation import MediaOutcome, _png

RESOURCE_TEXT = "# Notes\nline two\nline three"
BLOB = base64.b64encode(b"\x00\x01binary" * 10).decode()


@dataclass
class ReportHost(FakeHost):
    async def call(self, server: str, tool: str, arguments: dict[str, Any], *, progress: Any = None) -> Any:
        png = _png()
        return MediaOutcome(
            text=(
                f"Report ready\n[image image/png, {len(base64.b64decode(png))} bytes]\n"
                f"[resource file:///notes.md]\n{RESOURCE_TEXT}\n"
                "[resource file:///data.bin application/octet-stream, 80 bytes]"
            ),
            content=[
                {"type": "text", "text": "Report ready"},
                {"type": "image", "mimeType": "image/png", "data": png},
                {
                    "type": "resource",
                    "resource": {"uri": "file:///notes.md", "mimeType": "text/markdown", "text": RESOURCE_TEXT},
                },
                {
                    "type": "resource",
                    "resource": {"uri": "file:///data.bin", "mimeType": "application/octet-stream", "blob": BLOB},
                },
            ],
        )


def _check(card: ToolCard) -> None:
    [image] = card.images
    assert image.isVisible() and image.pixmap().width() == 64  # shown even while the card is folded
    assert len(card.resources) == 2
    card.set_expanded(True)
    text_box, blob_box = sorted(card.resources, key=lambda b: b.accessibleName())[::-1]
    assert "file:///notes.md" in text_box.accessibleName()
    [body] = [w for w in text_box.findChildren(type(card.args.editor)) if w.objectName() == "toolCardResourceText"]
    assert body.toPlainText() == RESOURCE_TEXT and text_box.isVisible()
    [size] = [w for w in blob_box.findChildren(type(card.title)) if w.objectName() == "toolCardResourceSize"]
    assert size.text() == "Binary contents, 80 bytes"
    assert card.result.text() == "Report ready"  # what the card shows is not repeated in the text


def test_images_and_embedded_resources_show_on_the_card_live_and_after_a_restart(qtbot, qloop, tmp_path):
    path = tmp_path / "switchboard.db"
    host = ReportHost(handlers={"make": str}, server="reports")
    first = _Session(qtbot, qloop, path, [], host)
    first.provider.responses.extend([calls(("c1", "mcp__reports__make", "{}")), answer("Here it is.")])
    win = first.win
    try:
        win.composer.edit.setPlainText("Make the report")
        qtbot.keyClick(win.composer.edit, Qt.Key.Key_Return)
        qtbot.waitUntil(lambda: any(c.pending for c in win.view.cards.values()), timeout=5000)
        [card] = win.view.cards.values()
        _click(qtbot, win, card.approve_button)
        qtbot.waitUntil(lambda: not win.controller.busy, timeout=5000)
        _check(card)
        conversation = win.controller.conversation_id
    finally:
        first.close()

    second = _Session(qtbot, qloop, path, [], host)
    try:
        second.win.open_conversation(conversation)
        [card] = second.win.view.cards.values()
        assert card.tool == "make" and not card.expanded
        _check(card)
    finally:
        second.close()
