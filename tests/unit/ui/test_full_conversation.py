"""Acceptance: a whole conversation through the real Runtime and the loopback SSE server — a retry line,
reasoning, two tool cards (one approved with edited arguments, one denied), an image in a tool result, and
the final answer, each shown as designed."""

from __future__ import annotations

import base64
from dataclasses import dataclass, field
from typing import Any

import pytest
from PySide6.QtCore import QBuffer, QByteArray, QIODevice, Qt
from PySide6.QtGui import QColor, QImage

from desktop_app.runtime.providers.openai import OpenAIProvider
from desktop_app.runtime.service import Runtime
from desktop_app.runtime.settings import ProviderSettings, Settings
from desktop_app.ui.chat.blocks import AnswerBlock, ReasoningBlock
from desktop_app.ui.chat.retry import RetryLine
from desktop_app.ui.chat.tool_card import ToolCard
from desktop_app.ui.window.main_window import MainWindow
from tests.support.fakes import FakeHost
from tests.support.llm_server import error_reply, text_reply, tool_call_reply


def _png() -> str:
    image = QImage(64, 48, QImage.Format.Format_RGB32)
    image.fill(QColor("#2f6fde"))
    data = QByteArray()
    buffer = QBuffer(data)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    image.save(buffer, "PNG")
    return base64.b64encode(bytes(data)).decode()


@dataclass(frozen=True)
class MediaOutcome:
    text: str
    is_error: bool = False
    structured: dict[str, Any] | None = None
    content: list[dict[str, Any]] = field(default_factory=list)


@dataclass
class ShotsHost(FakeHost):
    """``screenshot`` returns an MCP image block (and its summary line, as the real host does)."""

    async def call(self, server: str, tool: str, arguments: dict[str, Any], *, progress: Any = None) -> Any:
        self.log.append((server, tool, arguments))
        if tool == "screenshot":
            png = _png()
            return MediaOutcome(
                text=f"Screenshot of {arguments['page']}\n[image image/png, {len(base64.b64decode(png))} bytes]",
                content=[
                    {"type": "text", "text": f"Screenshot of {arguments['page']}"},
                    {"type": "image", "mimeType": "image/png", "data": png},
                ],
            )
        return MediaOutcome(text="deleted everything")


@pytest.mark.integration
def test_a_full_conversation_with_reasoning_tools_an_image_a_retry_and_the_answer(qtbot, qloop, llm_server):
    llm_server.enqueue(
        error_reply(503, {"error": {"message": "busy"}}, headers={"Retry-After": "30"}),
        tool_call_reply(
            [("c1", "mcp__shots__screenshot", {"page": "home"}), ("c2", "mcp__shots__delete_all", {})],
            reasoning="I will take a screenshot, and the user asked to clean up too.",
        ),
        text_reply("Here is the **about** page. I did not delete anything."),
    )
    settings = Settings(provider=ProviderSettings(base_url=llm_server.url, model="test-model"))

    def factory(s: ProviderSettings, key: str | None) -> OpenAIProvider:
        return OpenAIProvider(base_url=s.base_url, api_key=key, dialect="openai", sleep=runtime.sleeper.sleep)

    host = ShotsHost(handlers={"screenshot": str, "delete_all": str}, server="shots")
    runtime = Runtime(settings=settings, host=host, api_key_override="k", provider_factory=factory)
    win = MainWindow()
    qtbot.addWidget(win)
    win.attach_runtime(runtime)
    win.show()
    qtbot.waitExposed(win)
    try:
        win.composer.edit.setPlainText("Screenshot the site and delete the old shots")
        qtbot.keyClick(win.composer.edit, Qt.Key.Key_Return)
        qtbot.waitUntil(lambda: win.view.retry_line is not None, timeout=5000)
        line = win.view.retry_line
        qtbot.waitUntil(lambda: line.retry_button.isVisible(), timeout=5000)
        qtbot.mouseClick(line.retry_button, Qt.MouseButton.LeftButton)  # no 30 s wait

        def card_for(tool: str) -> ToolCard | None:
            return next((c for c in win.view.cards.values() if c.tool == tool and c.pending), None)

        qtbot.waitUntil(lambda: card_for("screenshot") is not None, timeout=5000)
        shot = card_for("screenshot")
        qtbot.mouseClick(shot.edit_button, Qt.MouseButton.LeftButton)
        shot.args.editor.setPlainText('{"page": "about"}')
        qtbot.mouseClick(shot.approve_button, Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda: card_for("delete_all") is not None, timeout=5000)
        delete = card_for("delete_all")
        qtbot.mouseClick(delete.deny_button, Qt.MouseButton.LeftButton)
        qtbot.keyClicks(delete.reason_edit, "keep them")
        qtbot.mouseClick(delete.deny_confirm_button, Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda: not win.controller.busy, timeout=10_000)

        blocks = [b for b in win.view.blocks() if not b.isHidden()]
        kinds = [type(b).__name__ for b in blocks]
        # the retry line, then the reasoning, the two cards and the answer, in that order
        assert kinds.index("RetryLine") < kinds.index("ReasoningBlock") < kinds.index("ToolCard")
        assert kinds.index("ToolCard") < len(kinds) - 1 - kinds[::-1].index("AnswerBlock")
        [retry] = [b for b in blocks if isinstance(b, RetryLine)]
        assert not retry.active
        [reasoning] = [b for b in blocks if isinstance(b, ReasoningBlock)]
        assert "take a screenshot" in reasoning.text and not reasoning.expanded
        cards = [b for b in blocks if isinstance(b, ToolCard)]
        assert [c.tool for c in cards] == ["screenshot", "delete_all"]
        shot, delete = cards
        assert shot.status.text() == "Approved" and not shot.expanded and shot.duration.text()
        assert shot.note is not None and "edited the arguments" in shot.note.text()
        assert shot.result.text() == "Screenshot of about"  # no note, no "[image …]" line in the output
        [image] = shot.images
        assert image.isVisible() and image.pixmap().width() == 64
        assert delete.status.text().startswith("Denied") and "keep them" in delete.status.text()
        assert host.log == [("shots", "screenshot", {"page": "about"})]  # ran with the edit; delete never ran
        answer = [b for b in blocks if isinstance(b, AnswerBlock)][-1]
        assert answer.text == "Here is the **about** page. I did not delete anything."
        assert answer.toPlainText() == "Here is the about page. I did not delete anything."  # rendered
        assert len(llm_server.requests) == 3
    finally:
        task = qloop.create_task(runtime.aclose())
        qtbot.waitUntil(task.done)
